"""tone_threshold_sweep: per tone comparison and pass mark, how often the verdict on a text
depends on which pole it was written in."""

import pandera.polars as pa


class ToneThresholdSweep(pa.DataFrameModel):
    study: str
    judge: str
    model: str
    prompt_level: str
    rewriter: str
    axis: str
    threshold: float
    n_texts: int = pa.Field(ge=0)  # texts whose A and B versions both have an ok score
    pass_share_a: float = pa.Field(nullable=True, ge=0, le=1)  # A's mean ≥ threshold
    pass_share_b: float = pa.Field(nullable=True, ge=0, le=1)
    share_flip_a_pass: float = pa.Field(nullable=True, ge=0, le=1)  # A passes, B fails
    share_flip_b_pass: float = pa.Field(nullable=True, ge=0, le=1)  # B passes, A fails

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "rewriter", "axis", "threshold")
