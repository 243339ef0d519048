"""ensembles: per study × subset × pool × strategy × size, the bias of averaged designs against
their members'."""

import pandera.polars as pa

STRATEGIES = ("model_free", "model_fixed", "scale", "prompt")
# where members come from: LLM judge designs only, or (ensemble_baselines = true) also baselines
POOLS = ("judges", "judges+baselines")


class Ensembles(pa.DataFrameModel):
    study: str
    # "all" designs, or "without <scale>" (analysis.outlier_scale; Figure 5's triples only)
    subset: str = pa.Field(str_matches=r"^(all|without .+)$")
    pool: str = pa.Field(isin=POOLS)
    strategy: str = pa.Field(isin=STRATEGIES)
    size: int = pa.Field(ge=1)  # members per ensemble; 1 = the single designs
    n_possible: int = pa.Field(ge=0)  # qualifying combinations; 0 = impossible with these designs
    n_evaluated: int = pa.Field(ge=0)  # enumerated or sampled, with at least one common item
    # mean over ensembles of the mean over members of each member's own |bias|
    member_abs_bias: float = pa.Field(nullable=True, ge=0)
    ensemble_abs_bias: float = pa.Field(nullable=True, ge=0)  # mean over ensembles of |bias|
    bias_reduction_pct: float = pa.Field(nullable=True, le=100)  # null if members are unbiased
    member_mae: float = pa.Field(nullable=True, ge=0)
    ensemble_mae: float = pa.Field(nullable=True, ge=0)
    mae_reduction_pct: float = pa.Field(nullable=True, le=100)
    share_beats_best_member: float = pa.Field(nullable=True, ge=0, le=1)  # |bias| < best member's

    class Config:
        strict = True
        unique = ("study", "subset", "pool", "strategy", "size")
