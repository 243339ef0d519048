"""tone_scores: one row per evaluation call of the tone stress test (an original text or one of
its style rewrites, scored by a judge under a prompt level), with its status."""

import pandera.polars as pa
import polars as pl

from tasks.judging.parse import OK, STATUSES
from tasks.tone.axes import axis_poles

ORIGINAL = "original"  # the pole of an unrewritten text
NO_REWRITER = "none"  # the rewriter of an unrewritten text
# per style axis (pole A, pole B), from prompts/tone/axes/*.toml in file order; every gap is A − B
TONE_POLES = axis_poles()
# the columns that name one comparison in every tone table (model follows the judge)
TONE_DESIGN = ["study", "judge", "model", "prompt_level", "rewriter", "axis"]
OVERALL_RANGE = (1.0, 10.0)
CRITERION_RANGE = (1.0, 4.0)


class ToneScores(pa.DataFrameModel):
    study: str
    judge: str  # the judge's name
    model: str  # its litellm model string
    prompt_level: str  # "plain", "style_attention" (positive control), "fact_first" (defence)
    text_id: str
    axis: str  # "confidence" or "fluency"; the original's own label is not used for pairing
    pole: str = pa.Field(isin=[ORIGINAL, *(p for pair in TONE_POLES.values() for p in pair)])
    rewriter: str  # "lexical", an LLM's name, or "none" for the original
    repeat: int = pa.Field(ge=0)
    status: str = pa.Field(isin=[*STATUSES, "missing"])
    overall: float = pa.Field(nullable=True, ge=OVERALL_RANGE[0], le=OVERALL_RANGE[1])
    criteria: str = pa.Field(nullable=True)  # JSON {criterion: score 1–4}
    human_score: float = pa.Field(nullable=True)  # the text's human rating (e.g. UKP)

    class Config:
        strict = True
        unique = (
            "study",
            "judge",
            "prompt_level",
            "rewriter",
            "axis",
            "text_id",
            "pole",
            "repeat",
        )

    @pa.dataframe_check
    def ok_has_overall(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """An ok call has a score; a failed one has none (a failure never becomes a score)."""
        return data.lazyframe.select((pl.col("status") == OK) == pl.col("overall").is_not_null())

    @pa.dataframe_check
    def original_has_no_rewriter(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(
            (pl.col("pole") == ORIGINAL) == (pl.col("rewriter") == NO_REWRITER)
        )
