"""pairwise_order_accuracy counts as LLMBar's evaluate.py does: a tie or a call without a
winner is never correct, tie agrees with tie and no winner with no winner, every labelled unit
counts, and κ codes a verdict 1 for answer a and 0 otherwise against the label coded 1/2."""

from __future__ import annotations

import polars as pl
import pytest

from schemas.pairwise_verdicts import PairwiseVerdicts
from schemas.validate import validate
from tasks.pairwise.order_accuracy import order_accuracy_table

POSITION = {("a", "a"): "A", ("b", "a"): "B", ("a", "b"): "B", ("b", "b"): "A"}


def calls(units: list[tuple[str | None, str | None, str | None, str]]) -> pl.DataFrame:
    """(winner ab, winner ba, preferred, status of a call without a winner) per pair."""
    rows = []
    for p, (ab, ba, preferred, none_status) in enumerate(units):
        for shown, winner in (("a", ab), ("b", ba)):
            status = "ok" if winner else none_status
            position = "tie" if winner == "tie" else POSITION.get((winner, shown))
            rows.append(
                ("s", "j", "m/j", "base", "n/a", f"p{p}", shown, 0, status, position, winner,
                 preferred)
            )  # fmt: skip
    columns = list(PairwiseVerdicts.to_schema().columns)
    return validate(pl.DataFrame(rows, schema=columns, orient="row"), PairwiseVerdicts)


def sklearn_kappa(x: list[int], y: list[int]) -> float:
    """Cohen's κ over the categories either list uses (sklearn's cohen_kappa_score)."""
    n = len(x)
    cats = set(x) | set(y)
    po = sum(a == b for a, b in zip(x, y, strict=True)) / n
    pe = sum((x.count(c) / n) * (y.count(c) / n) for c in cats)
    return (po - pe) / (1 - pe)


UNITS = [
    ("a", "a", "a", "unparseable"),  # right in both orders
    ("a", "b", "b", "unparseable"),  # right only when b is shown first; not equal
    ("tie", "tie", "a", "unparseable"),  # never correct; equal
    ("b", "tie", "b", "unparseable"),  # right in ab
    (None, None, "a", "unparseable"),  # never correct; equal (None == None)
    (None, "a", "a", "error"),  # right in ba
    (None, None, "b", "missing"),  # not made yet: no winner, as a failure
    ("b", "b", "b", "unparseable"),
    ("a", "a", None, "unparseable"),  # unlabelled: left out of every count
]


def test_counts_follow_the_authors_code() -> None:
    (row,) = order_accuracy_table(calls(UNITS)).rows(named=True)
    assert row["n_units"] == 8
    assert (row["correct_ab"], row["correct_ba"], row["correct_both"]) == (3, 4, 2)
    assert row["correct_average"] == pytest.approx(7 / 16)
    assert (row["equal"], row["n_none_both"]) == (5, 2)
    assert (row["n_ties"], row["n_failed"], row["n_missing"]) == (3, 3, 2)


def test_kappas_are_the_authors_codes_through_cohens_kappa() -> None:
    labelled = [u for u in UNITS if u[2] is not None]
    label = [1 if u[2] == "a" else 2 for u in labelled]
    ab = [int(u[0] == "a") for u in labelled]
    ba = [int(u[1] == "a") for u in labelled]
    (row,) = order_accuracy_table(calls(UNITS)).rows(named=True)
    assert row["kappa_ab"] == pytest.approx(sklearn_kappa(ab, label), abs=1e-12)
    assert row["kappa_ba"] == pytest.approx(sklearn_kappa(ba, label), abs=1e-12)
    assert row["kappa_average"] == pytest.approx((row["kappa_ab"] + row["kappa_ba"]) / 2)
    assert row["kappa_agreement"] == pytest.approx(sklearn_kappa(ab, ba), abs=1e-12)


def test_a_kappa_without_room_for_chance_is_null() -> None:
    (row,) = order_accuracy_table(calls([("a", "a", "a", "unparseable")] * 3)).rows(named=True)
    assert (row["correct_both"], row["equal"]) == (3, 3)
    assert row["kappa_ab"] is None and row["kappa_agreement"] is None
