"""Average each design's ok repeats per item: the unit every judge-vs-human analysis compares."""

from __future__ import annotations

import polars as pl

from schemas.item_scores import ItemScores
from schemas.scores import DESIGN, with_readout
from schemas.validate import validate


def item_scores(scores: pl.DataFrame) -> pl.DataFrame:
    """scores (one row per call) → one row per design × item with at least one ok answer."""
    out = (
        with_readout(scores)
        .filter(pl.col("status") == "ok")
        .with_columns(pl.col("score_1to7", "human_1to7").cast(pl.Float64))
        .group_by([*DESIGN, "item_id"])
        .agg(
            pl.len().cast(pl.Int64).alias("n_ok"),
            pl.col("score_1to7").mean(),
            pl.col("score_1to7").std().alias("score_sd"),
            pl.col("human_1to7").first(),
        )
        .select(list(ItemScores.to_schema().columns))
        .sort([*DESIGN, "item_id"])
    )
    return validate(out, ItemScores)
