"""Threshold shares (how many designs miss the humans, and by how much), with and without one scale.

The study behind judgelab reports, per task, per prompt level and per model, the share of
designs that differ significantly from the human ratings, with |bias| above 0.2 and 0.3, with
MAE above 0.5, and with a medium-to-large effect (|rank-biserial| ≥ 0.3), plus average bias,
MAE and the range of bias. It then recomputes them without the −3..3 scale, which behaved as an
outlier. Both subsets are rows of one table, so a view can put them side by side.
"""

from __future__ import annotations

import polars as pl

from schemas.threshold_shares import ThresholdShares
from schemas.validate import validate

SIG_P = 0.05
BIAS_CUTS = (0.2, 0.3)
MAE_CUT = 0.5
MEDIUM_EFFECT = 0.3  # |rank-biserial| ≥ 0.3 is medium, ≥ 0.5 large
GROUPINGS = {"all": None, "prompt_level": "prompt_level", "model": "judge"}


def _shares(metrics: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return metrics.group_by(keys).agg(
        pl.len().cast(pl.Int64).alias("n_designs"),
        (pl.col("wilcoxon_p") < SIG_P).fill_null(False).mean().alias("share_sig"),
        (pl.col("bias").abs() > BIAS_CUTS[0]).mean().alias("share_bias_gt_02"),
        (pl.col("bias").abs() > BIAS_CUTS[1]).mean().alias("share_bias_gt_03"),
        (pl.col("mae") > MAE_CUT).mean().alias("share_mae_gt_05"),
        (pl.col("rank_biserial").abs() >= MEDIUM_EFFECT)
        .fill_null(False)
        .mean()
        .alias("share_medium_large"),
        pl.col("bias").mean().alias("mean_bias"),
        pl.col("bias").abs().mean().alias("mean_abs_bias"),
        pl.col("mae").mean().alias("mean_mae"),
        pl.col("bias").min().alias("min_bias"),
        pl.col("bias").max().alias("max_bias"),
    )


def threshold_shares(metrics: pl.DataFrame, outlier_scale: str | None) -> pl.DataFrame:
    """rating_metrics → one row per study × kind × subset × grouping × group.

    Only designs with at least one scored item count (a design whose every answer failed
    has no bias to judge; its failures show in the performance table). Subsets: "all", and
    "without <scale>" when `outlier_scale` is set and present in the study.
    """
    scored = metrics.filter(pl.col("n_items") > 0)
    subsets = [("all", scored)]
    if outlier_scale is not None:
        subsets.append(
            (f"without {outlier_scale}", scored.filter(pl.col("scale") != outlier_scale))
        )
    parts = []
    for subset, frame in subsets:
        for grouping, column in GROUPINGS.items():
            keys = ["study", "kind"] + ([column] if column else [])
            part = _shares(frame, keys).with_columns(
                pl.lit(subset).alias("subset"),
                pl.lit(grouping).alias("grouping"),
                (pl.col(column) if column else pl.lit("(all)")).alias("group"),
            )
            parts.append(part.drop(column) if column else part)
    columns = list(ThresholdShares.to_schema().columns)
    out = pl.concat([p.select(columns) for p in parts]).sort(
        ["study", "kind", "subset", "grouping", "group"]
    )
    return validate(out, ThresholdShares)
