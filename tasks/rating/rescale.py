"""Put judge scores and human means on one 1–7 scale so designs with different scales compare."""

from __future__ import annotations

import polars as pl

from schemas.plan import DESIGN_COLUMNS
from schemas.scores import Scores
from schemas.validate import validate
from tasks.judging.scales import Scale

TARGET_MIN, TARGET_MAX = 1.0, 7.0


def linear(x: pl.Expr, lo: pl.Expr | float, hi: pl.Expr | float) -> pl.Expr:
    """Linear map of [lo, hi] onto [1, 7]."""
    return TARGET_MIN + (TARGET_MAX - TARGET_MIN) * (x - lo) / (hi - lo)


def rescale_scores(
    plan: pl.DataFrame, judgments: pl.DataFrame, items: pl.DataFrame, scales: dict[str, Scale]
) -> pl.DataFrame:
    """plan ⋈ newest judgment per key ⋈ items → one row per planned call with both on 1–7.

    Planned calls not in the store yet get status `missing`; only `ok` rows carry a score.
    """
    ranges = pl.DataFrame(
        {
            "scale": list(scales),
            "scale_min": [s.min for s in scales.values()],
            "scale_max": [s.max for s in scales.values()],
        }
    )
    joined = (
        plan.drop("messages", "params", strict=False)
        .join(judgments.select("key", "status", "score"), on="key", how="left")
        .join(ranges, on="scale", how="left")
        .join(
            items.select("item_id", "human_mean", "human_min", "human_max"),
            on="item_id",
            how="left",
        )
    )
    out = joined.select(
        "key",
        "study",
        pl.lit("judge").alias("kind"),
        *(c for c in DESIGN_COLUMNS[2:] if c != "reasoning_effort"),  # rating: part of the judge
        pl.col("status").fill_null("missing"),
        "score",
        linear(pl.col("score"), pl.col("scale_min"), pl.col("scale_max")).alias("score_1to7"),
        linear(pl.col("human_mean"), pl.col("human_min"), pl.col("human_max")).alias("human_1to7"),
    )
    return validate(out, Scores)
