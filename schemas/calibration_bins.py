"""calibration_bins: the reliability diagram of each design in `calibration`: per non-empty
equal-width bin of the judge's probability, its calls, mean probability and observed frequency."""

import pandera.polars as pa

from schemas.calibration import STUDY_TYPES
from schemas.design import Design


class CalibrationBins(Design):
    study_type: str = pa.Field(isin=list(STUDY_TYPES))
    reasoning_effort: str
    bin: int = pa.Field(ge=0)  # 0 = the lowest probabilities
    bin_lo: float = pa.Field(ge=0, le=1)  # the bin's edges: (bin_lo, bin_hi], the first [0, ...]
    bin_hi: float = pa.Field(ge=0, le=1)
    n: int = pa.Field(ge=1)  # scored calls in the bin
    mean_p: float = pa.Field(ge=0, le=1)  # their mean probability of the event
    observed: float = pa.Field(ge=0, le=1)  # the share of them for which it was true

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "reasoning_effort", "bin")
