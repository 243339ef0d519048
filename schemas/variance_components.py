"""variance_components: per study, the share of judge-design score variance each source explains
(pairwise studies: of right-or-wrong against the human choice, with the order as a factor)."""

import pandera.polars as pa

# in the order of the sequential (type I) decomposition; "judge" is the model choice
# (a rating study's third factor is the scale; a pairwise study's the order of the answers)
COMPONENTS = (
    "judge",
    "prompt_level",
    "scale",
    "order",
    "item",
    "judge:prompt_level",
    "judge:scale",
    "judge:order",
    "prompt_level:scale",
    "prompt_level:order",
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
