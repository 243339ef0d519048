"""Per-item consensus of an accuracy study: each design's majority verdict, then how the designs
agree on every item (full, near or ambiguous) and whether their majority matches the reference."""

from __future__ import annotations

import polars as pl

from schemas.consensus import Consensus
from schemas.validate import validate
from schemas.verdicts import VERDICT_DESIGN

PARSE_FAILURES = ("unparseable", "out_of_range")


def design_verdicts(verdicts: pl.DataFrame) -> pl.DataFrame:
    """verdicts (one row per call) → one row per design × planned item.

    `verdict` is the majority of the ok repeats (1 TRUE, 0 FALSE); a tie, or no ok repeat,
    leaves it null (unresolved). Also the planned calls and the parse failures behind it, for
    failure rates. Not a table of its own: every accuracy stage derives it the same way.
    """
    ok = pl.col("status") == "ok"
    return (
        verdicts.group_by([*VERDICT_DESIGN, "item_id"])
        .agg(
            pl.len().cast(pl.Int64).alias("n_calls"),
            ok.sum().cast(pl.Int64).alias("n_ok"),
            pl.col("verdict").filter(ok).sum().cast(pl.Int64).alias("n_true"),
            pl.col("status").is_in(PARSE_FAILURES).sum().cast(pl.Int64).alias("n_parse_fail"),
        )
        .with_columns(
            pl.when(2 * pl.col("n_true") > pl.col("n_ok"))
            .then(pl.lit(1, pl.Int64))
            .when(2 * pl.col("n_true") < pl.col("n_ok"))
            .then(pl.lit(0, pl.Int64))
            .alias("verdict")
        )
        .sort([*VERDICT_DESIGN, "item_id"])
    )


def consensus(verdicts: pl.DataFrame, near: float = 0.9, min_designs: int = 2) -> pl.DataFrame:
    """verdicts → one row per study × item that any design was asked about.

    Over the designs that resolved the item: the share saying TRUE and the agreement
    max(share, 1 − share). Subset "full" when every such design agrees, "near" when agreement
    ≥ `near` but not full, otherwise "ambiguous". A consensus needs `min_designs` voices: with
    fewer (one design, or none resolved the item) the item is "ambiguous" and has no
    consensus label, so a lone design is never graded against its own answer. The label is the
    majority (TRUE above one half, FALSE below, null on an exact tie). Agreement is computed
    from counts, so 9 of 10 is exactly 0.9.
    """
    if not 0.5 < near <= 1:
        raise ValueError(f"near must lie in (0.5, 1], got {near}")
    if min_designs < 1:
        raise ValueError(f"min_designs must be at least 1, got {min_designs}")
    votes = (
        design_verdicts(verdicts)
        .group_by("study", "item_id")
        .agg(
            pl.col("verdict").count().cast(pl.Int64).alias("n_designs"),
            pl.col("verdict").sum().cast(pl.Int64).alias("n_true"),
        )
    )
    items = verdicts.group_by("study", "item_id").agg(pl.col("reference").first())
    n, t = pl.col("n_designs"), pl.col("n_true")
    enough = n >= min_designs
    agreement = pl.max_horizontal(t, n - t) / n
    label = pl.when(enough & (2 * t > n)).then(True).when(enough & (2 * t < n)).then(False)
    out = (
        items.join(votes, on=["study", "item_id"], how="left")
        .with_columns(pl.col("n_designs", "n_true").fill_null(0))
        .with_columns(
            pl.when(n > 0).then(t / n).alias("share_true"),
            pl.when(n > 0).then(agreement).alias("agreement"),
            pl.when(enough & ((t == 0) | (t == n)))
            .then(pl.lit("full"))
            .when(enough & (agreement >= near))
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
