"""rating_metrics: each design's scores against the human ratings (bias, MAE, Wilcoxon with
rank-biserial, Krippendorff's α, bootstrap intervals, run-to-run noise), one row per design."""

from __future__ import annotations

import numpy as np
import polars as pl

from schemas.rating_metrics import RatingMetrics
from schemas.scores import DESIGN, with_readout
from schemas.validate import validate
from tasks.multiplicity import with_adjusted
from tasks.rating.item_scores import item_scores
from tasks.stats import (
    CI_COLUMNS,
    bootstrap_ci,
    design_rng,
    kripp_alpha,
    one_blas_thread,
    readout_key,
    signed_rank,
    wilcoxon_of,
)

PARSE_FAILURES = ("unparseable", "out_of_range")
MIN_REPEATS = 2  # ok repeats an item needs to show run-to-run noise
SIGNED_RANK_CELLS = 1_000_000  # items × designs per signed-rank call (~15 arrays this size)


def rating_metrics(
    scores: pl.DataFrame,
    n_boot: int = 1000,
    seed: int = 0,
    per_item: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """One row per design. Repeats are averaged per item before comparing with humans
    (`per_item`: the `item_scores` of these scores, when the caller already has them);
    repeat_sd is their run-to-run noise, the per-item SD over ok repeats averaged over the
    items with at least two (null when no item has two).

    Intervals resample items (n_boot times, a generator per design from seed and the design's
    names); n_boot = 0 leaves them null. p_holm and p_bh adjust wilcoxon_p over the family
    of tests the threshold tables count: the study's designs of one kind against the humans.
    """
    scores = with_readout(scores)
    counts = scores.group_by(DESIGN).agg(
        pl.len().alias("n_planned"),
        pl.col("status").is_in(PARSE_FAILURES).mean().alias("parse_failure_rate"),
        (pl.col("status") == "error").mean().alias("error_rate"),
    )
    per_item = item_scores(scores) if per_item is None else with_readout(per_item)
    with one_blas_thread():
        metrics = _design_metrics(per_item, n_boot, seed)
    out = counts.join(metrics, on=DESIGN, how="left").with_columns(
        pl.col("n_planned").cast(pl.Int64), pl.col("n_items").fill_null(0)
    )
    out = with_adjusted(out.sort(DESIGN), "wilcoxon_p", ["study", "kind"], "p")
    out = out.select(list(RatingMetrics.to_schema().columns))
    return validate(out, RatingMetrics)


def _signed_rank_slices(
    d: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> dict[str, np.ndarray]:
    """signed_rank of each slice d[start:end], vectorised: the slices become NaN-padded columns
    of an items × slices matrix, in chunks of at most SIGNED_RANK_CELLS cells."""
    sizes = ends - starts
    rows = int(sizes.max(initial=0))
    step = max(1, SIGNED_RANK_CELLS // max(1, rows))
    parts = []
    for lo in range(0, len(sizes), step):
        hi = min(lo + step, len(sizes))
        m = np.full((rows, hi - lo), np.nan)
        n = sizes[lo:hi]
        idx = np.arange(starts[lo], ends[hi - 1]) if hi > lo else np.arange(0)
        m[idx - np.repeat(starts[lo:hi], n), np.repeat(np.arange(hi - lo), n)] = d[idx]
        parts.append(signed_rank(m))
    keys = ("n", "r_plus", "r_minus", "p", "exact")
    return {k: np.concatenate([p[k] for p in parts]) if parts else np.empty(0) for k in keys}


def _design_metrics(per_item: pl.DataFrame, n_boot: int, seed: int) -> pl.DataFrame:
    """One row of metrics per design of item_scores. The rows are sorted by design once
    (stably: a design's items keep their order, which its bootstrap draws index) and each
    design is a slice of the columns; the signed-rank tests of all designs are one call."""
    numbers = ("score_1to7", "human_1to7", "score_sd", "n_ok")
    ordered = per_item.select(*DESIGN, *numbers).sort(DESIGN, maintain_order=True)
    designs = ordered.group_by(DESIGN, maintain_order=True).agg(pl.len().alias("_n"))
    sizes = designs["_n"].to_numpy().astype(np.int64)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    judge = ordered["score_1to7"].to_numpy().astype(float)
    human = ordered["human_1to7"].to_numpy().astype(float)
    sd = ordered["score_sd"].fill_null(np.nan).to_numpy().astype(float)
    repeated = ordered["n_ok"].to_numpy() >= MIN_REPEATS
    test = _signed_rank_slices(judge - human, starts, ends)
    rows = []
    for d, (design, lo, hi) in enumerate(zip(designs.drop("_n").rows(), starts, ends, strict=True)):
        j, h = judge[lo:hi], human[lo:hi]
        w, p, rbc = wilcoxon_of(test, d, len(j))
        bias = float(np.mean(j - h))
        sds = sd[lo:hi][repeated[lo:hi]]
        rows.append(
            {
                **dict(zip(DESIGN, design, strict=True)),
                "n_items": len(j),
                "repeat_sd": float(sds.mean()) if sds.size else None,
                "bias": bias,
                "abs_bias": abs(bias),
                "mae": float(np.mean(np.abs(j - h))),
                "wilcoxon_w": w,
                "wilcoxon_p": p,
                "rank_biserial": rbc,
                "kripp_alpha": kripp_alpha(j, h),
                **bootstrap_ci(
                    j, h, np.arange(len(j)), n_boot, design_rng(seed, readout_key(design))
                ),
            }
        )
    metric_schema = {
        "n_items": pl.Int64,
        "repeat_sd": pl.Float64,
        "bias": pl.Float64,
        "abs_bias": pl.Float64,
        "mae": pl.Float64,
        "wilcoxon_w": pl.Float64,
        "wilcoxon_p": pl.Float64,
        "rank_biserial": pl.Float64,
        "kripp_alpha": pl.Float64,
        **dict.fromkeys(CI_COLUMNS, pl.Float64),
    }
    return pl.DataFrame(rows, schema={**{c: pl.String for c in DESIGN}, **metric_schema})
