"""rating_metrics: one row per design (judge × prompt level × scale) compared with human ratings."""

import pandera.polars as pa


class RatingMetrics(pa.DataFrameModel):
    study: str
    kind: str
    judge: str
    model: str
    prompt_level: str
    scale: str
    n_planned: int = pa.Field(ge=0)  # planned calls (items × repeats)
    n_items: int = pa.Field(ge=0)  # items with at least one ok score
    parse_failure_rate: float = pa.Field(ge=0, le=1)  # unparseable + out_of_range, of planned
    error_rate: float = pa.Field(ge=0, le=1)  # provider errors, of planned
    bias: float = pa.Field(nullable=True)  # mean(judge − human), 1–7
    mae: float = pa.Field(nullable=True, ge=0)
    wilcoxon_w: float = pa.Field(nullable=True)
    wilcoxon_p: float = pa.Field(nullable=True, ge=0, le=1)
    rank_biserial: float = pa.Field(nullable=True, ge=-1, le=1)
    kripp_alpha: float = pa.Field(nullable=True, le=1)

    class Config:
        strict = True
