"""A study's power plan: per-design intervals and per-pair tests from pilot tables or stated
assumptions (tasks/power.py does the arithmetic), the study type's planner (its record's
`power`), and the lines `judgelab power` and `judgelab plan` print."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from judgelab.study import Study
from tasks.power import (
    MIN_N,
    POWER,
    Assumptions,
    Targets,
    folded_sd,
    halfwidth,
    n_for_alpha_halfwidth,
    n_for_halfwidth,
    n_for_tost,
    normal_draw,
    pilot_draw,
    tost_power,
)
from tasks.study_types import StudyType

# ---- per design and per pair of designs ----------------------------------------------------

RATING_DESIGN = ["judge", "prompt_level", "scale"]
ACCURACY_DESIGN = ["judge", "prompt_level", "reasoning_effort"]
RATING_SCHEMA = {
    **dict.fromkeys(RATING_DESIGN, pl.String),
    "n_pilot": pl.Int64,  # items of the design in the pilot (0: assumed)
    "bias": pl.Float64,  # mean judge − human
    "sd": pl.Float64,  # sd of judge − human over items
    "mae": pl.Float64,
    "sd_abs": pl.Float64,  # sd of |judge − human| over items
    "alpha": pl.Float64,  # interval α, judge vs human
    "n_bias": pl.Int64,  # items for the bias CI half-width target
    "n_mae": pl.Int64,
    "n_alpha": pl.Int64,  # null: not simulated, or α undefined
}
ACCURACY_SCHEMA = {
    **dict.fromkeys(ACCURACY_DESIGN, pl.String),
    "n_pilot": pl.Int64,
    "accuracy": pl.Float64,
    "sd": pl.Float64,  # √(p(1 − p)): sd of the 0/1 correctness over items
    "n_accuracy": pl.Int64,
}
PAIR_SCHEMA = {
    "design_a": pl.String,  # "judge·prompt_level·scale" (or ·reasoning_effort)
    "design_b": pl.String,
    "n_pilot": pl.Int64,  # items both designs scored
    "mean_diff": pl.Float64,  # mean a − b per item
    "sd_diff": pl.Float64,  # sd of a − b per item
    "discordant": pl.Float64,  # share of items where a ≠ b (accuracy: right under one only)
    "n_power": pl.Int64,  # items to detect the meaningful difference with the target power
    "n_tost": pl.Int64,  # items for TOST to show equivalence within the margin
}


def _sd(x: np.ndarray) -> float | None:
    return float(np.std(x, ddof=1)) if len(x) >= MIN_N else None


def rating_designs(
    item_scores: pl.DataFrame, targets: Targets, seed: int = 0, simulate: bool = True
) -> pl.DataFrame:
    """item_scores (one row per design × item) → one row per design (RATING_SCHEMA): the pilot
    spreads and the items each 95% CI half-width target needs. α's n is simulated by
    resampling the design's items (seeded per design, as the tables' bootstrap), unless
    `simulate` is off (the one-line verdict does not need it)."""
    from tasks.stats import design_rng, kripp_alpha

    rows = []
    ordered = item_scores.sort([*RATING_DESIGN, "item_id"])
    for design, grp in ordered.group_by(RATING_DESIGN, maintain_order=True):
        j, h = grp["score_1to7"].to_numpy(), grp["human_1to7"].to_numpy()
        d = j - h
        sd, sd_abs, alpha = _sd(d), _sd(np.abs(d)), kripp_alpha(j, h)
        n_alpha = None
        if simulate and alpha is not None:
            rng = design_rng(seed, ["power", *design])
            n_alpha = n_for_alpha_halfwidth(pilot_draw(j, h), targets.alpha_hw, rng)
        rows.append(
            {
                **dict(zip(RATING_DESIGN, design, strict=True)),
                "n_pilot": len(d),
                "bias": float(d.mean()),
                "sd": sd,
                "mae": float(np.abs(d).mean()),
                "sd_abs": sd_abs,
                "alpha": alpha,
                "n_bias": None if sd is None else n_for_halfwidth(sd, targets.bias_hw),
                "n_mae": None if sd_abs is None else n_for_halfwidth(sd_abs, targets.mae_hw),
                "n_alpha": n_alpha,
            }
        )
    return pl.DataFrame(rows, schema=RATING_SCHEMA)


def assumed_rating_designs(
    assume: Assumptions, targets: Targets, seed: int = 0, simulate: bool = True
) -> pl.DataFrame:
    """One "assumed" design row from the stated assumptions; the MAE's sd is that of a folded
    normal, α's n is simulated from the normal model (normal_draw)."""
    sd_abs = folded_sd(assume.bias, assume.sd)
    n_alpha = None
    if simulate:
        from tasks.stats import design_rng  # scipy.stats: only where α's n is simulated

        draw = normal_draw(assume.bias, assume.sd, assume.alpha)
        n_alpha = n_for_alpha_halfwidth(draw, targets.alpha_hw, design_rng(seed, ["power"]))
    row = {
        "judge": "assumed",
        "prompt_level": "-",
        "scale": "-",
        "n_pilot": 0,
        "bias": assume.bias,
        "sd": assume.sd,
        "mae": None,
        "sd_abs": sd_abs,
        "alpha": assume.alpha,
        "n_bias": n_for_halfwidth(assume.sd, targets.bias_hw),
        "n_mae": n_for_halfwidth(sd_abs, targets.mae_hw),
        "n_alpha": n_alpha,
    }
    return pl.DataFrame([row], schema=RATING_SCHEMA)


