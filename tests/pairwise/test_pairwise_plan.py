"""The pairwise plan: every pair in both orders, each its own call and key, with repeats; the
row's item id says which answer was shown first; keys are stable across rebuilds."""

from __future__ import annotations

import json

import polars as pl
import pytest

from judgelab.study import Study
from tasks.judging.scales import load_scales
from tasks.pairwise.plan import build_plan, split_item

PAIRS = pl.DataFrame(
    {
        "pair_id": ["f:1", "f:#2"],
        "context": ["Which is bigger, 2 or 3?", "Say hi."],
        "answer_a": ["3", "Hi!"],
        "answer_b": ["2", "Bye."],
    }
)


def study(**changes: object) -> Study:
    doc = {
        "name": "pw",
        "type": "pairwise",
        "task": "pairwise",
        "benchmark": "file",
        "pairs": {"path": "x.csv"},
        "sample_size": 0,
        "repeats": 2,
        "prompt_levels": ["base", "long_icl"],
        "scales": ["winner"],
        "judges": [{"name": "j", "model": "fake/hash"}],
    }
    return Study.model_validate(doc | changes)


def test_both_orders_each_level_and_repeat_get_their_own_call() -> None:
    plan = build_plan(study(), PAIRS, load_scales())
    assert plan.height == 2 * 2 * 2 * 2  # pairs × orders × levels × repeats
    assert plan["key"].n_unique() == plan.height
    rows = plan.with_columns(split_item(pl.col("item_id")))
    assert set(rows["pair_id"]) == {"f:1", "f:#2"}  # a "#" inside a pair id survives
    for pair_id, first, msgs in rows.select("pair_id", "shown_first", "messages").iter_rows():
        pair = PAIRS.filter(pl.col("pair_id") == pair_id).row(0, named=True)
        user = json.loads(msgs)[-1]["content"]
        shown = [pair["answer_a"], pair["answer_b"]][:: 1 if first == "a" else -1]
        assert user == (
            f"Context:\n{pair['context']}\n\nAnswer A:\n{shown[0]}\n\nAnswer B:\n{shown[1]}"
        )
    # the two orders of one pair, level and repeat differ by their messages, hence their keys
    both = rows.group_by("pair_id", "prompt_level", "repeat").agg(pl.col("key").n_unique())
    assert set(both["key"]) == {2}
    assert set(json.loads(p)["seed"] for p in plan["params"]) == {0, 1}  # repeat r: seed + r


def test_keys_are_stable_and_examples_only_in_icl_levels() -> None:
    first, again = (build_plan(study(), PAIRS, load_scales()) for _ in range(2))
    assert first["key"].to_list() == again["key"].to_list()
    systems = {
        level: json.loads(m)[0]["content"]
        for level, m in first.select("prompt_level", "messages").iter_rows()
    }
    assert "Examples:" in systems["long_icl"] and "Examples:" not in systems["base"]
    assert '{"winner": "tie"}' in systems["long_icl"]  # the worked examples answer on the scale
    one = build_plan(study(repeats=1, prompt_levels=["base"]), PAIRS, load_scales())
    assert set(one["key"]) < set(first["key"])  # a smaller study reuses the bigger one's calls


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"scales": ["likert7"]}, 'scales = ["winner"]'),
        ({"benchmark": "vader", "pairs": None}, "cannot use benchmark 'vader'"),
        ({"pairs": None}, "[study.pairs] table is required"),
    ],
)
def test_a_misfit_pairwise_study_is_refused(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        study(**change)
