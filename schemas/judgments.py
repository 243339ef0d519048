"""judgments: the store of judge calls, one row per completed call attempt, keyed by call hash.

A key may appear more than once when an earlier row has status `error` (retried on a later
run), or when an imported answer changed in its file (tasks/imports/); `stg_judgments` and
`store.latest` keep the newest row per key, whatever the older one's status.
"""

import pandera.polars as pa
import polars as pl

from tasks.judging.parse import STATUSES

SOURCES = ("call", "import")  # a judge called by judgelab; an answer read from a user's file


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
    attempts: int = pa.Field(ge=0)  # requests sent for this call (retries, re-asks; import: 0)
    latency_s: float = pa.Field(ge=0)
    prompt_tokens: int = pa.Field(nullable=True)
    completion_tokens: int = pa.Field(nullable=True)
    cost_usd: float = pa.Field(nullable=True)  # litellm's price table; null when unknown
    run_id: str
    created_at: pl.Datetime(time_unit="us", time_zone="UTC")
    # where the answer came from; parts written before imports have none of these columns
    # and are read as "call" with nulls (store.read_store, stg_judgments)
    source: str = pa.Field(isin=list(SOURCES))
    source_sha256: str = pa.Field(nullable=True, str_length=64)  # the imported file's sha256
    source_row: int = pa.Field(nullable=True, ge=1)  # its record's number in the file (1 = first)
    # prompt tokens the provider read from / wrote to its prompt cache (usage's
    # prompt_tokens_details.cached_tokens, Anthropic's cache_read/creation_input_tokens);
    # null when the provider did not say, or on parts written before caching counted
    cached_tokens: int = pa.Field(nullable=True, ge=0)
    cache_write_tokens: int = pa.Field(nullable=True, ge=0)
    # the provider batch that answered this call (tasks/judging/batches.py); null = online
    batch_id: str = pa.Field(nullable=True)
    # the judge's probability of each value on the scale's grid at the answer's value
    # position, as a JSON object {"<value>": p, ...}; null when the judge gives none (a
    # hosted judge without logprobs, parts written before distributions were kept)
    probs: str = pa.Field(nullable=True)

    class Config:
        strict = True

    @pa.dataframe_check
    def file_only_when_imported(cls, data) -> bool:
        imported = pl.col("source") == "import"
        return data.lazyframe.select(
            (imported == pl.col("source_sha256").is_not_null())
            & (imported == pl.col("source_row").is_not_null())
        )

    @pa.dataframe_check
    def score_only_when_ok(cls, data) -> bool:
        return data.lazyframe.select((pl.col("status") == "ok") == pl.col("score").is_not_null())
