"""Per-item consensus of an accuracy study: each design's majority verdict, then how the voters
(judges, or designs) agree on every item (full, near or ambiguous) and whether their majority
matches the reference."""

from __future__ import annotations

import polars as pl

from schemas.consensus import VOTES, Consensus
from schemas.validate import validate
from schemas.verdicts import VERDICT_DESIGN
from tasks.cuts import at_least_expr

PARSE_FAILURES = ("unparseable", "out_of_range")


def _majority(n_true: pl.Expr, n: pl.Expr) -> pl.Expr:
    """1 when more than half say TRUE, 0 when fewer, null on a tie or with no voice."""
    return (
        pl.when(2 * n_true > n)
        .then(pl.lit(1, pl.Int64))
        .when(2 * n_true < n)
        .then(pl.lit(0, pl.Int64))
    )


def design_verdicts(verdicts: pl.DataFrame) -> pl.DataFrame:
    """verdicts (one row per call) → one row per design × planned item.

    `verdict` is the majority of the ok repeats (1 TRUE, 0 FALSE); a tie, or no ok repeat,
    leaves it null (unresolved). Also the planned calls and the parse failures behind it, for
    failure rates, and `repeat_sd`, the standard deviation (n − 1) of the ok repeats' 0/1
    verdicts (null with fewer than two): run-to-run noise. Not a table of its own: every
    accuracy stage derives it the same way.
    """
    ok = pl.col("status") == "ok"
    return (
        verdicts.group_by([*VERDICT_DESIGN, "item_id"])
        .agg(
            pl.len().cast(pl.Int64).alias("n_calls"),
            ok.sum().cast(pl.Int64).alias("n_ok"),
            pl.col("verdict").filter(ok).sum().cast(pl.Int64).alias("n_true"),
            pl.col("status").is_in(PARSE_FAILURES).sum().cast(pl.Int64).alias("n_parse_fail"),
            pl.col("verdict").filter(ok).cast(pl.Float64).std(ddof=1).alias("repeat_sd"),
        )
        .with_columns(
            _majority(pl.col("n_true"), pl.col("n_ok")).alias("verdict"),
            pl.when(pl.col("n_ok") >= 2).then(pl.col("repeat_sd")).alias("repeat_sd"),
        )
        .sort([*VERDICT_DESIGN, "item_id"])
    )


def _voters(verdicts: pl.DataFrame, votes: str) -> pl.DataFrame:
    """One row per study × item × voter with a resolved vote (verdict 1/0), and n_designs, the
    designs behind the item's votes. "design": every design that resolved the item votes.
    "model": each judge's resolved designs first vote to the judge's majority (a tie: the judge
    abstains), then the judges vote, so a judge run at two efforts does not outvote one run at
    one."""
    dv = design_verdicts(verdicts).filter(pl.col("verdict").is_not_null())
    if votes == "design":
        return dv.select("study", "item_id", "verdict")
    return (
        dv.group_by("study", "judge", "item_id")
        .agg(
            pl.len().cast(pl.Int64).alias("n"),
            pl.col("verdict").sum().cast(pl.Int64).alias("t"),
        )
        .select("study", "item_id", _majority(pl.col("t"), pl.col("n")).alias("verdict"))
        .filter(pl.col("verdict").is_not_null())
    )


def consensus(
    verdicts: pl.DataFrame, near: float = 0.9, min_designs: int = 2, votes: str = "model"
) -> pl.DataFrame:
    """verdicts → one row per study × item that any design was asked about.

    Who votes is `votes` (see `_voters`): "model" (default) one vote per judge, "design" one
    per design. Over the voters: the share saying TRUE and the agreement max(share, 1 − share).
    Subset "full" when every voter agrees, "near" when agreement ≥ `near` but not full,
    otherwise "ambiguous". A consensus needs `min_designs` voters (judges under "model"): with
    fewer the item is "ambiguous" and has no consensus label, so a lone voter is never graded
    against its own answer. The label is the majority (TRUE above one half, FALSE below, null
    on an exact tie). Agreement is computed from counts, so 9 of 10 is exactly 0.9.
    """
    if votes not in VOTES:
        raise ValueError(f"votes must be one of {VOTES}, got {votes!r}")
    if not 0.5 < near <= 1:
        raise ValueError(f"near must lie in (0.5, 1], got {near}")
    if min_designs < 1:
        raise ValueError(f"min_designs must be at least 1, got {min_designs}")
    designs = (
        design_verdicts(verdicts)
        .group_by("study", "item_id")
        .agg(pl.col("verdict").count().cast(pl.Int64).alias("n_designs"))
    )
    tally = (
        _voters(verdicts, votes)
        .group_by("study", "item_id")
        .agg(
            pl.len().cast(pl.Int64).alias("n_voters"),
            pl.col("verdict").sum().cast(pl.Int64).alias("n_true"),
        )
    )
    items = verdicts.group_by("study", "item_id").agg(pl.col("reference").first())
    n, t = pl.col("n_voters"), pl.col("n_true")
    enough = n >= min_designs
    agreement = pl.max_horizontal(t, n - t) / n
    label = pl.when(enough & (2 * t > n)).then(True).when(enough & (2 * t < n)).then(False)
    out = (
        items.join(designs, on=["study", "item_id"], how="left")
        .join(tally, on=["study", "item_id"], how="left")
        .with_columns(pl.col("n_designs", "n_voters", "n_true").fill_null(0))
        .with_columns(
            pl.lit(votes).alias("votes"),
            pl.when(n > 0).then(t / n).alias("share_true"),
            pl.when(n > 0).then(agreement).alias("agreement"),
            pl.when(enough & ((t == 0) | (t == n)))
            .then(pl.lit("full"))
            .when(enough & at_least_expr(agreement, near))
            .then(pl.lit("near"))
            .otherwise(pl.lit("ambiguous"))
            .alias("subset"),
            label.alias("consensus_label"),
        )
        .with_columns(
            (pl.col("consensus_label") == pl.col("reference")).alias("consensus_matches_reference")
        )
        .select(list(Consensus.to_schema().columns))
        .sort("study", "item_id")
    )
    return validate(out, Consensus)


def one_voter_notes(table: pl.DataFrame) -> dict[str, str]:
    """consensus → {study: sentence} for studies with items that only one voter resolved. Such
    an item stays "ambiguous" (a valid subset, so every table keeps its rows) although its
    agreement is 1.0 — a lone voter agrees with itself — so the run and the report say why:
    one voter, no consensus. A one-voter item with a label is min_designs = 1 at work and
    needs no word."""
    notes = {}
    for (study,), rows in table.group_by("study", maintain_order=True):
        one = rows.filter((pl.col("n_voters") == 1) & pl.col("consensus_label").is_null())
        if one.is_empty():
            continue
        votes = rows["votes"][0]
        who = "judge" if votes == "model" else "design"
        if one.height == rows.filter(pl.col("n_voters") > 0).height:
            fix = (
                'add a judge, or set [study.analysis] consensus_votes = "design" to let its '
                "designs vote"
                if votes == "model"
                else "add a design (a judge, prompt level or reasoning effort)"
            )
            notes[study] = (
                f"One voter: no consensus. Every item has one {who} voting, and a consensus "
                f"needs min_designs voters, so all {one.height} items count as 'ambiguous' "
                f"with no consensus label (their agreement of 1.0 is one {who} agreeing with "
                f"itself); accuracy is against the reference. For a consensus, {fix}."
            )
        else:
            notes[study] = (
                f"{one.height} of {rows.height} items have one voter ({who}): no consensus, "
                "counted 'ambiguous' with no consensus label."
            )
    return notes
