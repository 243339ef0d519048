"""Pairwise analysis on hand-built calls: winners map back through the order, failures never
become winners, and consistency, flips, position bias, its test, win rates and agreement
with the human take the values worked out by hand below."""

from __future__ import annotations

import polars as pl
import pytest
import scipy.stats

from tasks.pairwise.analysis import (
    DESIGN,
    agreement_table,
    position_table,
    verdict_rows,
)

D = ("s", "j", "m", "base", "n/a")
COLUMNS = [*DESIGN, "pair_id", "shown_first", "repeat", "status", "position", "winner", "preferred"]

# (pair, shown first, status, position, winner, human preference)
CALLS = [
    ("p1", "a", "ok", "A", "a", "a"),  # p1: a wins in both orders: consistent
    ("p1", "b", "ok", "B", "a", "a"),
    ("p2", "a", "ok", "A", "a", "b"),  # p2: the first position wins twice: a flip, first-both
    ("p2", "b", "ok", "A", "b", "b"),
    ("p3", "a", "ok", "tie", "tie", "a"),  # p3: a tie in one order only: a flip, tie-mixed
    ("p3", "b", "ok", "B", "a", "a"),
    ("p4", "a", "ok", "B", "b", "a"),  # p4: b wins in both orders: consistent
    ("p4", "b", "ok", "A", "b", "a"),
    ("p5", "a", "unparseable", None, None, None),  # p5: one failed call, no unit
    ("p5", "b", "ok", "A", "b", None),
]


def calls(rows: list[tuple] = CALLS, design: tuple = D) -> pl.DataFrame:
    return pl.DataFrame([(*design, p, f, 0, *rest) for p, f, *rest in rows], COLUMNS, orient="row")


def test_verdict_rows_map_positions_through_the_order_and_keep_failures() -> None:
    plan = pl.DataFrame(
        {
            "key": ["k1", "k2", "k3", "k4"],
            **{c: [v] * 4 for c, v in zip(DESIGN, D, strict=True)},
            "item_id": ["x:1#ab", "x:1#ba", "x:2#ab", "x:2#ba"],
            "repeat": [0, 0, 0, 0],
        }
    )
    judgments = pl.DataFrame(
        {
            "key": ["k1", "k2", "k3"],
            "status": ["ok", "ok", "out_of_range"],
            "score": [0.0, 0.0, None],
        }
    )
    pairs = pl.DataFrame({"pair_id": ["x:1", "x:2"], "preferred": ["b", None]})
    out = verdict_rows(plan, judgments, pairs).sort("pair_id", "shown_first")
    assert out.select("pair_id", "shown_first", "status", "position", "winner").rows() == [
        ("x:1", "a", "ok", "A", "a"),
        ("x:1", "b", "ok", "A", "b"),  # "A" with b shown first names answer b
        ("x:2", "a", "out_of_range", None, None),
        ("x:2", "b", "missing", None, None),
    ]
    assert out["preferred"].to_list() == ["b", "b", None, None]


def test_position_table_by_hand() -> None:
    (row,) = position_table(calls(), n_boot=200, seed=1).rows(named=True)
    assert (row["n_pairs"], row["n_calls"], row["n_failed"]) == (5, 10, 1)
    assert (row["n_decisive"], row["n_first"], row["n_ties"]) == (8, 5, 1)
    assert row["tie_rate"] == pytest.approx(1 / 9)
    assert (row["n_units"], row["n_consistent"], row["n_flips"]) == (4, 2, 2)
    assert row["consistency"] == 0.5
    assert (row["n_first_both"], row["n_second_both"], row["n_tie_mixed"]) == (1, 0, 1)
    assert row["first_share"] == 5 / 8 and row["position_bias"] == pytest.approx(0.125)
    # net first-position wins per pair: p1 0, p2 +2, p3 −1, p4 0, p5 +1 → 2 lean first, 1 second
    assert (row["n_pairs_first"], row["n_pairs_second"]) == (2, 1)
    assert row["p_value"] == pytest.approx(scipy.stats.binomtest(2, 3).pvalue)
    assert row["bias_lo"] <= row["position_bias"] <= row["bias_hi"]
    assert not row["flagged"]


