"""pairs: one row per pair of answers to one context, judged by a pairwise study."""

import pandera.polars as pa

PREFERENCES = ("a", "b")  # the answers a human can prefer
# a human label: the preferred answer, or "tie" (neither: FairEval, MT-Bench); null: no label
LABELS = (*PREFERENCES, "tie")


class Pairs(pa.DataFrameModel):
    study: str
    pair_id: str = pa.Field(unique=True)  # within a study (the table's part)
    domain: str = pa.Field(str_length={"min_value": 1})
    context: str = pa.Field(str_length={"min_value": 1})  # the question or conversation
    answer_a: str = pa.Field(str_length={"min_value": 1})
    answer_b: str = pa.Field(str_length={"min_value": 1})
    preferred: str = pa.Field(nullable=True, isin=LABELS)
    source: str  # "hhrlhf", or the stem of the user's file

    class Config:
        strict = True
