"""runs: one row per study run × judge: when the run started and finished, and the calls it made
(0 for a judge whose calls were all stored already). The ledger behind "what changed"."""

import pandera.polars as pa
import polars as pl

from tasks.study_types import TYPES


class Runs(pa.DataFrameModel):
    study: str
    study_type: str = pa.Field(isin=list(TYPES))
    run_id: str  # the Prefect flow-run id ("local" outside Prefect)
    started_at: pl.Datetime(time_unit="us", time_zone="UTC")
    finished_at: pl.Datetime(time_unit="us", time_zone="UTC")
    judge: str
    calls_made: int = pa.Field(ge=0)  # calls this run made (every final status)
    calls_failed: int = pa.Field(ge=0)  # of those, anything but ok

    class Config:
        strict = True