def accuracy_designs(correct: pl.DataFrame, targets: Targets) -> pl.DataFrame:
    """correctness rows → one row per design (ACCURACY_SCHEMA): pilot accuracy p, its item sd
    √(p(1 − p)) and the items a 95% CI half-width of targets.acc_hw needs."""
    out = (
        correct.group_by(ACCURACY_DESIGN)
        .agg(
            pl.len().cast(pl.Int64).alias("n_pilot"),
            pl.col("correct").cast(pl.Float64).mean().alias("accuracy"),
        )
        .with_columns((pl.col("accuracy") * (1 - pl.col("accuracy"))).sqrt().alias("sd"))
        .sort(ACCURACY_DESIGN)
    )
    needed = [n_for_halfwidth(sd, targets.acc_hw) for sd in out["sd"]]
    return out.with_columns(pl.Series("n_accuracy", needed, pl.Int64)).select(list(ACCURACY_SCHEMA))


def assumed_accuracy_designs(assume: Assumptions, targets: Targets) -> pl.DataFrame:
    sd = math.sqrt(assume.accuracy * (1 - assume.accuracy))
    row = {"judge": "assumed", "prompt_level": "-", "reasoning_effort": "-", "n_pilot": 0}
    row |= {
        "accuracy": assume.accuracy,
        "sd": sd,
        "n_accuracy": n_for_halfwidth(sd, targets.acc_hw),
    }
    return pl.DataFrame([row], schema=ACCURACY_SCHEMA)


def pair_spreads(frame: pl.DataFrame, design: list[str], value: str) -> pl.DataFrame:
    """One row per unordered pair of designs (PAIR_SCHEMA, n columns null): the items both
    have, the mean and sd of a − b over them, and the share of them where a ≠ b."""
    labelled = frame.with_columns(
        pl.concat_str([pl.col(c) for c in design], separator="·").alias("_design"),
        pl.col(value).cast(pl.Float64),
    )
    wide = labelled.pivot(on="_design", index="item_id", values=value, aggregate_function="first")
    names = sorted(c for c in wide.columns if c != "item_id")
    matrix = wide.select(names).to_numpy().astype(float)
    rows = []
    for i, a in enumerate(names):
        for k in range(i + 1, len(names)):
            d = matrix[:, i] - matrix[:, k]
            d = d[np.isfinite(d)]
            mean = float(d.mean()) if len(d) else None
            share = float(np.mean(d != 0)) if len(d) else None
            rows.append(
                {"design_a": a, "design_b": names[k], "n_pilot": len(d), "mean_diff": mean}
                | {"sd_diff": _sd(d), "discordant": share, "n_power": None, "n_tost": None}
            )
    return pl.DataFrame(rows, schema=PAIR_SCHEMA)


def assumed_pairs(diff_sd: float, discordant: float | None = None) -> pl.DataFrame:
    row = {"design_a": "assumed", "design_b": "assumed", "n_pilot": 0, "mean_diff": None}
    row |= {"sd_diff": diff_sd, "discordant": discordant, "n_power": None, "n_tost": None}
    return pl.DataFrame([row], schema=PAIR_SCHEMA)


