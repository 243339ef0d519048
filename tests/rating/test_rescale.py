"""Rescaling: every scale and the human −4..4 land linearly on 1–7."""

import polars as pl
import pytest

from schemas.plan import DESIGN_COLUMNS
from tasks.judging.scales import load_scales
from tasks.rating.rescale import rescale_scores

SCALES = load_scales()


def _plan(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            (k, "s", "j", "m", "t", "base", "v1", sc, "default", item, 0, "[]", "{}")
            for k, sc, item in rows
        ],
        schema=[*DESIGN_COLUMNS, "messages", "params"],
        orient="row",
    )


def test_linear_rescale_of_judges_and_humans() -> None:
    keys = [f"{i:064d}" for i in range(6)]
    plan = _plan(
        [
            (keys[0], "likert7", "a"),
            (keys[1], "bipolar3", "a"),
            (keys[2], "unit", "b"),
            (keys[3], "pct100", "b"),
            (keys[4], "pct100", "c"),
            (keys[5], "unit", "c"),
        ]
    )
    judgments = pl.DataFrame(
        {
            "key": keys[:5],
            "status": ["ok", "ok", "ok", "ok", "unparseable"],
            "score": [7.0, -3.0, 0.5, 25.0, None],
        }
    )
    items = pl.DataFrame(
        {
            "item_id": ["a", "b", "c"],
            "human_mean": [-4.0, 0.0, 2.0],
            "human_min": [-4.0] * 3,
            "human_max": [4.0] * 3,
        }
    )
    out = rescale_scores(plan, judgments, items, SCALES).sort("key")
    assert out["score_1to7"].to_list()[:4] == pytest.approx([7.0, 1.0, 4.0, 2.5])
    assert out["score_1to7"][4] is None  # a failed parse is never a score
    assert out["human_1to7"].to_list() == pytest.approx([1.0, 1.0, 4.0, 4.0, 5.5, 5.5])
    assert out["status"].to_list() == ["ok", "ok", "ok", "ok", "unparseable", "missing"]
