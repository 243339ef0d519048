"""Put judge scores and human means on one 1–7 scale so designs with different scales compare."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from schemas.plan import DESIGN_COLUMNS
from schemas.scores import Scores
from schemas.validate import validate
from tasks.judging.distribution import expected
from tasks.judging.scales import Scale

TARGET_MIN, TARGET_MAX = 1.0, 7.0


def linear(x: pl.Expr, lo: pl.Expr | float, hi: pl.Expr | float) -> pl.Expr:
    """Linear map of [lo, hi] onto [1, 7]."""
    return TARGET_MIN + (TARGET_MAX - TARGET_MIN) * (x - lo) / (hi - lo)


def expected_scores(rows: pl.DataFrame, scales: dict[str, Scale]) -> pl.DataFrame:
    """rows (key, status, score, scale, probs) → the same rows read out as the expected score:
    an ok call's score is Σ p·v over its stored distribution; an ok call without one has no
    expected score (status `missing`: nothing to read it from, not a failed call)."""
    pairs = rows.filter(pl.col("probs").is_not_null()).select("scale", "probs").unique()
    found = pl.DataFrame(
        {
            "scale": pairs["scale"],
            "probs": pairs["probs"],
            "_expected": [
                expected(json.loads(p), scales[s]) for s, p in pairs.select("scale", "probs").rows()
            ],
        },
        schema={"scale": pl.String, "probs": pl.String, "_expected": pl.Float64},
    )
    ok = pl.col("status") == "ok"
    return (
        rows.join(found, on=["scale", "probs"], how="left", nulls_equal=False)
        .with_columns(
            pl.when(ok & pl.col("_expected").is_null())
            .then(pl.lit("missing"))
            .otherwise(pl.col("status"))
            .alias("status"),
            pl.when(ok).then(pl.col("_expected")).alias("score"),
        )
        .drop("_expected")
    )


def rescale_scores(
    plan: pl.DataFrame,
    judgments: pl.DataFrame,
    items: pl.DataFrame,
    scales: dict[str, Scale],
    readouts: Sequence[str] = ("answer",),
) -> pl.DataFrame:
    """plan ⋈ newest judgment per key ⋈ items → one row per planned call and readout with both
    on 1–7 (`readouts`: "answer", the parsed answer; "expected", expected_scores; judgments
    need a `probs` column for it). Each readout reads the same stored calls: no extra call.

    Planned calls not in the store yet get status `missing`; only `ok` rows carry a score.
    """
    ranges = pl.DataFrame(
        {
            "scale": list(scales),
            "scale_min": [s.min for s in scales.values()],
            "scale_max": [s.max for s in scales.values()],
        }
    )
    wanted = ["key", "status", "score", *(["probs"] if "expected" in readouts else [])]
    joined = (
        plan.drop("messages", "params", strict=False)
        .join(judgments.select(wanted), on="key", how="left")
        .join(ranges, on="scale", how="left")
        .join(
            items.select("item_id", "human_mean", "human_min", "human_max"),
            on="item_id",
            how="left",
        )
    )
    read = {
        "answer": joined,
        "expected": expected_scores(joined, scales) if "probs" in wanted else None,
    }
    joined = pl.concat([read[r].with_columns(pl.lit(r).alias("readout")) for r in readouts])
    out = joined.select(
        "key",
        "study",
        pl.lit("judge").alias("kind"),
        *(c for c in DESIGN_COLUMNS[2:] if c != "reasoning_effort"),  # rating: part of the judge
        pl.col("status").fill_null("missing"),
        "score",
        linear(pl.col("score"), pl.col("scale_min"), pl.col("scale_max")).alias("score_1to7"),
        linear(pl.col("human_mean"), pl.col("human_min"), pl.col("human_max")).alias("human_1to7"),
        "readout",
    )
    return validate(out, Scores)
