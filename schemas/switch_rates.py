"""switch_rates: per study × judge × reasoning effort × in-context level × subset, how verdicts
change against the same judge and effort on the base prompt, on items both designs resolved."""

import pandera.polars as pa

from schemas.accuracy_metrics import ACCURACY_SUBSETS
from schemas.design import Design

RATES = ("wrong_to_right", "right_to_wrong", "true_to_false", "false_to_true")


class SwitchRates(Design):
    reasoning_effort: str
    subset: str = pa.Field(isin=list(ACCURACY_SUBSETS))
    n_items: int = pa.Field(ge=0)  # items both designs resolved that have a truth
    n_no_truth: int = pa.Field(ge=0)  # items both resolved but without a truth: left out
    accuracy_base: float = pa.Field(nullable=True, ge=0, le=1)
    accuracy_level: float = pa.Field(nullable=True, ge=0, le=1)
    wrong_to_right: float = pa.Field(nullable=True, ge=0, le=1)  # share of n_items
    right_to_wrong: float = pa.Field(nullable=True, ge=0, le=1)
    net_change: float = pa.Field(nullable=True, ge=-1, le=1)  # = accuracy_level − accuracy_base
    true_to_false: float = pa.Field(nullable=True, ge=0, le=1)  # base said TRUE, level FALSE
    false_to_true: float = pa.Field(nullable=True, ge=0, le=1)

    class Config:
        strict = True
        unique = ("study", "judge", "reasoning_effort", "prompt_level", "subset")