def design(level: str, position: object, n: int = 10, study: str = "s") -> pl.DataFrame:
    """n pairs judged in both orders; `position(i, shown_first)` is the answer's position."""
    rows = []
    for i in range(n):
        for f in "ab":
            pos = position(i, f)
            rows.append((f"q{i}", f, "ok", pos, "a" if (pos == "A") == (f == "a") else "b", None))
    return calls(rows, (study, "j", "m", level, "n/a"))


def test_sign_test_flags_a_first_position_judge_and_holm_counts_designs() -> None:
    frame = pl.concat(
        [
            design("lean", lambda i, f: "A"),  # the first position always wins
            design("balanced", lambda i, f: "A" if i < 5 else "B"),  # 5 lean first, 5 second
            design("steady", lambda i, f: "A" if f == "a" else "B"),  # a wins in both orders
        ]
    )
    rows = {r["prompt_level"]: r for r in position_table(frame, n_boot=0).rows(named=True)}
    lean, balanced, steady = rows["lean"], rows["balanced"], rows["steady"]
    assert lean["p_value"] == pytest.approx(2 * 0.5**10)  # exact: 10 of 10 pairs lean first
    assert lean["p_holm"] == pytest.approx(2 * 2 * 0.5**10) and lean["flagged"]  # 2 tests
    assert (lean["position_bias"], lean["consistency"], lean["n_first_both"]) == (0.5, 0.0, 10)
    assert lean["bias_lo"] is None  # n_boot = 0: no interval
    assert balanced["p_value"] == 1.0 and not balanced["flagged"]
    assert (balanced["position_bias"], balanced["consistency"]) == (0.0, 0.0)
    assert (balanced["n_first_both"], balanced["n_second_both"]) == (5, 5)
    assert steady["p_value"] is None and steady["flagged"] is None  # no pair leans: no test
    assert (steady["position_bias"], steady["consistency"]) == (0.0, 1.0)


def test_flagged_is_the_holm_adjusted_p_not_the_raw_one() -> None:
    """6 of 6 pairs lean first: raw p = 2 · 0.5⁶ ≈ 0.031 < 0.05. With a second design in the
    study (two tests) Holm's p is 0.0625 ≥ 0.05, so it is not flagged; the family is the
    study, so the same design beside another study's design is flagged."""
    lean = design("lean", lambda i, f: "A", n=6)
    balanced = design("balanced", lambda i, f: "A" if i < 3 else "B", n=6)
    rows = {
        r["prompt_level"]: r
        for r in position_table(pl.concat([lean, balanced]), n_boot=0).rows(named=True)
    }
    assert rows["lean"]["p_value"] == pytest.approx(2 * 0.5**6) and rows["lean"]["p_value"] < 0.05
    assert rows["lean"]["p_holm"] == pytest.approx(2 * 2 * 0.5**6)
    assert rows["lean"]["flagged"] is False
    assert (rows["balanced"]["p_holm"], rows["balanced"]["flagged"]) == (1.0, False)
    other_study = design("balanced", lambda i, f: "A" if i < 3 else "B", n=6, study="t")
    alone = position_table(pl.concat([lean, other_study]), n_boot=0).filter(pl.col("study") == "s")
    assert alone["p_holm"].to_list() == alone["p_value"].to_list()
    assert alone["flagged"].to_list() == [True]


def test_interval_is_over_pairs_and_does_not_depend_on_other_designs() -> None:
    one = position_table(calls(), n_boot=300, seed=5)
    other = calls(CALLS[:4], ("s", "k", "m", "base", "n/a"))
    both = position_table(pl.concat([calls(), other]), n_boot=300, seed=5).filter(
        pl.col("judge") == "j"
    )
    assert one.select("bias_lo", "bias_hi").rows() == both.select("bias_lo", "bias_hi").rows()


