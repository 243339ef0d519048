"""metric_history: the main numbers of each study as one run left them (long format: one row per
run × table row × metric), so two runs can be compared with a join."""

import pandera.polars as pa
import polars as pl


class MetricHistory(pa.DataFrameModel):
    study: str
    run_id: str
    finished_at: pl.Datetime(time_unit="us", time_zone="UTC")
    source: str  # the table the number comes from, e.g. rating_metrics
    row_key: str  # the row's identity, e.g. "judge=a · prompt_level=base · scale=likert7"
    metric: str
    value: float = pa.Field(nullable=True)

    class Config:
        strict = True
