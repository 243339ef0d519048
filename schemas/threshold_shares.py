"""threshold_shares: per study × kind × subset × grouping, how many designs miss the humans."""

import pandera.polars as pa


class ThresholdShares(pa.DataFrameModel):
    study: str
    kind: str
    subset: str  # "all" or "without <scale>"
    grouping: str = pa.Field(isin=["all", "prompt_level", "model", "readout"])
    group: str  # "(all)", a prompt level, a judge, or a readout (when the study has two)
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
    # Table 8's test of average |bias| across the grouping's groups (prompt levels or models):
    # Kruskal–Wallis H, its df (groups − 1) and p, the same on every row of the grouping; null
    # for grouping "all", with fewer than two groups, or when every |bias| is the same
    abs_bias_h: float = pa.Field(nullable=True, ge=0)
    abs_bias_df: int = pa.Field(nullable=True, ge=1)
    abs_bias_p: float = pa.Field(nullable=True, ge=0, le=1)

    class Config:
        strict = True
        unique = ("study", "kind", "subset", "grouping", "group")
