"""qa_items: one row per (question, candidate answer) a judge labels correct or not."""

import pandera.polars as pa

# Where a candidate came from: TruthfulQA's four answer fields, or a user's file.
SOURCES = ("best", "correct", "best_incorrect", "incorrect", "file")


class QaItems(pa.DataFrameModel):
    item_id: str = pa.Field(unique=True)
    benchmark: str
    domain: str = pa.Field(str_length={"min_value": 1})
    question_id: str  # shared by the items of one question
    question: str = pa.Field(str_length={"min_value": 1})
    answer: str = pa.Field(str_length={"min_value": 1})
    reference: bool = pa.Field(nullable=True)  # True: the answer is correct; null: no label
    source: str = pa.Field(isin=SOURCES)
    text: str = pa.Field(str_length={"min_value": 1})

    class Config:
        strict = True

    @pa.dataframe_check
    def text_is_rendered(cls, data) -> bool:
        """`text` is exactly `tasks.benchmarks.qa.qa_text(question, answer)`."""
        import polars as pl

        rendered = pl.concat_str(
            pl.lit('Question: "'),
            pl.col("question"),
            pl.lit('"\nCandidate answer: "'),
            pl.col("answer"),
            pl.lit('"'),
        )
        return data.lazyframe.select(pl.col("text") == rendered)

    @pa.dataframe_check
    def reference_matches_source(cls, data) -> bool:
        """TruthfulQA's lists fix the label; only a user's file may leave it open."""
        import polars as pl

        right = pl.col("source").is_in(["best", "correct"])
        wrong = pl.col("source").is_in(["best_incorrect", "incorrect"])
        return data.lazyframe.select(
            (pl.col("source") == "file")
            | (right & pl.col("reference").eq_missing(True))
            | (wrong & pl.col("reference").eq_missing(False))
        )
