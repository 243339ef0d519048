"""pairs: one row per pair of answers to one context, judged by a pairwise study."""

import pandera.polars as pa

PREFERENCES = ("a", "b")  # which answer the human preferred (null: no label)


class Pairs(pa.DataFrameModel):
    study: str
    pair_id: str = pa.Field(unique=True)  # within a study (the table's part)
    domain: str = pa.Field(str_length={"min_value": 1})
    context: str = pa.Field(str_length={"min_value": 1})  # the question or conversation
    answer_a: str = pa.Field(str_length={"min_value": 1})
    answer_b: str = pa.Field(str_length={"min_value": 1})
    preferred: str = pa.Field(nullable=True, isin=PREFERENCES)
    source: str  # "hhrlhf", or the stem of the user's file

    class Config:
        strict = True
