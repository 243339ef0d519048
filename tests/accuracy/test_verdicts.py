"""Stored verdict answers → `verdicts`: TRUE 1, FALSE 0, failures kept without a verdict."""

import polars as pl

from tasks.accuracy.verdicts import verdict_rows


def test_verdict_rows_keep_failures_and_missing_calls() -> None:
    plan = pl.DataFrame(
        {
            "key": ["k1", "k2", "k3", "k4"],
            "study": ["s"] * 4,
            "judge": ["j"] * 4,
            "model": ["m"] * 4,
            "task": ["accuracy"] * 4,
            "prompt_level": ["base"] * 4,
            "prompt_version": ["v1"] * 4,
            "scale": ["verdict"] * 4,
            "reasoning_effort": ["n/a"] * 4,
            "item_id": ["a", "b", "c", "d"],
            "repeat": [0] * 4,
        }
    )
    judgments = pl.DataFrame(
        {
            "key": ["k1", "k2", "k3"],
            "status": ["ok", "ok", "unparseable"],
            "score": [1.0, 0.0, None],
        }
    )
    items = pl.DataFrame({"item_id": ["a", "b", "c", "d"], "reference": [True, True, False, None]})
    out = verdict_rows(plan, judgments, items).sort("item_id")
    assert out["status"].to_list() == ["ok", "ok", "unparseable", "missing"]
    assert out["verdict"].to_list() == [1, 0, None, None]
    assert out["reference"].to_list() == [True, True, False, None]
