"""design_pairs: one row per unordered pair of designs in a study, compared item by item."""

import itertools

import pandera.polars as pa

from schemas.scores import KINDS

# the design choices a pair can differ in, in the order `differs` lists them; "model"
# compares the judge column (a judge is a model plus its parameters)
CHOICES = ("model", "prompt_level", "scale", "readout")
EQUIVALENT = ("yes", "no", "inconclusive")
DIFFERS = (
    "none",
    *("+".join(c) for r in range(1, len(CHOICES) + 1) for c in itertools.combinations(CHOICES, r)),
)


class DesignPairs(pa.DataFrameModel):
    study: str
    kind_a: str = pa.Field(isin=KINDS)
    judge_a: str
    model_a: str
    prompt_level_a: str
    scale_a: str
    kind_b: str = pa.Field(isin=KINDS)
    judge_b: str
    model_b: str
    prompt_level_b: str
    scale_b: str
    n_items: int = pa.Field(ge=0)  # items both designs scored
    mean_diff: float = pa.Field(nullable=True)  # mean(a − b) over those items, 1–7
    abs_diff: float = pa.Field(nullable=True, ge=0)  # |mean_diff|
    mad: float = pa.Field(nullable=True, ge=0)  # mean |a − b| per item
    alpha: float = pa.Field(nullable=True, le=1)  # interval Krippendorff's α, a and b as coders
    wilcoxon_p: float = pa.Field(nullable=True, ge=0, le=1)  # rule: tasks.stats.signed_rank
    # wilcoxon_p adjusted over every pair of the study (Holm; Benjamini–Hochberg)
    p_holm: float = pa.Field(nullable=True, ge=0, le=1)
    p_bh: float = pa.Field(nullable=True, ge=0, le=1)
    sig: bool = pa.Field(nullable=True)  # wilcoxon_p < 0.05 (tasks.cuts)
    meaningful: bool = pa.Field(nullable=True)  # abs_diff above the study's threshold
    # TOST of |mean difference| < the study's equivalence margin (tasks.equivalence): the
    # 90% CI of mean_diff, the larger one-sided p, and yes / no / inconclusive
    diff_lo: float = pa.Field(nullable=True)
    diff_hi: float = pa.Field(nullable=True)
    tost_p: float = pa.Field(nullable=True, ge=0, le=1)
    equivalent: str = pa.Field(isin=EQUIVALENT)
    differs: str = pa.Field(isin=DIFFERS)  # e.g. "model+scale"; "none" if no choice differs
    n_differ: int = pa.Field(ge=0, le=len(CHOICES))
    readout_a: str  # how each call became a score (schemas.scores)
    readout_b: str

    class Config:
        strict = True
        unique = (
            "study",
            "judge_a",
            "prompt_level_a",
            "scale_a",
            "judge_b",
            "prompt_level_b",
            "scale_b",
            "readout_a",
            "readout_b",
        )
