"""rating_metrics: one row per design (judge × prompt level × scale) compared with human ratings."""

import pandera.polars as pa
import polars as pl

from schemas.design import Design

# percentile-bootstrap 95% intervals (null when not bootstrapped or fewer than 2 items)
CI_PAIRS = (("bias_lo", "bias_hi"), ("mae_lo", "mae_hi"), ("alpha_lo", "alpha_hi"))


def ci_ordered(data: pa.PolarsData) -> pl.LazyFrame:
    """lo ≤ hi holds for every percentile interval. lo ≤ estimate ≤ hi is not checked: a
    percentile interval can exclude the estimate (skewed or degenerate resamples)."""
    return data.lazyframe.select(
        pl.all_horizontal((pl.col(lo) <= pl.col(hi)).fill_null(True) for lo, hi in CI_PAIRS)
    )


class RatingMetrics(Design):
    kind: str
    scale: str
    n_planned: int = pa.Field(ge=0)  # planned calls (items × repeats)
    n_items: int = pa.Field(ge=0)  # items with at least one ok score
    # run-to-run noise: SD over an item's ok repeats, averaged over items with ≥ 2 (1–7)
    repeat_sd: float = pa.Field(nullable=True, ge=0)
    parse_failure_rate: float = pa.Field(ge=0, le=1)  # unparseable + out_of_range, of planned
    error_rate: float = pa.Field(ge=0, le=1)  # provider errors, of planned
    bias: float = pa.Field(nullable=True)  # mean(judge − human), 1–7
    abs_bias: float = pa.Field(nullable=True, ge=0)  # |bias|
    bias_lo: float = pa.Field(nullable=True)
    bias_hi: float = pa.Field(nullable=True)
    mae: float = pa.Field(nullable=True, ge=0)
    mae_lo: float = pa.Field(nullable=True, ge=0)
    mae_hi: float = pa.Field(nullable=True, ge=0)
    wilcoxon_w: float = pa.Field(nullable=True)
    wilcoxon_p: float = pa.Field(nullable=True, ge=0, le=1)  # rule: tasks.stats.signed_rank
    # wilcoxon_p adjusted over the study's designs of this kind (Holm; Benjamini–Hochberg)
    p_holm: float = pa.Field(nullable=True, ge=0, le=1)
    p_bh: float = pa.Field(nullable=True, ge=0, le=1)
    rank_biserial: float = pa.Field(nullable=True, ge=-1, le=1)
    kripp_alpha: float = pa.Field(nullable=True, le=1)
    alpha_lo: float = pa.Field(nullable=True, le=1)
    alpha_hi: float = pa.Field(nullable=True, le=1)
    readout: str  # how each call became a score (schemas.scores)

    class Config:
        strict = True

    @pa.dataframe_check
    def intervals_ordered(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return ci_ordered(data)
