"""Turn an accuracy study's stored answers into `verdicts`: one row per planned call."""

from __future__ import annotations

import polars as pl

from schemas.validate import validate
from schemas.verdicts import Verdicts


def verdict_rows(plan: pl.DataFrame, judgments: pl.DataFrame, items: pl.DataFrame) -> pl.DataFrame:
    """plan ⋈ newest judgment per key ⋈ qa_items. A verdict (1 TRUE, 0 FALSE) only where the
    answer parsed; planned calls not stored yet are `missing`."""
    out = (
        plan.join(judgments.select("key", "status", "score"), on="key", how="left")
        .join(items.select("item_id", "reference"), on="item_id", how="left")
        .select(
            "study",
            "judge",
            "model",
            "prompt_level",
            "reasoning_effort",
            "item_id",
            "repeat",
            pl.col("status").fill_null("missing"),
            pl.when(pl.col("status") == "ok")
            .then(pl.col("score").round().cast(pl.Int64))
            .alias("verdict"),
            pl.col("reference").cast(pl.Boolean),
        )
    )
    return validate(out, Verdicts)