@dataclass(frozen=True)
class Planner:
    """What differs between the study types the planner covers; a type's record
    (tasks/study_types.py) names its planner (tasks/rating/power.py, tasks/accuracy/power.py)
    in `power`."""

    pilot_table: str  # the stored table the pilot data comes from
    design: list[str]  # the columns that name a design
    # (a): per-design means with a CI target: (label, Targets field, designs column)
    intervals: list[tuple[str, str, str]]
    ci_label: str  # the per-design mean whose CI the one-line verdict quotes
    percent: bool  # differences are fractions, printed in percentage points
    test: str  # the paired test the study's tables run between two designs
    spread: str  # the pair column (PAIR_SCHEMA) that test's power depends on
    n_needed: Callable[[float, float, float], int | None]  # (diff, spread, power) → items
    detectable: Callable[[int, float, float], float | None]  # (n, spread, power) → diff
    # (study, pilot, targets, assumptions, diff, full) → PowerPlan
    plan: Callable[..., PowerPlan]


def pair_needs(
    pairs: pl.DataFrame, study_type: str, diff: float, margin: float, power: float = POWER
) -> pl.DataFrame:
    """Fills n_power (items for the study type's paired test, its Planner, to detect a
    difference of `diff`) and n_tost (items for TOST to show equivalence within ±margin when
    the designs are truly the same), both at this power and the 5% level."""
    kind = planner(study_type)
    rows = pairs.to_dicts()
    n_power = [
        None if row[kind.spread] is None else kind.n_needed(diff, row[kind.spread], power)
        for row in rows
    ]
    n_tost = [
        None if row["sd_diff"] is None else n_for_tost(row["sd_diff"], margin, power)
        for row in rows
    ]
    return pairs.with_columns(
        pl.Series("n_power", n_power, pl.Int64), pl.Series("n_tost", n_tost, pl.Int64)
    )


# ---- the plan of one study, and what is printed ----------------------------------------------


@dataclass(frozen=True)
class PowerPlan:
    """What `judgelab power` prints for one study, and what `judgelab plan`'s line uses."""

    study_type: str  # "rating" | "accuracy"
    basis: str  # where the spreads come from, printed with every answer
    designs: pl.DataFrame  # RATING_SCHEMA or ACCURACY_SCHEMA
    pairs: pl.DataFrame  # PAIR_SCHEMA
    diff: float  # the difference (b) should detect, in the unit of the differences
    margin: float  # the equivalence margin of (c)
    targets: Targets


def plan_rating(
    item_scores: pl.DataFrame | None,
    targets: Targets,
    assume: Assumptions,
    diff: float,
    margin: float,
    seed: int = 0,
    full: bool = True,
) -> PowerPlan:
    """A rating study's plan from its item_scores (pilot), else from the assumptions. A pilot
    with one design has no pairs: the assumed difference sd stands in for (b) and (c).
    `full` off skips the slow parts (α simulation, each pair's n)."""
    if item_scores is not None and not item_scores.is_empty():
        designs = rating_designs(item_scores, targets, seed, simulate=full)
        pairs = pair_spreads(item_scores, RATING_DESIGN, "score_1to7")
        n_items = item_scores["item_id"].n_unique()
        basis = f"pilot: {n_items:,} items, {designs.height} designs, {pairs.height} pairs"
    else:
        designs = assumed_rating_designs(assume, targets, seed, simulate=full)
        pairs = pl.DataFrame(schema=PAIR_SCHEMA)
        basis = f"assumed: sd {assume.sd:g}, bias {assume.bias:g}, α {assume.alpha:g}"
    if pairs.is_empty():
        pairs = assumed_pairs(assume.diff_sd)
        basis += f", difference sd {assume.diff_sd:g}"
    if full:
        pairs = pair_needs(pairs, "rating", diff, margin, targets.power)
    return PowerPlan("rating", basis, designs, pairs, diff, margin, targets)


