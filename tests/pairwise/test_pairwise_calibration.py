"""A pairwise study's calls for calibration: P(A) from the stored distribution over A / B / tie,
true when the human preferred the answer shown first; a human tie or no label is no truth; a
pair's two orders are one bootstrap unit."""

from __future__ import annotations

import json

import polars as pl
import pytest

from tasks.calibration import calibration_tables
from tasks.pairwise.calibration import calibration_calls

WINNER = ["A", "B", "tie"]


def frames() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    items = ["p1#ab", "p1#ba", "p2#ab", "p2#ba", "p3#ab", "p4#ba", "p5#ab"]
    plan = pl.DataFrame(
        {
            "key": [f"k{i}" for i in range(len(items))],
            "study": "s",
            "judge": "j",
            "model": "m",
            "prompt_level": "base",
            "reasoning_effort": "n/a",
            "item_id": items,
            "repeat": 0,
        }
    )
    probs = [
        {"A": 0.7, "B": 0.2, "tie": 0.1},
        {'"A"': 0.4, '"B"': 0.4, '"tie"': 0.2},  # quoted, as the grid writes categories
        {"a": 1.0, "b": 1.0},  # lower case: the parser reads it; tie absent is 0
        None,  # no distribution
        {"A": 0.9, "B": 0.1},
        {"A": 0.5, "B": 0.5},
        {"A": 0.5, "B": 0.5},
    ]
    judgments = pl.DataFrame(
        {
            "key": [f"k{i}" for i in range(len(items))],
            "status": ["ok"] * 6 + ["error"],
            "probs": [None if p is None else json.dumps(p) for p in probs],
        }
    )
    pairs = pl.DataFrame(
        {"pair_id": ["p1", "p2", "p3", "p4", "p5"], "preferred": ["a", "b", "tie", None, "a"]}
    )
    return plan, judgments, pairs


def test_p_of_a_against_the_answer_the_human_preferred() -> None:
    calls = calibration_calls(*frames(), WINNER)
    assert calls["unit"].to_list() == ["p1", "p1", "p2", "p2", "p3", "p4", "p5"]
    assert calls["p"].to_list()[:3] == pytest.approx([0.7, 0.4, 0.5])
    assert calls["p"][3] is None
    # p1: a preferred; shown first in #ab (A is a: true), second in #ba (A is b: false)
    assert calls["y"].to_list() == [True, False, False, True, None, None, True]
    table, bins = calibration_tables(calls, "pairwise", "A", n_boot=20)
    (row,) = table.rows(named=True)
    assert (row["n_calls"], row["n_ok"], row["n_no_probs"], row["n_no_truth"]) == (7, 6, 1, 2)
    assert row["n_scored"] == 3 and row["n_units"] == 2  # p1 (both orders) and p2 #ab
    y, p = [1.0, 0.0, 0.0], [0.7, 0.4, 0.5]
    assert row["brier"] == pytest.approx(sum((a - b) ** 2 for a, b in zip(p, y, strict=True)) / 3)
    assert bins["n"].sum() == 3
