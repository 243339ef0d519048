"""variance_components: per study, the share of judge-design score variance each source explains
(pairwise studies: of right-or-wrong against the human choice, with the order as a factor), by
two methods: the sequential ANOVA's eta² (method "type1_anova") and the crossed random-effects
variance components of a G-study (method "random_ems", tasks/gtheory.py)."""

import itertools

import pandera.polars as pa

# in the order of the sequential (type I) decomposition; "judge" is the model choice
# (a rating study's third factor is the scale; a pairwise study's the order of the answers)
SEQUENTIAL = (
    "judge",
    "prompt_level",
    "scale",
    "order",
    "readout",
    "item",
    "judge:prompt_level",
    "judge:scale",
    "judge:order",
    "judge:readout",
    "prompt_level:scale",
    "prompt_level:order",
    "prompt_level:readout",
    "scale:readout",
    "judge:item",
    "residual",
)
# the random-effects (G-study) components beyond the sequential ones: every facet × item and
# three-way term of the full crossing (its four-way term is the residual)
_G_STUDY = (
    "prompt_level:item",
    "scale:item",
    "order:item",
    "judge:prompt_level:scale",
    "judge:prompt_level:order",
    "judge:prompt_level:item",
    "judge:scale:item",
    "judge:order:item",
    "prompt_level:scale:item",
    "prompt_level:order:item",
)
# a rating study with two readouts (Analysis.readouts) crosses a fourth facet: every term of
# judge × prompt_level × scale × readout × item below the five-way one (the residual)
_WITH_READOUT = tuple(
    ":".join(term)
    for k in range(2, 5)
    for term in itertools.combinations(("judge", "prompt_level", "scale", "readout", "item"), k)
)
COMPONENTS = (
    *SEQUENTIAL,
    *_G_STUDY,
    *(t for t in _WITH_READOUT if t not in SEQUENTIAL + _G_STUDY),
)
METHODS = ("type1_anova", "random_ems")


class VarianceComponents(pa.DataFrameModel):
    study: str
    component: str = pa.Field(isin=COMPONENTS)
    df: int = pa.Field(ge=0)  # 0: the factor has one level, or the term adds nothing estimable
    ss: float = pa.Field(ge=0)  # sequential sum of squares
    eta_sq: float = pa.Field(nullable=True, ge=0, le=1)  # ss / total ss; null if no variance
    # appended for the G-study; null on the type1_anova rows. On random_ems rows df and ss are
    # the full crossed ANOVA's, on the balanced subset the note of the item row describes
    method: str = pa.Field(isin=METHODS)
    ms: float = pa.Field(nullable=True, ge=0)  # mean square ss / df
    variance: float = pa.Field(nullable=True, ge=0)  # σ² estimate from the EMS, negative → 0
    variance_share: float = pa.Field(nullable=True, ge=0, le=1)  # σ² / sum of the study's σ²
    note: str = pa.Field(nullable=True)  # a negative estimate set to 0; the subset used

    class Config:
        strict = True
        unique = ("study", "method", "component")
