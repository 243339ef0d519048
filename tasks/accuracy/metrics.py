"""Accuracy of TRUE/FALSE judges against a truth per item (the reference label, or the designs'
consensus where there is none), per design and item subset, and how in-context examples switch
a judge's verdicts against its base prompt."""

from __future__ import annotations

import polars as pl

from schemas.accuracy_metrics import ACCURACY_SUBSETS, TRUTHS, AccuracyMetrics
from schemas.switch_rates import SwitchRates
from schemas.validate import validate
from schemas.verdicts import BASE_LEVEL, VERDICT_DESIGN
from tasks.accuracy.consensus import design_verdicts

ITEM = ["study", "item_id"]


def truth_labels(consensus: pl.DataFrame, truth: str = "reference") -> pl.DataFrame:
    """consensus → study, item_id, subset, truth (Boolean, null = no truth), truth_source.

    "reference": the item's reference label where it has one, else the consensus label.
    "consensus": the consensus label always (e.g. a benchmark whose labels are doubted).
    """
    if truth not in TRUTHS:
        raise ValueError(f"truth must be one of {TRUTHS}, got {truth!r}")
    ref, cons = pl.col("reference"), pl.col("consensus_label")
    if truth == "reference":
        label = pl.coalesce(ref, cons)
        source = pl.when(ref.is_not_null()).then(pl.lit("reference"))
        source = source.when(cons.is_not_null()).then(pl.lit("consensus"))
    else:
        label = cons
        source = pl.when(cons.is_not_null()).then(pl.lit("consensus"))
    return consensus.select(*ITEM, "subset", label.alias("truth"), source.alias("truth_source"))


def _with_subsets(frame: pl.DataFrame) -> pl.DataFrame:
    """Each row once under "all" and once under its item's own subset."""
    return pl.concat([frame.with_columns(subset=pl.lit("all")), frame])


def _subset_grid(keys: pl.DataFrame) -> pl.DataFrame:
    return keys.join(pl.DataFrame({"subset": list(ACCURACY_SUBSETS)}), how="cross")


def _share(count: str, total: str) -> pl.Expr:
    return pl.when(pl.col(total) > 0).then(pl.col(count) / pl.col(total))


def accuracy_metrics(
    verdicts: pl.DataFrame, consensus: pl.DataFrame, truth: str = "reference"
) -> pl.DataFrame:
    """verdicts + consensus → one row per study × design × subset ("all", "full", "near",
    "ambiguous"; every design gets all four, an empty subset with null rates).

    A design's verdict on an item is the majority of its ok repeats (tasks.accuracy.consensus.
    design_verdicts). Items without a truth (see truth_labels) leave the denominators and are
    counted in n_no_truth. Accuracy, true_rate and the error split are over the items the design
    resolved; leniency = fp / (fp + fn) is the share of its errors that are false TRUEs (null
    when it made none). unparseable_rate counts unparseable and out-of-range answers over every
    planned call on the subset's items. Run-to-run noise: repeat_sd is the mean, over the
    subset's items with at least two ok repeats (n_repeated, truth or not), of the SD of the
    design's 0/1 verdicts on the item; null when repeats = 1. `consensus` must come from the
    same verdicts: items it lacks are dropped.
    """
    c = pl.col
    dv = design_verdicts(verdicts)
    rows = _with_subsets(dv.join(truth_labels(consensus, truth), on=ITEM, how="inner"))
    has_truth = c("truth").is_not_null()
    scored = has_truth & c("verdict").is_not_null()
    said = c("verdict") == 1

    def n(cond: pl.Expr) -> pl.Expr:
        return cond.fill_null(False).sum().cast(pl.Int64)

    keys = [*VERDICT_DESIGN, "subset"]
    counts = rows.group_by(keys).agg(
        n(has_truth).alias("n_items"),
        n(scored).alias("n_scored"),
        n(~has_truth).alias("n_no_truth"),
        n(scored & (said == c("truth"))).alias("n_correct"),
        n(scored & said & ~c("truth")).alias("fp"),
        n(scored & ~said & c("truth")).alias("fn"),
        n(scored & said).alias("n_said_true"),
        c("n_calls").sum().cast(pl.Int64),
        c("n_parse_fail").sum().cast(pl.Int64),
        n(c("truth_source") == "reference").alias("n_ref"),
        n(c("n_ok") >= 2).alias("n_repeated"),
        c("repeat_sd").mean().alias("repeat_sd"),
    )
    count_cols = [name for name in counts.columns if name not in [*keys, "repeat_sd"]]
    out = (
        _subset_grid(dv.select(VERDICT_DESIGN).unique())
        .join(counts, on=keys, how="left")
        .with_columns(c(*count_cols).fill_null(0))
        .with_columns(
            (c("n_items") - c("n_scored")).alias("n_unresolved"),
            _share("n_correct", "n_scored").alias("accuracy"),
            pl.when(c("fp") + c("fn") > 0).then(c("fp") / (c("fp") + c("fn"))).alias("leniency"),
            _share("n_said_true", "n_scored").alias("true_rate"),
            _share("n_parse_fail", "n_calls").alias("unparseable_rate"),
            pl.when(c("n_items") == 0)
            .then(None)
            .when(c("n_ref") == c("n_items"))
            .then(pl.lit("reference"))
            .when(c("n_ref") == 0)
            .then(pl.lit("consensus"))
            .otherwise(pl.lit("mixed"))
            .alias("truth_source"),
        )
        .with_columns((1 - c("leniency")).alias("strictness"))
        .select(list(AccuracyMetrics.to_schema().columns))
        .sort(keys)
    )
    return validate(out, AccuracyMetrics)


