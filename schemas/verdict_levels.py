"""verdict_levels: one row per study × item subset × design choice × level of that choice: the
level's accuracy and leniency averaged over the other choices, every judge counted once (the
levels Table 17 compares)."""

import pandera.polars as pa

from schemas.accuracy_metrics import ACCURACY_SUBSETS
from schemas.verdict_pairs import CHOICES


class VerdictLevels(pa.DataFrameModel):
    study: str
    subset: str = pa.Field(isin=list(ACCURACY_SUBSETS))
    choice: str = pa.Field(isin=list(CHOICES))  # model (a judge), prompt level, effort
    level: str  # the judge, prompt level or reasoning effort ("n/a" is never an effort level)
    n_judges: int = pa.Field(ge=0)  # judges with an accuracy behind the value
    n_designs: int = pa.Field(ge=0)  # designs with an accuracy behind the value
    # unweighted nested means: over a judge's efforts, then its prompt levels, then judges
    accuracy: float = pa.Field(nullable=True, ge=0, le=1)
    leniency: float = pa.Field(nullable=True, ge=0, le=1)  # null: no design behind it erred

    class Config:
        strict = True
        unique = ("study", "subset", "choice", "level")
