"""pairwise_order_accuracy: one row per pairwise design: accuracy in each order, positional
agreement and κ over labelled units, counted as LLMBar's evaluate.py counts them
(tasks/pairwise/order_accuracy.py says how ties and calls without a winner count)."""

import pandera.polars as pa

from schemas.design import Design

COUNT = {"ge": 0}
KAPPA = {"ge": -1, "le": 1, "nullable": True}


class PairwiseOrderAccuracy(Design):
    reasoning_effort: str
    n_units: int = pa.Field(ge=1)  # labelled pair × repeat (the paper's n: items)
    correct_ab: int = pa.Field(**COUNT)  # order ab names the preferred answer (correct_False)
    correct_ba: int = pa.Field(**COUNT)  # order ba does (correct_True)
    correct_average: float = pa.Field(ge=0, le=1)  # mean of the two orders' shares
    correct_both: int = pa.Field(**COUNT)  # both orders do
    equal: int = pa.Field(**COUNT)  # same outcome in both orders (no winner = no winner)
    n_none_both: int = pa.Field(**COUNT)  # … of which neither order has a winner
    n_ties: int = pa.Field(**COUNT)  # calls naming a tie (never correct)
    n_failed: int = pa.Field(**COUNT)  # calls failed: error, unparseable, out of range
    n_missing: int = pa.Field(**COUNT)  # calls not made yet (no winner, as a failed one)
    kappa_ab: float = pa.Field(**KAPPA)  # the authors' kappa_False
    kappa_ba: float = pa.Field(**KAPPA)  # kappa_True
    kappa_average: float = pa.Field(**KAPPA)  # mean of the two
    kappa_agreement: float = pa.Field(**KAPPA)  # κ of order ab against order ba

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "reasoning_effort")
