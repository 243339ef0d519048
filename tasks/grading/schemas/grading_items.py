"""grading_items: one row per (question, candidate answer) graded against a reference answer."""

import pandera.polars as pa

from schemas.qa_items import SOURCES


class GradingItems(pa.DataFrameModel):
    item_id: str = pa.Field(unique=True)
    benchmark: str
    domain: str = pa.Field(str_length={"min_value": 1})
    question_id: str
    question: str = pa.Field(str_length={"min_value": 1})
    reference_answer: str = pa.Field(str_length={"min_value": 1})  # correct; not the candidate
    answer: str = pa.Field(str_length={"min_value": 1})  # the candidate the judge grades
    correct: bool  # the benchmark's label of the candidate: the grade's human truth
    source: str = pa.Field(isin=SOURCES)
    text: str = pa.Field(str_length={"min_value": 1})  # tasks.grading.items.grading_text

    class Config:
        strict = True

    @pa.dataframe_check
    def never_graded_against_itself(cls, data) -> bool:
        import polars as pl

        return data.lazyframe.select(pl.col("reference_answer") != pl.col("answer"))
