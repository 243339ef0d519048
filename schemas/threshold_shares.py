"""threshold_shares: per study × kind × subset × grouping, how many designs miss the humans."""

import pandera.polars as pa


class ThresholdShares(pa.DataFrameModel):
    study: str
    kind: str
    subset: str  # "all" or "without <scale>"
    grouping: str = pa.Field(isin=["all", "prompt_level", "model"])
    group: str  # "(all)", a prompt level, or a judge
    n_designs: int = pa.Field(ge=1)
    share_sig: float = pa.Field(ge=0, le=1)  # Wilcoxon p < 0.05
    # … after Holm / Benjamini–Hochberg over the study's designs of this kind
    share_sig_holm: float = pa.Field(ge=0, le=1)
    share_sig_bh: float = pa.Field(ge=0, le=1)
    share_bias_gt_02: float = pa.Field(ge=0, le=1)
    share_bias_gt_03: float = pa.Field(ge=0, le=1)
    share_mae_gt_05: float = pa.Field(ge=0, le=1)
    share_medium_large: float = pa.Field(ge=0, le=1)  # |rank-biserial| ≥ 0.3
    mean_bias: float
    mean_abs_bias: float = pa.Field(ge=0)
    mean_mae: float = pa.Field(ge=0)
    min_bias: float
    max_bias: float

    class Config:
        strict = True
        unique = ("study", "kind", "subset", "grouping", "group")
