"""grading_scores: each planned call's grade beside its candidate's label, both on 1–7, in the
rating study's `scores` shape, so the rating metrics (tasks/rating/metrics.py) read it as is."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from schemas.validate import validate
from tasks.grading.schemas.grading_scores import GradingScores
from tasks.judging.scales import Scale
from tasks.rating.rescale import rescale_scores


def grade_scores(
    plan: pl.DataFrame,
    judgments: pl.DataFrame,
    items: pl.DataFrame,
    scales: dict[str, Scale],
    readouts: Sequence[str] = ("answer",),
) -> pl.DataFrame:
    """plan ⋈ newest judgment per key ⋈ items: the grade on 1–7 and the label as a human rating
    on a 0–1 scale (correct 1 → 7, wrong 0 → 1), once per readout (the parsed grade, or the
    expected grade over the stored distribution: Analysis.readouts); calls not stored yet are
    `missing`."""
    labels = items.select(
        "item_id",
        pl.col("correct").cast(pl.Float64).alias("human_mean"),
        pl.lit(0.0).alias("human_min"),
        pl.lit(1.0).alias("human_max"),
    )
    return validate(rescale_scores(plan, judgments, labels, scales, readouts), GradingScores)
