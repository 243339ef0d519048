"""Human ceiling: how closely one human rating tracks the mean of the other humans' ratings.

The study behind judgelab compares each judge only with the human mean; that says how far a
judge is from the crowd, not how far a single human is. This is that missing reference, on
the same 1–7 scale and with the same metrics: leave one rater out, and compare the left-out
rating with the mean of the item's other ratings.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from schemas.human_ceiling import HumanCeiling
from schemas.validate import validate
from tasks.rating.rescale import linear
from tasks.stats import CI_COLUMNS, bootstrap_ci, design_rng, interval_alpha, one_blas_thread

COUNTS = ("n_items", "n_pairs", "n_raters")


def leave_one_out_pairs(ratings: pl.DataFrame, items: pl.DataFrame) -> pl.DataFrame:
    """One row per rating on an item with ≥ 2 ratings: the rating (`single`) and the mean of
    the item's other ratings (`others`), both mapped linearly from the item's human range to
    1–7. Ratings of items not in `items` are dropped."""
    lo, hi = pl.col("human_min"), pl.col("human_max")
    others = (pl.col("total") - pl.col("rating")) / (pl.col("k") - 1)
    return (
        ratings.join(items.select("item_id", "human_min", "human_max"), on="item_id")
        .with_columns(
            pl.len().over("item_id").alias("k"),
            pl.col("rating").sum().over("item_id").alias("total"),
        )
        .filter(pl.col("k") >= 2)
        .select(
            "item_id",
            "rater",
            linear(pl.col("rating"), lo, hi).alias("single"),
            linear(others, lo, hi).alias("others"),
        )
        .sort("item_id", "rater")
    )


@one_blas_thread()
def human_ceiling(
    study: str, ratings: pl.DataFrame, items: pl.DataFrame, n_boot: int, seed: int
) -> pl.DataFrame:
    """One row for the study: bias, MAE and interval α of a single rating against the mean of
    the item's other ratings, over every (item, rating) pair, with 95% intervals from a
    cluster bootstrap over items (a drawn item brings all its pairs: pairs of one item share
    ratings, so they are not independent).

    `items` are the items the study sampled (human_min/human_max per item); `ratings` are
    individual ratings on each benchmark's own scale.

    - bias is 0 by construction: over one item, Σ_j (r_j − mean of the others) = 0. It is
      kept beside the judges' bias as the reference, not as a finding.
    - The others' mean has k − 1 ratings where the judges' reference has k, so the ceiling is
      slightly pessimistic for humans (a noisier reference), more so where k is small.
    - In VADER the `rater` index is a rating's position in the item's list, not a person, so
      there this is "leave one rating out" and n_raters counts positions, not people.
    - Items with a single rating give no pair; if no item has two (a user file with only
      means), the row has n_pairs 0 and null metrics.
    """
    pairs = leave_one_out_pairs(ratings, items)
    row: dict[str, object] = {
        "study": study,
        "n_items": pairs["item_id"].n_unique(),
        "n_pairs": pairs.height,
        "n_raters": pairs["rater"].n_unique(),
        **dict.fromkeys(["bias", "abs_bias", "mae", "alpha", *CI_COLUMNS]),
    }
    if pairs.height:
        single, others = pairs["single"].to_numpy(), pairs["others"].to_numpy()
        bias = float(np.mean(single - others))
        rng = design_rng(seed, [study])
        row |= {
            "bias": bias,
            "abs_bias": abs(bias),
            "mae": float(np.mean(np.abs(single - others))),
            "alpha": interval_alpha(np.vstack([single, others])),
            **bootstrap_ci(single, others, pairs["item_id"].rank("dense").to_numpy(), n_boot, rng),
        }
    columns = HumanCeiling.to_schema().columns
    schema = {c: pl.Float64 for c in columns} | {
        "study": pl.String,
        **dict.fromkeys(COUNTS, pl.Int64),
    }
    out = pl.DataFrame([row], schema=schema)
    return validate(out, HumanCeiling)
