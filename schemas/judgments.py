"""judgments: the store of judge calls, one row per completed call attempt, keyed by call hash.

A key may appear more than once only when an earlier row has status `error` (retried on a
later run); `stg_judgments` keeps the newest row per key.
"""

import pandera.polars as pa
import polars as pl

from tasks.judging.parse import STATUSES


class Judgments(pa.DataFrameModel):
    key: str = pa.Field(str_length=64)
    # the key without the endpoint (plan.base_key); null on rows stored before endpoints
    # counted, whose key is their base key
    base_key: str = pa.Field(str_length=64, nullable=True)
    model: str
    endpoint: str = pa.Field(nullable=True)  # keys.endpoint of the judge; null = provider default
    status: str = pa.Field(isin=list(STATUSES))
    score: float = pa.Field(nullable=True)
    raw: str = pa.Field(nullable=True)  # the final answer text, kept whatever its status
    answers: str  # JSON list of every answer received (first ask and re-asks)
    error: str = pa.Field(nullable=True)  # last transport error, when status is `error`
    attempts: int = pa.Field(ge=1)  # requests sent for this call (retries and re-asks)
    latency_s: float = pa.Field(ge=0)
    prompt_tokens: int = pa.Field(nullable=True)
    completion_tokens: int = pa.Field(nullable=True)
    cost_usd: float = pa.Field(nullable=True)  # litellm's price table; null when unknown
    run_id: str
    created_at: pl.Datetime(time_unit="us", time_zone="UTC")

    class Config:
        strict = True

    @pa.dataframe_check
    def score_only_when_ok(cls, data) -> bool:
        return data.lazyframe.select((pl.col("status") == "ok") == pl.col("score").is_not_null())
