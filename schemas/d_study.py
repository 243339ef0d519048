"""d_study: per study, the G coefficients of a score averaged over n judges × n prompt levels ×
n scales (pairwise: × n orders), projected from the study's random-effects variance components
(tasks/gtheory.py; the item is the object of measurement, every facet random)."""

import pandera.polars as pa


class DStudy(pa.DataFrameModel):
    study: str
    n_judges: int = pa.Field(ge=1)
    n_prompt_levels: int = pa.Field(ge=1)
    n_scales: int = pa.Field(nullable=True, ge=1)  # null: a pairwise study (no scale facet)
    n_orders: int = pa.Field(nullable=True, ge=1)  # null: a rating study (no order facet)
    var_item: float = pa.Field(ge=0)  # universe-score variance σ²(item)
    var_rel_error: float = pa.Field(ge=0)  # relative error σ²(δ)
    var_abs_error: float = pa.Field(ge=0)  # absolute error σ²(Δ)
    g_relative: float = pa.Field(nullable=True, ge=0, le=1)  # Eρ²; null if nothing varies
    phi: float = pa.Field(nullable=True, ge=0, le=1)  # Φ (absolute); null if nothing varies
    # appended for readouts: null unless a rating study reads its calls two ways (both the
    # parsed answer and the expected score, Analysis.readouts), then 1–2 readouts averaged
    n_readouts: int = pa.Field(nullable=True, ge=1)

    class Config:
        strict = True
        unique = ("study", "n_judges", "n_prompt_levels", "n_scales", "n_orders", "n_readouts")
