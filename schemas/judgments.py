"""judgments: the store of judge calls, one row per completed call attempt, keyed by call hash.

A key may appear more than once only when an earlier row has status `error` (retried on a
later run); `stg_judgments` keeps the newest row per key.
"""

import pandera.polars as pa
import polars as pl

from tasks.judging.parse import STATUSES


class Judgments(pa.DataFrameModel):
    key: str = pa.Field(str_length=64)
    model: str
    status: str = pa.Field(isin=list(STATUSES))
    score: float = pa.Field(nullable=True)
    raw: str = pa.Field(nullable=True)  # the judge's answer text, kept whatever its status
    error: str = pa.Field(nullable=True)
    latency_s: float = pa.Field(ge=0)
    prompt_tokens: int = pa.Field(nullable=True)
    completion_tokens: int = pa.Field(nullable=True)
    run_id: str
    created_at: pl.Datetime(time_unit="us", time_zone="UTC")

    class Config:
        strict = True

    @pa.dataframe_check
    def score_only_when_ok(cls, data) -> bool:
        return data.lazyframe.select((pl.col("status") == "ok") == pl.col("score").is_not_null())
