"""tone_human_relation: per tone comparison, whether the judge tracks the human rating on
the originals, and whether the tone gap grows or shrinks with it. Each p column is adjusted
(Holm, Benjamini–Hochberg) over its own family: that column's tests in one study."""

import pandera.polars as pa


class ToneHumanRelation(pa.DataFrameModel):
    study: str
    judge: str
    model: str
    prompt_level: str
    rewriter: str
    axis: str
    n_originals: int = pa.Field(ge=0)  # its texts with an ok original and a human score
    rho_original: float = pa.Field(nullable=True, ge=-1, le=1)  # Spearman: original mean vs human
    p_original: float = pa.Field(nullable=True, ge=0, le=1)
    p_original_holm: float = pa.Field(nullable=True, ge=0, le=1)
    p_original_bh: float = pa.Field(nullable=True, ge=0, le=1)
    n_texts: int = pa.Field(ge=0)  # texts with both versions scored and a human score
    rho_gap_human: float = pa.Field(nullable=True, ge=-1, le=1)  # Spearman: gap A − B vs human
    p_gap_human: float = pa.Field(nullable=True, ge=0, le=1)
    p_gap_human_holm: float = pa.Field(nullable=True, ge=0, le=1)
    p_gap_human_bh: float = pa.Field(nullable=True, ge=0, le=1)

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "rewriter", "axis")
