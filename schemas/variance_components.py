"""variance_components: per study, the share of judge-design score variance each source explains."""

import pandera.polars as pa

# in the order of the sequential (type I) decomposition; "judge" is the model choice
COMPONENTS = (
    "judge",
    "prompt_level",
    "scale",
    "item",
    "judge:prompt_level",
    "judge:scale",
    "prompt_level:scale",
    "judge:item",
    "residual",
)


class VarianceComponents(pa.DataFrameModel):
    study: str
    component: str = pa.Field(isin=COMPONENTS)
    df: int = pa.Field(ge=0)  # 0: the factor has one level, or the term adds nothing estimable
    ss: float = pa.Field(ge=0)  # sequential sum of squares
    eta_sq: float = pa.Field(nullable=True, ge=0, le=1)  # ss / total ss; null if no variance

    class Config:
        strict = True
        unique = ("study", "component")
