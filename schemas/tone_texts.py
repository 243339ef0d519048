"""tone_texts: one row per text to rewrite in tone, with its corpus, domain and human score."""

import pandera.polars as pa
import polars as pl


class ToneTexts(pa.DataFrameModel):
    text_id: str = pa.Field(unique=True)  # "<corpus>:<id in the source>"
    corpus: str  # "ukpconvarg1", or a user file's stem
    domain: str  # UKP: the debate and side (file stem); a user file: its domain column or "all"
    text: str
    human_score: float = pa.Field(nullable=True)  # UKP: convincingness rank (sums to 1 per file)
    meta: str = pa.Field(nullable=True)  # JSON object of the source's other columns

    class Config:
        strict = True

    @pa.check("text")
    def text_not_blank(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col(data.key).str.strip_chars().str.len_chars() > 0)

    @pa.check("human_score")
    def score_finite(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col(data.key).is_finite() | pl.col(data.key).is_null())

    @pa.check("meta")
    def meta_is_object(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(
            pl.col(data.key).str.starts_with("{") | pl.col(data.key).is_null()
        )
