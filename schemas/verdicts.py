"""verdicts: one row per planned judge call of an accuracy study (TRUE or FALSE on an answer)."""

import pandera.polars as pa
import polars as pl

from schemas.design import Design
from tasks.judging.parse import STATUSES

# the columns that name a design in every accuracy table; "model" as a design choice compares
# the judge column (a judge is a model plus its parameters)
VERDICT_DESIGN = ["study", "judge", "model", "prompt_level", "reasoning_effort"]
BASE_LEVEL = "base"
EFFORT_NA = "n/a"  # the provider has no reasoning-effort control: never a real effort level


class Verdicts(Design):
    reasoning_effort: str  # e.g. "default", "low", or "n/a"
    item_id: str
    repeat: int = pa.Field(ge=0)
    status: str = pa.Field(isin=[*STATUSES, "missing"])
    verdict: pl.Int64 = pa.Field(nullable=True, isin=[0, 1])  # 1 = TRUE, 0 = FALSE
    reference: pl.Boolean = pa.Field(nullable=True)  # the item's label; null if none

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "reasoning_effort", "item_id", "repeat")

    @pa.dataframe_check
    def verdict_only_when_ok(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("status") == "ok") == pl.col("verdict").is_not_null())

    @pa.dataframe_check
    def one_reference_per_item(cls, data: pa.PolarsData) -> pl.LazyFrame:
        ref = pl.col("reference")
        return data.lazyframe.select(ref.eq_missing(ref.first().over("study", "item_id")))

    @pa.dataframe_check
    def one_model_per_judge(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col("model").n_unique().over("study", "judge") == 1)
