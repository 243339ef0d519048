"""tone_version_scores: per study × judge × prompt level × rewriter × axis × text × pole,
how one version of a text scored over its repeats."""

import pandera.polars as pa


class ToneVersionScores(pa.DataFrameModel):
    study: str
    judge: str
    model: str
    prompt_level: str
    rewriter: str
    axis: str
    text_id: str
    pole: str  # a pole of the axis, or "original"
    threshold: float  # the pass mark of verdict_share
    n_calls: int = pa.Field(ge=1)  # planned calls (repeats), whatever their status
    n_ok: int = pa.Field(ge=0)
    mean_overall: float = pa.Field(nullable=True, ge=1, le=10)  # over ok repeats
    sd_overall: float = pa.Field(nullable=True, ge=0)  # repeat SD (ddof 1); null below 2 ok
    verdict_share: float = pa.Field(nullable=True, ge=0, le=1)  # ok repeats scoring ≥ threshold

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "rewriter", "axis", "text_id", "pole")
