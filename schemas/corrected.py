"""corrected: one row per design: judge-only, prediction-powered (PPI), Rogan–Gladen (verdicts)
and human-only estimates of the human-scale mean, from human labels on a subset of the items."""

import pandera.polars as pa
import polars as pl

from schemas.design import Design
from schemas.scores import READOUTS

INTERVALS = (
    ("judge_lo", "judge_hi"),
    ("ppi_lo", "ppi_hi"),
    ("rg_lo", "rg_hi"),
    ("human_lo", "human_hi"),
)
LABEL_SOURCES = ("share", "file")


class Corrected(Design):
    kind: str  # rating: judge or baseline; accuracy: judge
    scale: str  # accuracy: "verdict"
    reasoning_effort: str = pa.Field(nullable=True)  # accuracy designs only
    label_source: str = pa.Field(isin=LABEL_SOURCES)  # label_share, or a human_labels file
    n_items: int = pa.Field(ge=0)  # items the design scored (a resolved verdict)
    n_labelled: int = pa.Field(ge=0)  # of them, with a human label
    # judge only: the mean judge score (1–7) or TRUE-rate over n_items; naive 95% CI
    judge_mean: float = pa.Field(nullable=True)
    judge_lo: float = pa.Field(nullable=True)
    judge_hi: float = pa.Field(nullable=True)
    # prediction-powered estimate and 95% CI (tasks/ppi.py), with its power-tuning λ
    ppi_mean: float = pa.Field(nullable=True)
    ppi_lo: float = pa.Field(nullable=True)
    ppi_hi: float = pa.Field(nullable=True)
    ppi_lambda: float = pa.Field(nullable=True, ge=0, le=1)
    # verdicts: Rogan–Gladen-corrected TRUE-rate, percentile-bootstrap 95% CI
    rg_rate: float = pa.Field(nullable=True, ge=0, le=1)
    rg_lo: float = pa.Field(nullable=True, ge=0, le=1)
    rg_hi: float = pa.Field(nullable=True, ge=0, le=1)
    sensitivity: float = pa.Field(nullable=True, ge=0, le=1)
    specificity: float = pa.Field(nullable=True, ge=0, le=1)
    # human labels only: their mean over the n_labelled items, 95% CI
    human_mean: float = pa.Field(nullable=True)
    human_lo: float = pa.Field(nullable=True)
    human_hi: float = pa.Field(nullable=True)
    width_ratio: float = pa.Field(nullable=True, ge=0)  # human-only CI width ÷ PPI CI width
    effective_labels: float = pa.Field(nullable=True, ge=0)  # n_labelled · width_ratio²
    judge_sd: float = pa.Field(nullable=True, ge=0)  # SD of the judge's scores (the planner)
    resid_sd: float = pa.Field(nullable=True, ge=0)  # SD of human − judge on labelled items
    human_sd: float = pa.Field(nullable=True, ge=0)  # SD of the labels (the planner's λ)
    # label_share only: the mean of every item's human label (the answer key the estimates aim at)
    human_all: float = pa.Field(nullable=True)
    # appended for readouts: "answer" (the parsed answer; every accuracy design) or "expected"
    # (a rating study's probability-weighted score, Analysis.readouts)
    readout: str = pa.Field(isin=READOUTS)

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "scale", "reasoning_effort", "readout")

    @pa.dataframe_check
    def intervals_ordered(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(
            pl.all_horizontal((pl.col(lo) <= pl.col(hi)).fill_null(True) for lo, hi in INTERVALS)
        )