def plan_accuracy(
    correct: pl.DataFrame | None,
    targets: Targets,
    assume: Assumptions,
    diff: float,
    margin: float,
    full: bool = True,
) -> PowerPlan:
    """An accuracy study's plan from per-item correctness (pilot), else from the assumptions:
    a paired difference of 0/1 outcomes is 0 or ±1; McNemar's power depends on the discordant
    share, TOST's on the sd, √discordant when the designs are truly the same."""
    if correct is not None and not correct.is_empty():
        designs = accuracy_designs(correct, targets)
        pairs = pair_spreads(correct, ACCURACY_DESIGN, "correct")
        n_items = correct["item_id"].n_unique()
        basis = f"pilot: {n_items:,} items, {designs.height} designs, {pairs.height} pairs"
    else:
        designs = assumed_accuracy_designs(assume, targets)
        pairs = pl.DataFrame(schema=PAIR_SCHEMA)
        basis = f"assumed: accuracy {assume.accuracy:g}"
    if pairs.is_empty():
        pairs = assumed_pairs(math.sqrt(assume.discordant), assume.discordant)
        basis += f", {100 * assume.discordant:g}% of items discordant between two designs"
    if full:
        pairs = pair_needs(pairs, "accuracy", diff, margin, targets.power)
    return PowerPlan("accuracy", basis, designs, pairs, diff, margin, targets)


def _fmt(plan: PowerPlan, x: float, fixed: bool = False) -> str:
    """A difference in its unit: accuracy in percentage points (pp), ratings in points; a
    setting as given (0.2), an estimate `fixed` to a useful precision (0.16, 8.7 pp)."""
    if planner(plan.study_type).percent:
        return f"{100 * x:.1f} pp" if fixed else f"{100 * x:.3g} pp"
    return f"{x:.2f}" if fixed else f"{x:.3g}"


def _spread(frame: pl.DataFrame, column: str, label: Callable[[dict], str]) -> str:
    """The items a column asks for: "N items" for one row, else "median N, worst N (where)";
    rows without an n (null: too few items, no spread, or no n reaches the target) are
    named "not estimable", never left out of the median and worst silently."""
    rows = frame.filter(pl.col(column).is_not_null())
    missing = frame.filter(pl.col(column).is_null())
    if rows.is_empty():
        return "not estimable"
    if missing.height == 1:
        note = f"; not estimable for {label(missing.row(0, named=True))}"
    else:
        note = f"; not estimable for {missing.height} of {frame.height}" if missing.height else ""
    if rows.height == 1:
        return f"{rows[column][0]:,} items{note}"
    worst = rows.sort(column, descending=True, maintain_order=True).row(0, named=True)
    mid = math.ceil(rows[column].median())
    return f"median {mid:,}, worst {worst[column]:,} items ({label(worst)}){note}"


def question_lines(plan: PowerPlan) -> list[str]:
    """One line per question: (a) CI half-widths per design, (b) power between two designs,
    (c) equivalence; each "median, worst" over designs or pairs."""
    kind, pct = planner(plan.study_type), round(100 * plan.targets.power)

    def design(row: dict) -> str:
        return "·".join(row[c] for c in kind.design)

    def pair(row: dict) -> str:
        return f"{row['design_a']} vs {row['design_b']}"

    intervals = []
    for k, (label, target, column) in enumerate(kind.intervals):
        hw = getattr(plan.targets, target)
        prefix = "(a)" if k == 0 else "   "
        intervals.append(
            f"{prefix} 95% CI ±{_fmt(plan, hw)} on {label}: "
            + _spread(plan.designs, column, design)
        )
    return [
        *intervals,
        f"(b) {pct}% power to detect a {_fmt(plan, plan.diff)} difference between two designs "
        f"({kind.test}, two-sided 5%): " + _spread(plan.pairs, "n_power", pair),
        f"(c) {pct}% power to show equivalence within ±{_fmt(plan, plan.margin)} (TOST, 5%, "
        "true difference 0): " + _spread(plan.pairs, "n_tost", pair),
    ]


def _median(values: pl.Series) -> float | None:
    values = values.drop_nulls().drop_nans()
    return float(values.median()) if len(values) else None


def verdict_line(plan: PowerPlan, n: int) -> str:
    """The planned sample in one line, for the median design and pair: the CI half-width of
    the bias (accuracy), the difference two designs show with the target power, and the power
    to show equivalence within the margin."""
    kind, pct = planner(plan.study_type), round(100 * plan.targets.power)
    sd, sd_d = _median(plan.designs["sd"]), _median(plan.pairs["sd_diff"])
    spread = _median(plan.pairs[kind.spread])
    parts = []
    if sd is not None:
        parts.append(f"{kind.ci_label} CI ±{_fmt(plan, halfwidth(sd, n), fixed=True)}")
    if sd_d is not None and spread is not None and n >= MIN_N:
        mdd = kind.detectable(n, spread, plan.targets.power)
        if mdd is None:
            parts.append(f"{pct}% power for no difference (too few items)")
        else:
            parts.append(f"{pct}% power for a {_fmt(plan, mdd, fixed=True)} difference")
        eq = tost_power(n, sd_d, plan.margin)
        parts.append(
            f"{round(100 * eq)}% power to show equivalence within ±{_fmt(plan, plan.margin)}"
        )
    basis = plan.basis + ("; median design and pair" if plan.designs.height > 1 else "")
    return f"n = {n:,} items: {', '.join(parts) or 'no estimate'} ({basis})"


