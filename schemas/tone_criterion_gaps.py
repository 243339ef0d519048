"""tone_criterion_gaps: per tone comparison and rubric criterion, the gap A − B in the
criterion's 1–4 score. The family of the Wilcoxon tests is every row of one study (criteria ×
judges × prompt levels × rewriters × axes); wilcoxon_p_holm / _bh are adjusted over it."""

import pandera.polars as pa
import polars as pl


class ToneCriterionGaps(pa.DataFrameModel):
    study: str
    judge: str
    model: str
    prompt_level: str
    rewriter: str
    axis: str
    criterion: str
    n_texts: int = pa.Field(ge=0)  # texts with the criterion scored on both versions
    mean_a: float = pa.Field(nullable=True, ge=1, le=4)
    mean_b: float = pa.Field(nullable=True, ge=1, le=4)
    gap: float = pa.Field(nullable=True, ge=-3, le=3)  # mean over texts of (A − B)
    gap_lo: float = pa.Field(nullable=True)
    gap_hi: float = pa.Field(nullable=True)
    wilcoxon_p: float = pa.Field(nullable=True, ge=0, le=1)
    wilcoxon_p_holm: float = pa.Field(nullable=True, ge=0, le=1)  # Holm over the study's rows
    wilcoxon_p_bh: float = pa.Field(nullable=True, ge=0, le=1)  # Benjamini–Hochberg, same family
    rank_biserial: float = pa.Field(nullable=True, ge=-1, le=1)

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "rewriter", "axis", "criterion")

    @pa.dataframe_check
    def interval_ordered(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("gap_lo") <= pl.col("gap_hi")).fill_null(True))
