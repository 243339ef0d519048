"""human_ceiling: one row per study, how closely one human rating tracks the other humans'."""

import pandera.polars as pa
import polars as pl

from schemas.rating_metrics import ci_ordered


class HumanCeiling(pa.DataFrameModel):
    study: str = pa.Field(unique=True)
    n_items: int = pa.Field(ge=0)  # items with at least 2 ratings (the ones that give pairs)
    n_pairs: int = pa.Field(ge=0)  # (item, rating) pairs: one rating vs the mean of the others
    n_raters: int = pa.Field(ge=0)  # distinct rater ids among the pairs
    bias: float = pa.Field(nullable=True)  # mean(single − others), 1–7; 0 by construction
    abs_bias: float = pa.Field(nullable=True, ge=0)
    bias_lo: float = pa.Field(nullable=True)
    bias_hi: float = pa.Field(nullable=True)
    mae: float = pa.Field(nullable=True, ge=0)  # mean |single − others|, 1–7
    mae_lo: float = pa.Field(nullable=True, ge=0)
    mae_hi: float = pa.Field(nullable=True, ge=0)
    alpha: float = pa.Field(nullable=True, le=1)  # interval α, single and others as two coders
    alpha_lo: float = pa.Field(nullable=True, le=1)
    alpha_hi: float = pa.Field(nullable=True, le=1)

    class Config:
        strict = True

    @pa.dataframe_check
    def intervals_ordered(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return ci_ordered(data)
