"""pairwise_position: one row per pairwise design: failures, ties, position consistency and flips,
position bias with its bootstrap interval and sign test (tasks/pairwise/analysis.py)."""

import pandera.polars as pa

from schemas.design import Design

SHARE = {"ge": 0, "le": 1, "nullable": True}


class PairwisePosition(Design):
    reasoning_effort: str
    n_pairs: int = pa.Field(ge=0)
    n_calls: int = pa.Field(ge=0)  # planned calls: pairs × 2 orders × repeats
    n_failed: int = pa.Field(ge=0)  # calls without a parsed answer (incl. not yet made)
    n_decisive: int = pa.Field(ge=0)  # parsed answers naming A or B
    n_first: int = pa.Field(ge=0)  # … naming A, the answer shown first
    n_ties: int = pa.Field(ge=0)
    tie_rate: float = pa.Field(**SHARE)  # ties / parsed answers
    n_units: int = pa.Field(ge=0)  # pair × repeat with both orders parsed
    n_consistent: int = pa.Field(ge=0)  # … with the same winner in both orders
    consistency: float = pa.Field(**SHARE)
    n_flips: int = pa.Field(ge=0)  # n_units − n_consistent
    n_first_both: int = pa.Field(ge=0)  # flips where A won in both orders
    n_second_both: int = pa.Field(ge=0)  # flips where B won in both orders
    n_tie_mixed: int = pa.Field(ge=0)  # flips with a tie in one order only
    first_share: float = pa.Field(**SHARE)  # n_first / n_decisive
    position_bias: float = pa.Field(ge=-0.5, le=0.5, nullable=True)  # first_share − 0.5
    bias_lo: float = pa.Field(nullable=True)  # 95% percentile bootstrap over pairs
    bias_hi: float = pa.Field(nullable=True)
    n_pairs_first: int = pa.Field(ge=0, nullable=True)  # pairs won more often in first position
    n_pairs_second: int = pa.Field(ge=0, nullable=True)
    p_value: float = pa.Field(**SHARE)  # exact two-sided sign test over pairs
    p_holm: float = pa.Field(**SHARE)  # Holm-adjusted over the study's designs
    flagged: bool = pa.Field(nullable=True)  # p_holm < 0.05

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "reasoning_effort")
