"""accuracy_metrics: one row per study × design × item subset: how often the design's verdict is
right, and which way it errs."""

import pandera.polars as pa
import polars as pl

from schemas.consensus import SUBSETS
from schemas.design import Design

ACCURACY_SUBSETS = ("all", *SUBSETS)
TRUTHS = ("reference", "consensus")  # what an item's truth is taken from


class AccuracyMetrics(Design):
    reasoning_effort: str
    subset: str = pa.Field(isin=list(ACCURACY_SUBSETS))
    n_items: int = pa.Field(ge=0)  # the design's planned items in the subset that have a truth
    n_scored: int = pa.Field(ge=0)  # of those, items the design resolved (majority of ok repeats)
    n_unresolved: int = pa.Field(ge=0)  # n_items − n_scored: no ok repeat, or a tied majority
    n_no_truth: int = pa.Field(ge=0)  # planned items in the subset left out: no truth label
    n_correct: int = pa.Field(ge=0)
    fp: int = pa.Field(ge=0)  # said TRUE, truth FALSE
    fn: int = pa.Field(ge=0)  # said FALSE, truth TRUE
    accuracy: float = pa.Field(nullable=True, ge=0, le=1)  # n_correct / n_scored
    leniency: float = pa.Field(nullable=True, ge=0, le=1)  # fp / (fp + fn); null if no errors
    strictness: float = pa.Field(nullable=True, ge=0, le=1)  # 1 − leniency
    true_rate: float = pa.Field(nullable=True, ge=0, le=1)  # share TRUE among scored verdicts
    n_calls: int = pa.Field(ge=0)  # planned calls (items × repeats) in the subset
    unparseable_rate: float = pa.Field(nullable=True, ge=0, le=1)  # unparseable + out_of_range
    truth_source: str = pa.Field(nullable=True, isin=[*TRUTHS, "mixed"])  # null if n_items = 0
    n_repeated: int = pa.Field(ge=0)  # the subset's items with ≥ 2 ok repeats (truth or not)
    # run-to-run noise: mean over those items of the SD (n − 1) of the 0/1 repeat verdicts;
    # null when repeats = 1
    repeat_sd: float = pa.Field(nullable=True, ge=0, le=1)

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "reasoning_effort", "subset")

    @pa.dataframe_check
    def counts_add_up(cls, data: pa.PolarsData) -> pl.LazyFrame:
        c = pl.col
        return data.lazyframe.select(
            (c("n_scored") + c("n_unresolved") == c("n_items"))
            & (c("n_correct") + c("fp") + c("fn") == c("n_scored"))
        )