# ---- per study type ----------------------------------------------------------------------


def plan_study(
    study: Study,
    pilot: pl.DataFrame | None,
    targets: Targets,
    assume: Assumptions,
    diff: float | None = None,
    full: bool = True,
) -> PowerPlan:
    """A study's plan from its pilot table (the planner's pilot_table; None = no data:
    assumptions), by the planner its study type's record names (tasks/study_types.py).

    The difference (b) should detect is `diff`, else the study's meaningful_diff for ratings
    and its equivalence margin for accuracy (meaningful_diff is in points on 1–7, so it has
    no meaning for accuracy); the margin of (c) is the study's equivalence margin.
    """
    record = StudyType.named(study.type)
    if record.power is None:
        raise ValueError(f"{study.type} studies: {record.power_note}")
    return record.load("power").plan(study, pilot, targets, assume, diff, full)


def planner(study_type: str) -> Planner:
    """The planner a study type's record names."""
    return StudyType.named(study_type).load("power")


# ---- human labels for a judge-corrected mean (tbl_corrected) ---------------------------------

LABEL_SCHEMA = {
    "judge": pl.String,
    "prompt_level": pl.String,
    "scale": pl.String,
    "reasoning_effort": pl.String,
    "n_items": pl.Int64,  # items judged (the pilot design's, or the planned sample)
    "judge_sd": pl.Float64,  # sd of the judge's scores over items
    "resid_sd": pl.Float64,  # sd of human − judge over the labelled items (assumed: --sd)
    "human_sd": pl.Float64,  # sd of the human labels (null when assumed: plain PPI, λ = 1)
    "n_labels": pl.Int64,  # human labels for the target half-width; null: out of reach
}
ASSUMED_JUDGE_SD = 1.2  # ratings on 1–7 without a pilot (--judge-sd); verdicts: 0.5, the most


def label_needs(
    corrected: pl.DataFrame | None,
    halfwidth: float,
    n_items: int,
    resid_sd: float,
    judge_sd: float,
) -> pl.DataFrame:
    """Human labels for a 95% CI of ±halfwidth on the judge-corrected mean (tasks/ppi.py's
    closed form), one row per design of the study's `corrected` table with that design's own
    judge, residual and label SDs and items (the least count over the PPI weight λ, as the
    power-tuned interval chooses it), or, without one, a single "assumed" row from the stated
    SDs and the planned n_items (plain PPI, λ = 1: a safe count for a judge that tracks the
    humans)."""
    from tasks.ppi import n_labels_for_halfwidth

    if corrected is None or corrected.filter(pl.col("resid_sd").is_not_null()).is_empty():
        rows = [("assumed", None, None, None, n_items, judge_sd, resid_sd, None)]
    else:
        rows = corrected.filter(pl.col("resid_sd").is_not_null()).select(*list(LABEL_SCHEMA)[:-1])
        rows = rows.rows()
    out = [(*r, n_labels_for_halfwidth(halfwidth, *r[4:])) for r in rows]
    return pl.DataFrame(out, schema=LABEL_SCHEMA, orient="row")


def label_line(needs: pl.DataFrame, halfwidth: float) -> str:
    """One line: the median and the largest count over designs, or why it cannot be had."""
    known = needs["n_labels"].drop_nulls()
    if known.is_empty():
        return (
            f"human labels for a ±{halfwidth:g} CI on the corrected mean: out of reach with "
            "these items (the judge's own sampling error is wider); judge more items"
        )
    missing = needs.height - known.len()
    more = f"; {missing} design(s) cannot reach it" if missing else ""
    return (
        f"human labels for a ±{halfwidth:g} CI on the corrected mean: "
        f"median {int(known.median())}, most {known.max()} (of {needs['n_items'].max()} "
        f"items){more}"
    )
