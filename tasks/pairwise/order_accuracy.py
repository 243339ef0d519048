"""Accuracy in each order and positional agreement per pairwise design, counted the way LLMBar
(Zeng et al., 2024, princeton-nlp/LLMBar `LLMEvaluator/evaluate.py`) counts them, so a
judgelab study and the paper's tables can be set side by side and the paper reproduced.

The unit is a labelled pair × repeat, judged once in each order; every such unit counts in
every denominator. Labelled means a human label naming an answer (a or b): LLMBar has no
human ties, and a pair the human calls a tie has no preferred answer to be correct about
(tbl_pairwise_agreement counts those pairs, with MT-Bench's tie rule). An order's outcome is
its winner (a, b or tie) or none (a failed call, or one not made yet). As in the authors'
code, which compares the stored winner strings:

* correct_ab / correct_ba (their correct_False / correct_True): the outcome is the preferred
  answer; a tie or no winner is never correct. correct_average: the mean of the two shares.
  correct_both: correct in both orders.
* equal (positional agreement): the same outcome in both orders; tie and tie agree, and so do
  two orders without a winner (their None == None).
* κ as their code computes it (sklearn's cohen_kappa_score): each order's verdict is coded 1
  when it names answer a and 0 otherwise (b, tie and no winner alike) and the label 1 (a) or
  2 (b). kappa_ab (kappa_False) and kappa_ba (kappa_True) set that code against the label
  coding; the codes for b (0 and 2) never match, so κ = (p_aa − p_a·q_a) / (1 − p_a·q_a)
  with p_aa the share of units where both name a: it is not Cohen's κ of verdict against
  label. kappa_average is the mean of the two; kappa_agreement is Cohen's κ of the two
  orders' a-or-not codes. A κ whose chance agreement is 1 is null (sklearn: NaN).
"""

from __future__ import annotations

import polars as pl

from schemas.pairwise_order_accuracy import PairwiseOrderAccuracy
from schemas.validate import validate
from tasks.judging.parse import OK
from tasks.pairwise.analysis import DESIGN, prefers_one, units

COUNTS = ("n_units", "correct_ab", "correct_ba", "correct_both", "equal", "n_none_both")
COUNTS += ("n_ties", "n_failed", "n_missing")


def _kappa(po: pl.Expr, pe: pl.Expr) -> pl.Expr:
    return pl.when(pe < 1).then((po - pe) / (1 - pe))


def _label_kappa(order: str) -> pl.Expr:
    """The authors' κ of one order's a-or-not code against the label coded 1/2."""
    names_a = (pl.col(order) == "a").fill_null(False)
    label_a = pl.col("preferred") == "a"
    return _kappa((names_a & label_a).mean(), names_a.mean() * label_a.mean())


def _agreement_kappa() -> pl.Expr:
    """Cohen's κ of the two orders' a-or-not codes."""
    ab, ba = ((pl.col(o) == "a").fill_null(False) for o in ("ab", "ba"))
    pe = ab.mean() * ba.mean() + (1 - ab.mean()) * (1 - ba.mean())
    return _kappa((ab == ba).mean(), pe)


def order_accuracy_table(verdicts: pl.DataFrame) -> pl.DataFrame:
    """Per design: LLMBar's counts and κ over labelled units, with the ties and the calls
    without a winner that those counts fold in (module docstring)."""
    labelled = prefers_one()
    right = {o: (pl.col(o) == pl.col("preferred")).fill_null(False) for o in ("ab", "ba")}
    per_unit = (
        units(verdicts)
        .filter(labelled)
        .group_by(DESIGN)
        .agg(
            pl.len().alias("n_units"),
            right["ab"].sum().alias("correct_ab"),
            right["ba"].sum().alias("correct_ba"),
            (right["ab"] & right["ba"]).sum().alias("correct_both"),
            pl.col("ab").eq_missing(pl.col("ba")).sum().alias("equal"),
            (pl.col("ab").is_null() & pl.col("ba").is_null()).sum().alias("n_none_both"),
            _label_kappa("ab").alias("kappa_ab"),
            _label_kappa("ba").alias("kappa_ba"),
            _agreement_kappa().alias("kappa_agreement"),
        )
    )
    calls = (
        verdicts.filter(labelled)
        .group_by(DESIGN)
        .agg(
            (pl.col("winner") == "tie").sum().alias("n_ties"),
            pl.col("status").is_in([OK, "missing"]).not_().sum().alias("n_failed"),
            (pl.col("status") == "missing").sum().alias("n_missing"),
        )
    )
    out = (
        per_unit.join(calls, on=DESIGN, how="left")
        .with_columns(
            ((pl.col("correct_ab") + pl.col("correct_ba")) / (2 * pl.col("n_units"))).alias(
                "correct_average"
            ),
            ((pl.col("kappa_ab") + pl.col("kappa_ba")) / 2).alias("kappa_average"),
        )
        .sort(DESIGN)
    )
    columns = list(PairwiseOrderAccuracy.to_schema().columns)
    return validate(
        out.select(columns).cast({c: pl.Int64 for c in COUNTS}),
        PairwiseOrderAccuracy,
    )
