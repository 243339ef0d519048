"""Threshold shares (how many designs miss the humans, and by how much), with and without one scale.

The study behind judgelab reports, per task, per prompt level and per model, the share of
designs that differ significantly from the human ratings, with |bias| above 0.2 and 0.3, with
MAE above 0.5, and with a medium-to-large effect (|rank-biserial| ≥ 0.3), plus average bias,
MAE and the range of bias. It then recomputes them without the −3..3 scale, which behaved as an
outlier. Both subsets are rows of one table, so a view can put them side by side.

Every cut goes through tasks.cuts (a bias of 0.20000000000000004 is on the cut 0.2, not above
it). Every share is of the row's designs with at least one scored item: a design without a
test (p or rank-biserial null) counts in the denominator as not beyond the cut. The shares
significant after Holm and after Benjamini–Hochberg use rating_metrics' p_holm / p_bh, adjusted
over the family the study tests: its designs of one kind against the humans.

Table 8's significance test of average |bias| (abs_bias_h / _df / _p): do the groups of a
grouping (the prompt levels, or the models) differ in their designs' |bias|? Kruskal–Wallis H
over the designs' |bias| (rank-based, as the paper's other tests; tie-corrected, chi-square
with groups − 1 df; scipy.stats.kruskal, the same as pingouin.kruskal), one test per study ×
kind × subset × grouping, shown on each of the grouping's rows.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import scipy.stats

from schemas.scores import with_readout
from schemas.threshold_shares import ThresholdShares
from schemas.validate import validate
from tasks.cuts import (
    BIAS_CUTS,
    MAE_CUT,
    MEDIUM_EFFECT,
    SIG_P,
    above_expr,
    at_least_expr,
    below_expr,
)

GROUPINGS = {"all": None, "prompt_level": "prompt_level", "model": "judge", "readout": "readout"}


def _share(hit: pl.Expr) -> pl.Expr:
    """Share of the group's designs where `hit` holds; null (no statistic) counts as not."""
    return hit.fill_null(False).cast(pl.Float64).sum() / pl.len()


def _shares(metrics: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return metrics.group_by(keys).agg(
        pl.len().cast(pl.Int64).alias("n_designs"),
        _share(below_expr(pl.col("wilcoxon_p"), SIG_P)).alias("share_sig"),
        _share(below_expr(pl.col("p_holm"), SIG_P)).alias("share_sig_holm"),
        _share(below_expr(pl.col("p_bh"), SIG_P)).alias("share_sig_bh"),
        _share(above_expr(pl.col("bias").abs(), BIAS_CUTS[0])).alias("share_bias_gt_02"),
        _share(above_expr(pl.col("bias").abs(), BIAS_CUTS[1])).alias("share_bias_gt_03"),
        _share(above_expr(pl.col("mae"), MAE_CUT)).alias("share_mae_gt_05"),
        _share(at_least_expr(pl.col("rank_biserial").abs(), MEDIUM_EFFECT)).alias(
            "share_medium_large"
        ),
        pl.col("bias").mean().alias("mean_bias"),
        pl.col("bias").abs().mean().alias("mean_abs_bias"),
        pl.col("mae").mean().alias("mean_mae"),
        pl.col("bias").min().alias("min_bias"),
        pl.col("bias").max().alias("max_bias"),
    )


def abs_bias_test(designs: pl.DataFrame, keys: list[str], column: str) -> pl.DataFrame:
    """Per `keys`: Kruskal–Wallis of the designs' |bias| across the values of `column`.
    No test (nulls) with fewer than two groups or when every |bias| is the same (H is 0/0)."""
    rows = []
    for key, grp in designs.filter(pl.col("bias").is_not_null()).group_by(keys):
        groups = [g["bias"].abs().to_numpy() for _, g in grp.group_by(column)]
        test = {"abs_bias_h": None, "abs_bias_df": None, "abs_bias_p": None}
        if len(groups) >= 2 and np.ptp(np.concatenate(groups)) > 0:
            h, p = scipy.stats.kruskal(*groups)
            test = {"abs_bias_h": float(h), "abs_bias_df": len(groups) - 1, "abs_bias_p": float(p)}
        rows.append(dict(zip(keys, key, strict=True)) | test)
    schema = {k: designs.schema[k] for k in keys}
    schema |= {"abs_bias_h": pl.Float64, "abs_bias_df": pl.Int64, "abs_bias_p": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def threshold_shares(metrics: pl.DataFrame, outlier_scale: str | None) -> pl.DataFrame:
    """rating_metrics → one row per study × kind × subset × grouping × group.

    Only designs with at least one scored item count (a design whose every answer failed
    has no bias to judge; its failures show in the performance table). Subsets: "all", and
    "without <scale>" when `outlier_scale` is set and present in the study.
    """
    metrics = with_readout(metrics)
    scored = metrics.filter(pl.col("n_items") > 0)
    subsets = [("all", scored)]
    if outlier_scale is not None:
        subsets.append(
            (f"without {outlier_scale}", scored.filter(pl.col("scale") != outlier_scale))
        )
    parts = []
    for subset, frame in subsets:
        for grouping, column in GROUPINGS.items():
            if column == "readout" and metrics["readout"].n_unique() < 2:
                continue  # a study with one readout (the default) has no such grouping
            keys = ["study", "kind"] + ([column] if column else [])
            part = _shares(frame, keys).with_columns(
                pl.lit(subset).alias("subset"),
                pl.lit(grouping).alias("grouping"),
                (pl.col(column) if column else pl.lit("(all)")).alias("group"),
            )
            if column:
                part = part.join(abs_bias_test(frame, keys[:-1], column), on=keys[:-1])
            else:  # one group: nothing to compare
                part = part.with_columns(
                    pl.lit(None, pl.Float64).alias("abs_bias_h"),
                    pl.lit(None, pl.Int64).alias("abs_bias_df"),
                    pl.lit(None, pl.Float64).alias("abs_bias_p"),
                )
            parts.append(part.drop(column) if column else part)
    columns = list(ThresholdShares.to_schema().columns)
    out = pl.concat([p.select(columns) for p in parts]).sort(
        ["study", "kind", "subset", "grouping", "group"]
    )
    return validate(out, ThresholdShares)