def test_agreement_table_by_hand() -> None:
    (row,) = agreement_table(calls()).rows(named=True)
    # decisive winners: p1 a a, p2 a b, p3 a, p4 b b, p5 b → 4 of 8 name a
    assert (row["n_decisive"], row["win_rate_a"]) == (8, 0.5)
    # labelled (p1–p4): 7 decisive calls, 4 name the preferred answer (p1 2, p2 1, p3 1)
    assert (row["n_labelled_calls"], row["preferred_win_rate"]) == (7, 4 / 7)
    # combined (MT-Bench): p1 a ✓, p2 tie ✗, p3 tie ✗ (a tie in one order), p4 b ✗
    assert (row["n_labelled_units"], row["n_agree"], row["n_combined_ties"]) == (4, 1, 2)
    assert (row["human_accuracy"], row["human_accuracy_decisive"]) == (0.25, 0.5)
    assert (row["n_human_ties"], row["n_untied_units"]) == (0, 2)


# human ties (FairEval, MT-Bench): (pair, winner with a shown first, with b first, human label)
TIED = [
    ("t1", "a", "a", "a"),  # combined a = a: agrees, with and without ties
    ("t2", "b", "b", "b"),  # combined b = b: agrees, with and without ties
    ("t3", "tie", "tie", "tie"),  # combined tie = human tie: agrees with ties only
    ("t4", "a", "b", "TIE"),  # orders disagree → combined tie = human tie: agrees with ties
    ("t5", "a", "a", "tie"),  # combined a ≠ human tie: disagrees; out without ties
    ("t6", "tie", "tie", "a"),  # combined tie ≠ a: disagrees; out without ties
    ("t7", "b", "b", "a"),  # combined b ≠ a: disagrees, with and without ties
    ("t8", "a", "a", None),  # no label: no unit
]


def tied_calls() -> pl.DataFrame:
    rows = []
    for pair, ab, ba, label in TIED:
        for first, winner in (("a", ab), ("b", ba)):
            position = "tie" if winner == "tie" else "A" if winner == first else "B"
            rows.append((pair, first, "ok", position, winner, label and label.lower()))
    return calls(rows)


def test_agreement_with_human_ties_follows_mt_bench() -> None:
    """MT-Bench's agreement: a combined tie agrees with a human tie; "w/o tie" drops every unit
    where either says tie. The preferred-answer win rate has no answer to count on a tie."""
    (row,) = agreement_table(tied_calls()).rows(named=True)
    assert (row["n_labelled_units"], row["n_human_ties"]) == (7, 3)
    assert (row["n_agree"], row["n_combined_ties"]) == (4, 3)  # t1 t2 t3 t4; t3 t4 t6
    assert row["human_accuracy"] == 4 / 7  # w/ tie
    assert row["n_untied_units"] == 3 and row["human_accuracy_decisive"] == 2 / 3  # t1 t2 t7
    # decisive calls on pairs labelled a or b: t1 2, t2 2, t7 2 (t6 ties) → 4 name the answer
    assert (row["n_labelled_calls"], row["preferred_win_rate"]) == (6, 4 / 6)


def test_accuracy_counts_leave_human_ties_out() -> None:
    """LLMBar's counts and the paired tests ask whether the winner is the preferred answer: a
    pair the human calls a tie has none, so it is no unit and no item."""
    from tasks.pairwise.order_accuracy import order_accuracy_table
    from tasks.pairwise.verdict_tests import correctness

    (row,) = order_accuracy_table(tied_calls()).rows(named=True)
    assert (row["n_units"], row["correct_ab"], row["correct_ba"]) == (4, 2, 2)  # t1 t2 t6 t7
    assert (row["correct_both"], row["equal"], row["n_ties"]) == (2, 4, 2)
    scored = correctness(tied_calls())
    pairs = scored["item_id"].str.split("#").list.first().unique()
    assert sorted(pairs) == ["t1", "t2", "t6", "t7"]
    assert scored["correct"].sum() == 4
