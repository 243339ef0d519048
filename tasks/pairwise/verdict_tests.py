"""Does a design choice change whether a pairwise judge picks the human-preferred answer? The
accuracy study's paired tests (tasks/accuracy/verdict_impact.py), on pairwise verdicts: each
call (a pair in one order, one repeat) is an item, right when its winner is the preferred
answer. So a pairwise study with several judges or prompt levels — LLMBar's evaluators ×
strategies — gets Cochran's Q across its designs, a chi-square screen per choice, and McNemar
with TOST equivalence for every pair of designs that differ in one choice (tbl_verdict_tests,
tbl_verdict_impact_pairs), and the variance of right-or-wrong split into judge, prompt level,
the order of the two answers, the pair and their interactions (tbl_variance_components).

A tie is wrong (it does not pick the preferred answer); a failed or missing call is no item of
its design (the accuracy study leaves unresolved items out the same way), and a pair without a
preferred answer (unlabelled, or a human tie) is no item at all."""

from __future__ import annotations

import polars as pl

from schemas.verdicts import VERDICT_DESIGN
from tasks.accuracy.verdict_impact import pairs_of, tests_of
from tasks.judging.parse import OK
from tasks.pairwise.analysis import prefers_one
from tasks.rating import variance
from tasks.stats import one_blas_thread

ORDER = pl.when(pl.col("shown_first") == "a").then(pl.lit("ab")).otherwise(pl.lit("ba"))


def correctness(verdicts: pl.DataFrame) -> pl.DataFrame:
    """pairwise_verdicts → one row per design × scored call with a human preference: item_id
    `<pair>#<order>#<repeat>` (every design sees the same ones), correct 0/1."""
    item = pl.concat_str("pair_id", pl.lit("#"), ORDER, pl.lit("#"), pl.col("repeat"))
    return verdicts.filter((pl.col("status") == OK) & prefers_one()).select(
        *VERDICT_DESIGN,
        item.alias("item_id"),
        (pl.col("winner") == pl.col("preferred")).cast(pl.Int64).alias("correct"),
    )


def verdict_tests(verdicts: pl.DataFrame) -> pl.DataFrame:
    return tests_of(correctness(verdicts))


def verdict_pairs(verdicts: pl.DataFrame, *, margin: float) -> pl.DataFrame:
    return pairs_of(correctness(verdicts), verdicts.select(VERDICT_DESIGN).unique(), margin=margin)


FACTORS = ("judge", "prompt_level", "order")


def _by_order(verdicts: pl.DataFrame) -> pl.DataFrame:
    """`correctness` with the order split out of the item id (item: pair × repeat)."""
    return (
        correctness(verdicts)
        .with_columns(
            pl.col("item_id").str.extract(r"#(ab|ba)#\d+$", 1).alias("order"),
            pl.col("item_id").str.replace(r"#(ab|ba)(#\d+)$", "$2").alias("item_id"),
        )
        .with_columns(pl.col("correct").cast(pl.Float64))
    )


@one_blas_thread()
def variance_components(verdicts: pl.DataFrame) -> pl.DataFrame:
    """Per study, eta² of right-or-wrong (the calls `correctness` keeps) for judge, prompt
    level, order (ab or ba), item (pair × repeat) and their two-way terms, sequential sums of
    squares in that order (tasks/rating/variance.py, whose item is the pair here)."""
    rows = _by_order(verdicts)
    factors = FACTORS
    return variance.components_table(
        [
            row
            for (study,), grp in rows.group_by("study", maintain_order=True)
            for row in variance.study_components(study, grp, "correct", factors)
        ]
    )


@one_blas_thread()
def variance_tables(verdicts: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """`variance_components` by both methods and `d_study`: the G-study's item is the pair
    (right-or-wrong averaged over repeats per pair × design cell), its facets judge, prompt
    level and order, on the largest balanced subset (a failed call leaves a cell empty)."""
    rows = _by_order(verdicts).with_columns(pl.col("item_id").str.replace(r"#\d+$", ""))
    random_rows, d_rows = [], []
    for (study,), grp in rows.group_by("study", maintain_order=True):
        c, d = variance.study_g_study(study, grp, "correct", FACTORS)
        random_rows += c
        d_rows += d
    type1 = variance_components(verdicts)
    return {
        "variance_components": variance.components_table(type1.to_dicts() + random_rows),
        "d_study": variance.d_study_table(d_rows),
    }
