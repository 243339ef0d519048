"""calibration: per design of an accuracy or pairwise study, how well the judge's probability
of the event (a verdict's TRUE, a pairwise answer A) matches how often it is true
(tasks/calibration.py)."""

import pandera.polars as pa
import polars as pl

from schemas.design import Design

STUDY_TYPES = ("accuracy", "pairwise")
EVENTS = ("TRUE", "A")  # the category whose probability is calibrated


class Calibration(Design):
    study_type: str = pa.Field(isin=list(STUDY_TYPES))
    reasoning_effort: str
    event: str = pa.Field(isin=list(EVENTS))
    n_calls: int = pa.Field(ge=0)  # planned calls of the design
    n_ok: int = pa.Field(ge=0)  # answered (status ok) = n_no_probs + n_no_truth + n_scored
    n_no_probs: int = pa.Field(ge=0)  # answered without a distribution on the scale's grid
    n_no_truth: int = pa.Field(ge=0)  # with a distribution, but no truth for the item or pair
    n_scored: int = pa.Field(ge=0)  # the calls every number below is computed over
    n_units: int = pa.Field(ge=0)  # items (pairs) behind the scored calls: the bootstrap's units
    n_bins: int = pa.Field(ge=1)  # equal-width bins of the probability on [0, 1]
    mean_p: float = pa.Field(nullable=True, ge=0, le=1)  # mean probability of the event
    observed: float = pa.Field(nullable=True, ge=0, le=1)  # share of scored calls it was true
    brier: float = pa.Field(nullable=True, ge=0, le=1)
    ece: float = pa.Field(nullable=True, ge=0, le=1)
    ece_lo: float = pa.Field(nullable=True, ge=0, le=1)  # 95% bootstrap interval over units
    ece_hi: float = pa.Field(nullable=True, ge=0, le=1)
    ece_null_hi: float = pa.Field(nullable=True, ge=0, le=1)  # a calibrated judge's 95th pct
    miscalibrated: bool = pa.Field(nullable=True)  # ece > ece_null_hi

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "reasoning_effort")

    @pa.dataframe_check
    def calls_add_up(cls, data: pa.PolarsData) -> pl.LazyFrame:
        c = pl.col
        return data.lazyframe.select(c("n_ok") == c("n_no_probs") + c("n_no_truth") + c("n_scored"))
