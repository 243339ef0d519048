"""verdict_pairs: one row per pair of designs in a study that differ in exactly one design choice,
compared on the items both resolved (McNemar's test on correctness, and a TOST equivalence test
of the accuracy difference)."""

import pandera.polars as pa

# "model" compares the judge column (a judge is a model plus its parameters)
CHOICES = ("model", "prompt_level", "reasoning_effort")
MCNEMAR_METHODS = ("exact", "chi2_cc")
EQUIVALENCE = ("yes", "no", "inconclusive")  # TOST verdict (tasks.equivalence)


class VerdictPairs(pa.DataFrameModel):
    study: str
    choice: str = pa.Field(isin=list(CHOICES))  # the one choice a and b differ in
    judge_a: str
    model_a: str
    prompt_level_a: str
    reasoning_effort_a: str
    judge_b: str
    model_b: str
    prompt_level_b: str
    reasoning_effort_b: str
    n_items: int = pa.Field(ge=0)  # items both resolved that have a truth
    accuracy_a: float = pa.Field(nullable=True, ge=0, le=1)  # on those items
    accuracy_b: float = pa.Field(nullable=True, ge=0, le=1)
    acc_diff: float = pa.Field(nullable=True, ge=-1, le=1)  # accuracy_a − accuracy_b = (b − c)/n
    abs_acc_diff: float = pa.Field(nullable=True, ge=0, le=1)
    b: int = pa.Field(ge=0)  # a right, b wrong
    c: int = pa.Field(ge=0)  # a wrong, b right
    odds_ratio: float = pa.Field(nullable=True, gt=0)  # b / c, (b + ½)/(c + ½) if either is 0
    or_corrected: bool  # the ½ correction was applied
    chi2: float = pa.Field(nullable=True, ge=0)  # (|b − c| − 1)² / (b + c); null if b + c = 0
    p_approx: float = pa.Field(nullable=True, ge=0, le=1)  # chi2 with 1 dof
    p_exact: float = pa.Field(nullable=True, ge=0, le=1)  # two-sided binomial on b of b + c
    p: float = pa.Field(nullable=True, ge=0, le=1)  # p_exact if b + c < 25, else p_approx
    method: str = pa.Field(nullable=True, isin=list(MCNEMAR_METHODS))
    sig: bool = pa.Field(nullable=True)  # p < 0.05
    # p adjusted over the family of the study's pairs (every choice): Holm, Benjamini–Hochberg
    p_holm: float = pa.Field(nullable=True, ge=0, le=1)
    p_bh: float = pa.Field(nullable=True, ge=0, le=1)
    margin: float = pa.Field(gt=0)  # equivalence margin on acc_diff (fraction: 0.05 = 5 points)
    diff_lo: float = pa.Field(nullable=True)  # 90% CI of acc_diff (t, paired); null if n < 2
    diff_hi: float = pa.Field(nullable=True)
    tost_p: float = pa.Field(nullable=True, ge=0, le=1)  # max of the two one-sided p
    equivalent: str = pa.Field(isin=list(EQUIVALENCE))  # CI inside / beyond the margin / else

    class Config:
        strict = True
        unique = (
            "study",
            "judge_a",
            "prompt_level_a",
            "reasoning_effort_a",
            "judge_b",
            "prompt_level_b",
            "reasoning_effort_b",
        )
