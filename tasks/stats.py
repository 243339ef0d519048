"""Per-design agreement with humans: bias, MAE, Wilcoxon + rank-biserial, Krippendorff's α."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pingouin as pg
import polars as pl

from schemas.rating_metrics import RatingMetrics
from schemas.scores import DESIGN
from schemas.validate import validate
from tasks.item_scores import item_scores

PARSE_FAILURES = ("unparseable", "out_of_range")


def _finite(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def wilcoxon(
    judge: np.ndarray, human: np.ndarray
) -> tuple[float | None, float | None, float | None]:
    """(W, p, rank-biserial r) of the paired two-sided signed-rank test; None where undefined."""
    if len(judge) < 2:
        return None, None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pg.wilcoxon(judge, human, alternative="two-sided").iloc[0]
    return _finite(res["W_val"]), _finite(res["p_val"]), _finite(res["RBC"])


def interval_alpha(data: np.ndarray) -> float | None:
    """Krippendorff's α, interval level, for a coders × units matrix (NaN = missing).

    The `krippendorff` package builds a units × values × values tensor: with continuous
    ratings (human means take thousands of distinct values) that is tens of gigabytes. For
    the interval metric both disagreements reduce to sums of squares, so this is O(n);
    tests check it against the package (which reproduces the textbook values) on small data.
    """
    data = np.asarray(data, dtype=float)
    m = np.sum(~np.isnan(data), axis=0)
    pairable = data[:, m >= 2]
    m = m[m >= 2]
    n = m.sum()
    if n < 2:
        return None
    s1, s2 = np.nansum(pairable, axis=0), np.nansum(pairable**2, axis=0)
    # Σ over ordered pairs i≠j within a set of size k of (v_i − v_j)² = 2k·Σv² − 2(Σv)²
    observed = np.sum((2 * m * s2 - 2 * s1**2) / (m - 1)) / n
    expected = (2 * n * s2.sum() - 2 * s1.sum() ** 2) / (n * (n - 1))
    if expected <= 0:  # one distinct value overall: α is undefined
        return None
    return _finite(1 - observed / expected)


def kripp_alpha(judge: np.ndarray, human: np.ndarray) -> float | None:
    """Interval α between the judge and the human mean as two coders; None if undefined."""
    if len(judge) < 2:
        return None
    return interval_alpha(np.vstack([judge, human]))


def rating_metrics(scores: pl.DataFrame) -> pl.DataFrame:
    """One row per design. Repeats are averaged per item before comparing with humans."""
    counts = scores.group_by(DESIGN).agg(
        pl.len().alias("n_planned"),
        pl.col("status").is_in(PARSE_FAILURES).mean().alias("parse_failure_rate"),
        (pl.col("status") == "error").mean().alias("error_rate"),
    )
    per_item = item_scores(scores)
    rows = []
    for design, grp in per_item.group_by(DESIGN, maintain_order=True):
        j, h = grp["score_1to7"].to_numpy(), grp["human_1to7"].to_numpy()
        w, p, rbc = wilcoxon(j, h)
        rows.append(
            {
                **dict(zip(DESIGN, design, strict=True)),
                "n_items": len(j),
                "bias": float(np.mean(j - h)),
                "mae": float(np.mean(np.abs(j - h))),
                "wilcoxon_w": w,
                "wilcoxon_p": p,
                "rank_biserial": rbc,
                "kripp_alpha": kripp_alpha(j, h),
            }
        )
    metric_schema = {
        "n_items": pl.Int64,
        "bias": pl.Float64,
        "mae": pl.Float64,
        "wilcoxon_w": pl.Float64,
        "wilcoxon_p": pl.Float64,
        "rank_biserial": pl.Float64,
        "kripp_alpha": pl.Float64,
    }
    metrics = pl.DataFrame(rows, schema={**{c: pl.String for c in DESIGN}, **metric_schema})
    out = (
        counts.join(metrics, on=DESIGN, how="left")
        .with_columns(pl.col("n_planned").cast(pl.Int64), pl.col("n_items").fill_null(0))
        .select(list(RatingMetrics.to_schema().columns))
        .sort(DESIGN)
    )
    return validate(out, RatingMetrics)
