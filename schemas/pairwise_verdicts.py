"""pairwise_verdicts: one row per planned call of a pairwise study (a pair in one order)."""

import pandera.polars as pa
import polars as pl

from schemas.design import Design
from schemas.pairs import LABELS
from tasks.judging.parse import STATUSES


class PairwiseVerdicts(Design):
    reasoning_effort: str  # e.g. "default", "low", or "n/a"
    pair_id: str
    shown_first: str = pa.Field(isin=["a", "b"])  # the answer shown first, as "Answer A"
    repeat: int = pa.Field(ge=0)
    status: str = pa.Field(isin=[*STATUSES, "missing"])
    position: str = pa.Field(nullable=True, isin=["A", "B", "tie"])  # by position shown
    winner: str = pa.Field(nullable=True, isin=["a", "b", "tie"])  # the answer it names
    preferred: str = pa.Field(nullable=True, isin=LABELS)  # the human's label; null: none

    class Config:
        strict = True
        unique = (
            *("study", "judge", "prompt_level", "reasoning_effort"),
            *("pair_id", "shown_first", "repeat"),
        )

    @pa.dataframe_check
    def winner_only_when_ok(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """A failed call is never turned into a winner."""
        return data.lazyframe.select((pl.col("status") == "ok") == pl.col("winner").is_not_null())