def switch_rates(
    verdicts: pl.DataFrame, consensus: pl.DataFrame, truth: str = "reference"
) -> pl.DataFrame:
    """verdicts + consensus → one row per study × judge × reasoning effort × non-base prompt
    level × subset, comparing the design with the same judge and effort on the base prompt.

    Over the items both designs resolved and that have a truth (n_items): the share that went
    wrong → right and right → wrong (net_change, their difference, equals the accuracy change
    on these items), and the verdict flips TRUE → FALSE and FALSE → TRUE. Rows exist for every
    level that has a base design to compare with; rates are null when n_items is 0.
    """
    c = pl.col
    pair_keys = ["study", "judge", "model", "reasoning_effort"]
    dv = design_verdicts(verdicts)
    base = dv.filter(c("prompt_level") == BASE_LEVEL)
    other = dv.filter(c("prompt_level") != BASE_LEVEL)
    rows = _with_subsets(
        other.join(
            base.select(*pair_keys, "item_id", c("verdict").alias("verdict_base")),
            on=[*pair_keys, "item_id"],
            how="inner",
        ).join(truth_labels(consensus, truth), on=ITEM, how="inner")
    )
    both = c("verdict").is_not_null() & c("verdict_base").is_not_null()
    scored = both & c("truth").is_not_null()
    truth_int = c("truth").cast(pl.Int64)
    right, right_base = c("verdict") == truth_int, c("verdict_base") == truth_int

    def n(cond: pl.Expr) -> pl.Expr:
        return cond.fill_null(False).sum().cast(pl.Int64)

    keys = [*pair_keys, "prompt_level", "subset"]
    counts = rows.group_by(keys).agg(
        n(scored).alias("n_items"),
        n(both & c("truth").is_null()).alias("n_no_truth"),
        n(scored & right_base).alias("n_right_base"),
        n(scored & right).alias("n_right_level"),
        n(scored & ~right_base & right).alias("n_w2r"),
        n(scored & right_base & ~right).alias("n_r2w"),
        n(scored & (c("verdict_base") == 1) & (c("verdict") == 0)).alias("n_t2f"),
        n(scored & (c("verdict_base") == 0) & (c("verdict") == 1)).alias("n_f2t"),
    )
    count_cols = [name for name in counts.columns if name not in keys]
    grid = _subset_grid(
        other.select(*pair_keys, "prompt_level")
        .unique()
        .join(base.select(pair_keys).unique(), on=pair_keys, how="semi")
    )
    out = (
        grid.join(counts, on=keys, how="left")
        .with_columns(c(*count_cols).fill_null(0))
        .with_columns(
            _share("n_right_base", "n_items").alias("accuracy_base"),
            _share("n_right_level", "n_items").alias("accuracy_level"),
            _share("n_w2r", "n_items").alias("wrong_to_right"),
            _share("n_r2w", "n_items").alias("right_to_wrong"),
            _share("n_t2f", "n_items").alias("true_to_false"),
            _share("n_f2t", "n_items").alias("false_to_true"),
        )
        .with_columns((c("wrong_to_right") - c("right_to_wrong")).alias("net_change"))
        .select(list(SwitchRates.to_schema().columns))
        .sort(keys)
    )
    return validate(out, SwitchRates)
