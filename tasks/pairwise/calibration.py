"""A pairwise study's calls for calibration (tasks/calibration.py): each call's P(A), the
probability that the answer shown first is the better one, from its stored distribution, against
the human preference: the event is true when the human preferred the answer shown first. A pair
the human called a tie, or did not label, has no truth (its calls count in n_no_truth); a pair's
two orders are one unit of the bootstrap."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from tasks.calibration import CALL_COLUMNS, event_probability
from tasks.pairwise.analysis import prefers_one
from tasks.pairwise.plan import split_item

EVENT = "A"


def calibration_calls(
    plan: pl.DataFrame, judgments: pl.DataFrame, pairs: pl.DataFrame, categories: Sequence[str]
) -> pl.DataFrame:
    """plan ⋈ newest judgment per key (key, status, probs) ⋈ pairs (pair_id, preferred) → one
    row per planned call: its pair, status, P(A) and whether the human preferred the answer
    shown first; a call not stored yet is `missing`."""
    calls = (
        plan.with_columns(split_item(pl.col("item_id")))
        .join(judgments.select("key", "status", "probs"), on="key", how="left")
        .join(pairs.select("pair_id", "preferred"), on="pair_id", how="left")
    )
    return calls.select(
        *CALL_COLUMNS[:5],
        pl.col("pair_id").alias("unit"),
        (pl.col("shown_first") == "b").alias("flipped"),  # A is b: true when b is preferred
        pl.col("status").fill_null("missing"),
        event_probability(calls["probs"], categories, EVENT).alias("p"),
        pl.when(prefers_one()).then(pl.col("preferred") == pl.col("shown_first")).alias("y"),
    )
