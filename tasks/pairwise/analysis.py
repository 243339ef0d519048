"""Pairwise analysis, pure Polars: calls → winners, then per design position consistency, position
bias (CI and test), tie rate, flips, win rates and agreement with the human preference.

Definitions (a design is judge × prompt level × reasoning effort; a unit is pair × repeat,
judged once in each order):

* **position** of a call's answer: "A" (the answer shown first), "B" or "tie"; **winner**: the
  answer it names, "a", "b" or "tie" (order "ab" maps A to a, "ba" maps A to b). Only parsed
  answers have one: a failed call (unparseable, out of range, error, missing) is counted, never
  turned into a winner.
* **consistency**: share of units with both calls parsed whose winner is the same in both
  orders (tie and tie agree). A flip is a unit that is not consistent; flips are split into
  first-both (A won in both orders: the first position wins whatever it shows), second-both,
  and tie-mixed (a tie in one order only).
* **position bias**: among decisive calls (A or B), the share won by the first position, minus
  0.5. Its 95% interval is a percentile bootstrap over pairs (all calls of a drawn pair come
  along: the two orders of a pair are not independent). The test is an exact two-sided sign
  test over pairs: a pair leans first when its first-position wins outnumber its second-position
  wins over both orders and all repeats; under no position preference the two orders are
  exchangeable, so leaning first and leaning second are equally likely (binomial, p = 0.5, ties
  dropped). p is Holm-adjusted over the study's designs; `flagged` = adjusted p < 0.05.
* **win rate of answer a**: share of decisive calls whose winner is a (both orders pooled, so
  position cancels); **preferred win rate**: the same for the human-preferred answer, over
  the pairs whose human label names one (a or b; a human tie prefers neither).
* **human accuracy**: per labelled unit, the order-combined verdict (MT-Bench's swap rule: an
  answer wins only when it wins in both orders, anything else is a tie) equals the human's
  label, as MT-Bench's agreement counts it (FastChat `llm_judge/compute_agreement.py`): a
  combined tie agrees with a human tie and with nothing else. `human_accuracy` is its "w/
  tie" (every labelled unit), `human_accuracy_decisive` its "w/o tie" (the units where
  neither the combined verdict nor the human says tie). Without human ties the latter is the
  agreement over the units whose combined verdict names an answer.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import scipy.stats

from schemas.pairs import PREFERENCES
from schemas.pairwise_agreement import PairwiseAgreement
from schemas.pairwise_position import PairwisePosition
from schemas.pairwise_verdicts import PairwiseVerdicts
from schemas.validate import validate
from tasks.multiplicity import with_adjusted
from tasks.pairwise.plan import split_item
from tasks.stats import design_rng

DESIGN = ["study", "judge", "model", "prompt_level", "reasoning_effort"]
POSITIONS = ("A", "B", "tie")  # the winner scale's categories: score i is POSITIONS[i]
ALPHA = 0.05
CI_LEVEL = 0.95


def verdict_rows(plan: pl.DataFrame, judgments: pl.DataFrame, pairs: pl.DataFrame) -> pl.DataFrame:
    """plan ⋈ newest judgment per key ⋈ pairs: one row per planned call with its position,
    winner and the human preference; planned calls not stored yet are `missing`."""
    position = (
        pl.when(pl.col("status") == "ok")
        .then(pl.col("score").round().cast(pl.Int64))
        .replace_strict(dict(enumerate(POSITIONS)), default=None, return_dtype=pl.String)
    )
    winner = (
        pl.when(pl.col("position") == "tie")
        .then(pl.lit("tie"))
        .when((pl.col("position") == "A") == (pl.col("shown_first") == "a"))
        .then(pl.lit("a"))
        .when(pl.col("position").is_not_null())
        .then(pl.lit("b"))
    )
    out = (
        plan.with_columns(split_item(pl.col("item_id")))
        .join(judgments.select("key", "status", "score"), on="key", how="left")
        .join(pairs.select("pair_id", "preferred"), on="pair_id", how="left")
        .with_columns(pl.col("status").fill_null("missing"))
        .with_columns(position.alias("position"))
        .select(
            *DESIGN,
            "pair_id",
            "shown_first",
            "repeat",
            "status",
            "position",
            winner.alias("winner"),
            "preferred",
        )
    )
    return validate(out, PairwiseVerdicts)


def units(verdicts: pl.DataFrame) -> pl.DataFrame:
    """One row per design × pair × repeat: the winner with a shown first (`ab`) and with b
    shown first (`ba`) side by side; `combined` is MT-Bench's swap rule."""
    wide = verdicts.with_columns(
        pl.when(pl.col("shown_first") == "a")
        .then(pl.lit("ab"))
        .otherwise(pl.lit("ba"))
        .alias("order")
    ).pivot(
        on="order",
        index=[*DESIGN, "pair_id", "repeat", "preferred"],
        values="winner",
        aggregate_function="first",
    )
    for order in ("ab", "ba"):
        if order not in wide.columns:
            wide = wide.with_columns(pl.lit(None, pl.String).alias(order))
    both = pl.col("ab").is_not_null() & pl.col("ba").is_not_null()
    combined = pl.when(pl.col("ab") == pl.col("ba")).then(pl.col("ab")).otherwise(pl.lit("tie"))
    return wide.with_columns(
        both.alias("complete"),
        pl.when(both).then(pl.col("ab") == pl.col("ba")).alias("consistent"),
        pl.when(both).then(combined).alias("combined"),
    )


