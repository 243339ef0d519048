"""verdict_tests: per study, does a design choice change correctness? Chi-square of independence
per choice, and Cochran's Q across all designs."""

import pandera.polars as pa

TESTS = ("chi2_independence", "cochran_q")
# chi-square rows name a design choice; the Cochran row compares every design ("design")
TEST_CHOICES = ("model", "prompt_level", "reasoning_effort", "design")


class VerdictTests(pa.DataFrameModel):
    study: str
    test: str = pa.Field(isin=list(TESTS))
    choice: str = pa.Field(isin=list(TEST_CHOICES))
    n_levels: int = pa.Field(ge=2)  # levels of the choice (Cochran: designs)
    n_obs: int = pa.Field(ge=0)  # chi-square: design × item rows; Cochran: complete items
    statistic: float = pa.Field(nullable=True, ge=0)  # chi2 or Q; null when undefined
    dof: float = pa.Field(ge=0)
    p: float = pa.Field(nullable=True, ge=0, le=1)
    cramers_v: float = pa.Field(nullable=True, ge=0, le=1)  # chi-square rows only
    sig: bool = pa.Field(nullable=True)  # p < 0.05
    # p adjusted over the family of the study's tests in this table: Holm, Benjamini–Hochberg
    p_holm: float = pa.Field(nullable=True, ge=0, le=1)
    p_bh: float = pa.Field(nullable=True, ge=0, le=1)

    class Config:
        strict = True
        unique = ("study", "test", "choice")
