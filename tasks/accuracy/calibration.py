"""An accuracy study's calls for calibration (tasks/calibration.py): each call's P(TRUE) from its
stored distribution against the truth the accuracy tables grade it by (the reference label, else
the designs' consensus, as `analysis.truth` says: tasks/accuracy/metrics.py truth_labels). With a
consensus truth the judges are graded against their own majority, as accuracy is."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from tasks.calibration import CALL_COLUMNS, event_probability

EVENT = "TRUE"


def calibration_calls(
    plan: pl.DataFrame, judgments: pl.DataFrame, truth: pl.DataFrame, categories: Sequence[str]
) -> pl.DataFrame:
    """plan ⋈ newest judgment per key (key, status, probs) ⋈ the item's truth (study, item_id,
    truth) → one row per planned call: its item (the bootstrap's unit), status, P(TRUE) and
    the truth; a call not stored yet is `missing`."""
    calls = plan.join(judgments.select("key", "status", "probs"), on="key", how="left").join(
        truth.select("study", "item_id", "truth"), on=["study", "item_id"], how="left"
    )
    return calls.select(
        *CALL_COLUMNS[:5],
        pl.col("item_id").alias("unit"),
        pl.lit(False).alias("flipped"),
        pl.col("status").fill_null("missing"),
        event_probability(calls["probs"], categories, EVENT).alias("p"),
        pl.col("truth").alias("y"),
    )