def prefers_one() -> pl.Expr:
    """The human label names an answer (a or b): null (no label) and "tie" do not. The
    accuracy counts (is the winner the preferred answer?) keep these pairs only."""
    return pl.col("preferred").is_in(PREFERENCES)


def _share(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return pl.when(den > 0).then(num / den)


def position_table(verdicts: pl.DataFrame, n_boot: int = 1000, seed: int = 0) -> pl.DataFrame:
    """Per design: calls and failures, tie rate, position consistency and flips, position bias
    with its bootstrap interval and sign test (module docstring)."""
    ok = pl.col("status") == "ok"
    decisive = pl.col("position").is_in(["A", "B"])
    calls = verdicts.group_by(DESIGN).agg(
        pl.col("pair_id").n_unique().alias("n_pairs"),
        pl.len().alias("n_calls"),
        (~ok).sum().alias("n_failed"),
        decisive.sum().alias("n_decisive"),
        (pl.col("position") == "A").sum().alias("n_first"),
        (pl.col("position") == "tie").sum().alias("n_ties"),
        ok.sum().alias("_n_ok"),
    )
    flips = (
        units(verdicts)
        .filter(pl.col("complete"))
        .group_by(DESIGN)
        .agg(
            pl.len().alias("n_units"),
            pl.col("consistent").sum().alias("n_consistent"),
            ((pl.col("ab") == "a") & (pl.col("ba") == "b")).sum().alias("n_first_both"),
            ((pl.col("ab") == "b") & (pl.col("ba") == "a")).sum().alias("n_second_both"),
            ((pl.col("ab") == "tie") != (pl.col("ba") == "tie")).sum().alias("n_tie_mixed"),
        )
    )
    per_pair = verdicts.group_by([*DESIGN, "pair_id"]).agg(
        (pl.col("position") == "A").sum().alias("f"), decisive.sum().alias("d")
    )
    tests = pl.DataFrame(
        [_bias_test(key, grp, n_boot, seed) for key, grp in per_pair.group_by(DESIGN)],
        schema={
            **dict.fromkeys(DESIGN, pl.String),
            "bias_lo": pl.Float64,
            "bias_hi": pl.Float64,
            "n_pairs_first": pl.Int64,
            "n_pairs_second": pl.Int64,
            "p_value": pl.Float64,
        },
        orient="row",
    )
    out = (
        calls.join(flips, on=DESIGN, how="left")
        .join(tests, on=DESIGN, how="left")
        .with_columns(
            pl.col("n_units", "n_consistent", "n_first_both", "n_second_both", "n_tie_mixed")
            .fill_null(0)
            .cast(pl.Int64)
        )
        .with_columns(
            _share(pl.col("n_ties"), pl.col("_n_ok")).alias("tie_rate"),
            _share(pl.col("n_consistent"), pl.col("n_units")).alias("consistency"),
            (pl.col("n_units") - pl.col("n_consistent")).alias("n_flips"),
            _share(pl.col("n_first"), pl.col("n_decisive")).alias("first_share"),
        )
        .with_columns((pl.col("first_share") - 0.5).alias("position_bias"))
        .sort(DESIGN)
    )
    out = with_adjusted(out, "p_value", ["study"], "p").drop("p_bh")
    out = out.with_columns((pl.col("p_holm") < ALPHA).alias("flagged"))
    columns = list(PairwisePosition.to_schema().columns)
    return validate(
        out.select(columns).cast({c: pl.Int64 for c in columns if c.startswith("n_")}),
        PairwisePosition,
    )


def _bias_test(key: tuple, grp: pl.DataFrame, n_boot: int, seed: int) -> tuple:
    """(design…, bias_lo, bias_hi, pairs leaning first, pairs leaning second, sign-test p).
    Pairs in id order: group_by shuffles them, and a resample draws pairs by position."""
    grp = grp.sort("pair_id")
    f = grp["f"].to_numpy().astype(float)
    d = grp["d"].to_numpy().astype(float)
    net = 2 * f - d  # first-position wins minus second-position wins
    up, down = int((net > 0).sum()), int((net < 0).sum())
    p = scipy.stats.binomtest(up, up + down, 0.5).pvalue if up + down else None
    lo = hi = None
    if n_boot > 0 and f.size >= 2 and d.sum() > 0:
        rng = design_rng(seed, [str(k) for k in key])
        idx = rng.integers(0, f.size, size=(n_boot, f.size))
        with np.errstate(invalid="ignore", divide="ignore"):
            shares = f[idx].sum(axis=1) / d[idx].sum(axis=1) - 0.5
        q = [(1 - CI_LEVEL) / 2, (1 + CI_LEVEL) / 2]
        lo, hi = (float(v) for v in np.nanquantile(shares, q))
    return (*key, lo, hi, up, down, None if p is None else float(p))


def agreement_table(verdicts: pl.DataFrame) -> pl.DataFrame:
    """Per design: win rate of answer a and of the human-preferred answer over decisive calls
    (both orders pooled), and the order-combined verdict's agreement with the human label,
    with and without ties (module docstring)."""
    decisive = pl.col("winner").is_in(["a", "b"])
    calls = verdicts.group_by(DESIGN).agg(
        decisive.sum().alias("n_decisive"),
        (pl.col("winner") == "a").sum().alias("_a"),
        (decisive & prefers_one()).sum().alias("n_labelled_calls"),
        (decisive & (pl.col("winner") == pl.col("preferred"))).sum().alias("_pref"),
    )
    agree = pl.col("combined") == pl.col("preferred")  # tie = tie, MT-Bench's equalvote
    untied = (pl.col("combined") != "tie") & (pl.col("preferred") != "tie")
    counts = ["n_labelled_units", "n_human_ties", "n_agree", "n_combined_ties"]
    counts += ["n_untied_units", "_agree_untied"]
    combined = (
        units(verdicts)
        .filter(pl.col("complete") & pl.col("preferred").is_not_null())
        .group_by(DESIGN)
        .agg(
            pl.len().alias("n_labelled_units"),
            (pl.col("preferred") == "tie").sum().alias("n_human_ties"),
            agree.sum().alias("n_agree"),
            (pl.col("combined") == "tie").sum().alias("n_combined_ties"),
            untied.sum().alias("n_untied_units"),
            (untied & agree).sum().alias("_agree_untied"),
        )
    )
    out = (
        calls.join(combined, on=DESIGN, how="left")
        .with_columns(pl.col(counts).fill_null(0))
        .with_columns(
            _share(pl.col("_a"), pl.col("n_decisive")).alias("win_rate_a"),
            _share(pl.col("_pref"), pl.col("n_labelled_calls")).alias("preferred_win_rate"),
            _share(pl.col("n_agree"), pl.col("n_labelled_units")).alias("human_accuracy"),
            _share(pl.col("_agree_untied"), pl.col("n_untied_units")).alias(
                "human_accuracy_decisive"
            ),
        )
        .sort(DESIGN)
    )
    columns = list(PairwiseAgreement.to_schema().columns)
    return validate(
        out.select(columns).cast({c: pl.Int64 for c in columns if c.startswith("n_")}),
        PairwiseAgreement,
    )
