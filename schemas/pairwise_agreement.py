"""pairwise_agreement: one row per pairwise design: win rates of answer a and of the human-
preferred answer, and the order-combined verdict's agreement with the human label."""

import pandera.polars as pa

from schemas.design import Design

SHARE = {"ge": 0, "le": 1, "nullable": True}


class PairwiseAgreement(Design):
    reasoning_effort: str
    n_decisive: int = pa.Field(ge=0)  # parsed calls naming answer a or b (both orders)
    win_rate_a: float = pa.Field(**SHARE)  # share of them naming answer a
    n_labelled_calls: int = pa.Field(ge=0)  # decisive calls on pairs the human labelled a or b
    preferred_win_rate: float = pa.Field(**SHARE)  # share naming the human-preferred answer
    n_labelled_units: int = pa.Field(ge=0)  # labelled pair × repeat with both orders parsed
    n_agree: int = pa.Field(ge=0)  # … whose combined verdict is the human's label (tie = tie)
    n_combined_ties: int = pa.Field(ge=0)  # … whose orders disagree or say tie (MT-Bench rule)
    human_accuracy: float = pa.Field(**SHARE)  # n_agree / n_labelled_units: MT-Bench "w/ tie"
    # MT-Bench "w/o tie": agreement over the n_untied_units
    human_accuracy_decisive: float = pa.Field(**SHARE)
    n_human_ties: int = pa.Field(ge=0)  # labelled units whose human label is tie
    n_untied_units: int = pa.Field(ge=0)  # … where neither the combined verdict nor human ties

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "reasoning_effort")
