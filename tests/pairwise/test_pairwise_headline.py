"""The pairwise headline on planted verdicts whose sentences are worked out by hand below:
factors ranked by how far they move accuracy, levels averaged over the other factors (also
when the design is not crossed), a one-level factor left out, and how much order moves the
winner."""

from __future__ import annotations

import polars as pl
import pytest

from tasks.pairwise.headline import headline, headlines, level_accuracy, position_sentence

COLUMNS = [
    *("study", "judge", "model", "prompt_level", "reasoning_effort", "pair_id", "shown_first"),
    *("repeat", "status", "position", "winner", "preferred"),
]
PAIRS = 5


def cell(judge: str, level: str, first: str, right: int) -> list[tuple]:
    """Five labelled pairs (the human prefers a) in one order: the first `right` pairs name a,
    the rest b; the position follows from the order shown."""
    rows = []
    for i in range(PAIRS):
        winner = "a" if i < right else "b"
        position = "A" if winner == first else "B"
        rows.append(("s", judge, "m", level, "n/a", f"p{i}", first, 0, "ok", position, winner, "a"))
    return rows


def frame(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, COLUMNS, orient="row")


# planted additively, out of 5: J1 with p and a first 5 right; J2 −2, q −1, b first −1
#   J1 p: a 5, b 4   J1 q: a 4, b 3   J2 p: a 3, b 2   J2 q: a 2, b 1
# judge J1 (5+4+4+3)/20 = 80%, J2 (3+2+2+1)/20 = 40%: spread 40 points;
# prompt p (5+4+3+2)/20 = 70%, q 50%; order a first 70%, b first 50%: 20 points each,
# prompt level named before order (FACTORS order). Each design changes its winner in exactly
# one pair (the pair right in one order only): 4 of 20 units. First-position wins: a first,
# a named: 5+4+3+2 = 14; b first, b named: 1+2+3+4 = 10; 24 of 40 decisive calls.
PLANTED = [
    *cell("J1", "p", "a", 5),
    *cell("J1", "p", "b", 4),
    *cell("J1", "q", "a", 4),
    *cell("J1", "q", "b", 3),
    *cell("J2", "p", "a", 3),
    *cell("J2", "p", "b", 2),
    *cell("J2", "q", "a", 2),
    *cell("J2", "q", "b", 1),
]


def test_headline_of_planted_verdicts_reads_as_worked_out_by_hand() -> None:
    assert headline(frame(PLANTED)) == (
        "Judge moves accuracy most: 40% (J2) vs 80% (J1), each level averaged over the other "
        "factors' levels; prompt level 50% (q) vs 70% (p); the order of the two answers 50% "
        "(b shown first) vs 70% (a shown first). Position changes the winner in 20% of pair "
        "judgments (20 labelled pairs judged in both orders, pooled over 4 designs); the answer "
        "shown first wins 60% of decisive verdicts."
    )


def test_the_top_of_the_report_gets_the_leading_factor_and_the_position_share() -> None:
    """The page's opening line: three numbers from the same computation as the sentences."""
    said = headlines(frame(PLANTED))
    assert said.full == headline(frame(PLANTED))
    assert said.top == (
        "Judge moves accuracy most: 40% (J2) vs 80% (J1); position changes the winner in 20% "
        "of pair judgments."
    )
    # a judge that always names the first answer: only the order moves accuracy (0% with the
    # human's choice shown second, not "-0%" from the fit's rounding)
    always_first = [
        ("s", "J1", "m", lv, "n/a", f"p{i}", first, 0, "ok", "A", first, "a")
        for lv in ("p", "q")
        for i in range(PAIRS)
        for first in ("a", "b")
    ]
    assert headlines(frame(always_first)).top == (
        "The order of the two answers moves accuracy most: 0% (b shown first) vs 100% (a shown "
        "first); position changes the winner in 100% of pair judgments."
    )
    # a judge that always names the human's choice: nothing moves accuracy
    always_right = [(*r[:9], "A" if r[6] == "a" else "B", "a", "a") for r in always_first]
    said = headlines(frame(always_right))
    assert said.top == (
        "No design choice moves accuracy; position changes the winner in 0% of pair judgments."
    )
    assert said.full.startswith("No design choice moves accuracy: every level scores alike.")
    assert "100% to 100%" not in said.full and "100% vs 100%" not in said.full
    assert headlines(frame([])) == ("", "")


def test_missing_calls_are_left_out_failed_ones_are_wrong_unlabelled_only_count_position() -> None:
    extra = [
        ("s", "J1", "m", "p", "n/a", "p9", "a", 0, "missing", None, None, "a"),  # not made yet
        ("s", "J1", "m", "p", "n/a", "p9", "b", 0, "missing", None, None, "a"),
        ("s", "J1", "m", "p", "n/a", "u1", "a", 0, "ok", "A", "a", None),  # no human label
        ("s", "J1", "m", "p", "n/a", "u1", "b", 0, "ok", "A", "b", None),
    ]
    assert headline(frame(PLANTED + extra)) == headline(frame(PLANTED)).replace(
        "wins 60% of decisive",
        "wins 62% of decisive",  # 26 of 42
    )
    failed = [(*r[:8], "unparseable", None, None, r[11]) for r in cell("J1", "p", "a", 5)]
    rows = [r for r in PLANTED if (r[1], r[3], r[6]) != ("J1", "p", "a")] + failed
    levels = dict(
        level_accuracy(frame(rows))
        .filter(pl.col("factor") == "judge")
        .select("level", "accuracy")
        .iter_rows()
    )
    assert levels["J1"] == pytest.approx((0 + 4 + 4 + 3) / 20)  # a failed call is never right


def test_a_level_run_only_with_the_strong_judge_is_not_credited_with_its_strength() -> None:
    """Not crossed: S ran p and q, W only p. Planted additively (S +2 over W, q −1 from p, no
    order effect): the plain means would put q (3/5) level with p ((4+2)/10), the fit finds the
    planted one pair in five."""
    rows = [
        *cell("S", "p", "a", 4),
        *cell("S", "p", "b", 4),
        *cell("S", "q", "a", 3),
        *cell("S", "q", "b", 3),
        *cell("W", "p", "a", 2),
        *cell("W", "p", "b", 2),
    ]
    levels = {(f, lv): acc for f, lv, acc in level_accuracy(frame(rows)).iter_rows()}
    assert levels["prompt_level", "p"] - levels["prompt_level", "q"] == pytest.approx(0.2)
    assert levels["judge", "S"] - levels["judge", "W"] == pytest.approx(0.4)
    assert levels["shown_first", "a"] == pytest.approx(levels["shown_first", "b"])


def test_a_factor_with_one_level_is_left_out() -> None:
    rows = [*cell("J1", "p", "a", 5), *cell("J1", "p", "b", 4)]
    said = headline(frame(rows))
    assert said.startswith(
        "The order of the two answers moves accuracy: 80% (b shown first) vs 100% (a shown "
        "first). Position changes the winner in 20% of pair judgments (5 labelled pairs judged "
        "in both orders); "
    )
    assert "Judge" not in said and "prompt level" not in said


def test_nothing_to_say_without_calls() -> None:
    assert headline(frame([])) == ""
    unlabelled = [(*r[:11], None) for r in cell("J1", "p", "a", 5)]
    assert position_sentence(frame(unlabelled)) == (
        "The answer shown first wins 100% of decisive verdicts."
    )
