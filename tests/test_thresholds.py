"""Threshold shares by hand, with and without the outlier scale."""

import polars as pl
import pytest

from tasks.thresholds import threshold_shares


def _metrics(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(
        [("s", "judge", j, pl_, sc, n, b, m, p, r) for j, pl_, sc, n, b, m, p, r in rows],
        schema={
            "study": pl.String,
            "kind": pl.String,
            "judge": pl.String,
            "prompt_level": pl.String,
            "scale": pl.String,
            "n_items": pl.Int64,
            "bias": pl.Float64,
            "mae": pl.Float64,
            "wilcoxon_p": pl.Float64,
            "rank_biserial": pl.Float64,
        },
        orient="row",
    )


METRICS = _metrics(
    [
        # judge, level, scale, n, bias, mae, p, rank-biserial
        ("a", "base", "likert7", 50, 0.10, 0.40, 0.20, 0.05),
        ("a", "base", "bipolar3", 50, 0.60, 0.70, 0.001, 0.55),
        ("a", "long_icl", "likert7", 50, -0.25, 0.55, 0.01, -0.35),
        ("b", "base", "likert7", 50, 0.00, 0.30, None, None),  # no test: not significant
        ("b", "base", "bipolar3", 0, None, None, None, None),  # nothing scored: not counted
    ]
)


def _row(out: pl.DataFrame, subset: str, grouping: str, group: str) -> dict:
    return out.filter(
        (pl.col("subset") == subset) & (pl.col("grouping") == grouping) & (pl.col("group") == group)
    ).row(0, named=True)


def test_shares_and_averages_by_hand() -> None:
    out = threshold_shares(METRICS, "bipolar3")
    every = _row(out, "all", "all", "(all)")
    assert every["n_designs"] == 4
    assert every["share_sig"] == pytest.approx(2 / 4)
    assert every["share_bias_gt_02"] == pytest.approx(2 / 4)
    assert every["share_bias_gt_03"] == pytest.approx(1 / 4)
    assert every["share_mae_gt_05"] == pytest.approx(2 / 4)
    assert every["share_medium_large"] == pytest.approx(2 / 4)
    assert every["mean_bias"] == pytest.approx((0.1 + 0.6 - 0.25 + 0) / 4)
    assert every["mean_abs_bias"] == pytest.approx((0.1 + 0.6 + 0.25 + 0) / 4)
    assert (every["min_bias"], every["max_bias"]) == (-0.25, 0.6)
    judge_a = _row(out, "all", "model", "a")
    assert judge_a["n_designs"] == 3 and judge_a["share_sig"] == pytest.approx(2 / 3)
    long_icl = _row(out, "all", "prompt_level", "long_icl")
    assert long_icl["n_designs"] == 1 and long_icl["share_bias_gt_02"] == 1.0


def test_without_the_outlier_scale() -> None:
    out = threshold_shares(METRICS, "bipolar3")
    without = _row(out, "without bipolar3", "all", "(all)")
    assert without["n_designs"] == 3
    assert without["share_bias_gt_03"] == 0.0
    assert without["max_bias"] == pytest.approx(0.1)
    assert set(threshold_shares(METRICS, None)["subset"]) == {"all"}
