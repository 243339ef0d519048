"""How many items a study needs: 95% CI half-widths per design, power to tell two designs apart,
and power of the equivalence test, from pilot data (the study's stored tables) or stated
assumptions. Pure: frames and numbers in, frames and lines out; the CLI reads the warehouse.

Closed forms where they fit: a bias (or MAE, or accuracy) is a mean over items, so its CI
half-width is z·sd/√n; two rating designs are compared with the paired t test (exact
noncentral t, as statsmodels' TTestPower; the Wilcoxon test design_pairs runs needs about 5%
more items for normal differences), two accuracy designs with McNemar's test (Connor's normal
approximation with the continuity correction verdict_pairs applies); TOST power uses the
usual noncentral-t approximation. Krippendorff's α is a ratio with no simple sampling law:
its half-width is simulated (seeded), by resampling pilot items or drawing from a normal model
of the stated assumptions, and scaled as 1/√n. tests/test_power.py checks every n against a
simulation of the interval or test the tables actually compute.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import polars as pl

from judgelab.study import Study
from tasks import cuts
from tasks.equivalence import MIN_N_NO_SPREAD
from tasks.study_types import StudyType

Z = NormalDist().inv_cdf(0.975)  # the 95% CIs of the tables (percentile bootstrap ≈ normal)
SIG = cuts.SIG_P
POWER = 0.8
MIN_N = 2  # a paired test or an sd needs two items
MAX_N = 10_000_000  # "more than any benchmark has": the search stops here, n None beyond
ALPHA_DRAWS = 4000  # simulated samples per α half-width (its 2.5% quantile within ~2%)
ALPHA_START = 200  # items of the first simulated sample; the second uses the first answer
SIM_BLOCK = 1 << 21  # draws × items simulated at once (bounds memory, as tasks.stats does)
MAX_SIM_ITEMS = 2_000  # beyond this α's half-width is extrapolated as 1/√n


@dataclass(frozen=True)
class Targets:
    """What the study should achieve: 95% CI half-widths per design, and power."""

    bias_hw: float = 0.1  # points on 1–7
    mae_hw: float = 0.1  # points on 1–7
    alpha_hw: float = 0.05  # Krippendorff's α
    acc_hw: float = 0.05  # accuracy, as a fraction (5 percentage points)
    power: float = POWER


@dataclass(frozen=True)
class Assumptions:
    """Stated assumptions used when a study has no pilot data (ratings in points on 1–7).

    The defaults are round numbers near the paper's sentiment/toxicity judges (MAE around 0.5,
    |bias| around 0.2, α against humans around 0.9, designs differing by 0.1–0.2 points).
    """

    sd: float = 0.8  # sd over items of judge − human
    bias: float = 0.2  # mean of judge − human (shapes MAE and α)
    alpha: float = 0.85  # interval α of judge vs human
    diff_sd: float = 0.5  # sd over items of design A − design B
    accuracy: float = 0.75  # accuracy studies: share of verdicts that are right
    discordant: float = 0.2  # accuracy studies: share of items where two designs differ


# ---- closed forms -------------------------------------------------------------------------


def halfwidth(sd: float, n: int) -> float:
    """95% CI half-width of a mean over n items whose values have this sd."""
    return Z * sd / math.sqrt(n)


def n_for_halfwidth(sd: float, hw: float) -> int | None:
    """Items for a 95% CI half-width of hw on a mean: n = (z·sd/hw)², rounded up."""
    if hw <= 0:
        raise ValueError(f"a target half-width must be positive, got {hw}")
    return _items((Z * sd / hw) ** 2)


def _items(n: float) -> int | None:
    """n rounded up to a count of items (at least MIN_N); None (not estimable) when n is not a
    finite number a count can hold. Never capped: a capped n reads as an answer."""
    if not math.isfinite(n) or n >= 2**53:
        return None
    return max(MIN_N, math.ceil(n - 1e-9))


def folded_sd(bias: float, sd: float) -> float:
    """sd of |d| for d ~ Normal(bias, sd): what an MAE's CI depends on."""
    if sd == 0:
        return 0.0
    mean_abs = sd * math.sqrt(2 / math.pi) * math.exp(-(bias**2) / (2 * sd**2)) + bias * (
        1 - 2 * NormalDist().cdf(-bias / sd)
    )
    return math.sqrt(max(bias**2 + sd**2 - mean_abs**2, 0.0))


def paired_power(n: int, diff: float, sd_d: float, sig: float = SIG) -> float:
    """Power of the two-sided paired t test at n items when designs differ by `diff` on average:
    the exact noncentral t, as statsmodels' TTestPower computes it, from scipy.special (the
    power line of every `judgelab plan` calls this; scipy.stats and statsmodels take seconds
    to import)."""
    from scipy.special import nctdtr, stdtrit

    if n < MIN_N:
        return 0.0
    if sd_d == 0:
        return 1.0 if diff != 0 else sig
    df, nc = n - 1, abs(diff) / sd_d * math.sqrt(n)
    crit = stdtrit(df, 1 - sig / 2)
    return float(1 - nctdtr(df, nc, crit) + nctdtr(df, nc, -crit))


def tost_power(
    n: int, sd_d: float, margin: float, true_diff: float = 0.0, sig: float = SIG
) -> float:
    """Power of the paired TOST at ±margin (tasks.equivalence) at n items: the chance that both
    one-sided tests reject, P(low) + P(high) − P(low or high), taken with P(low or high) = 1
    and noncentral t laws for each (close whenever the power is worth having; the exact
    value needs Owen's Q). scipy.special's t laws, as in paired_power."""
    from scipy.special import nctdtr, stdtrit

    if n < MIN_N:
        return 0.0
    if sd_d == 0:  # no spread: the rule gives a verdict from MIN_N_NO_SPREAD items only
        return 1.0 if abs(true_diff) < margin and n >= MIN_N_NO_SPREAD else 0.0
    se = sd_d / math.sqrt(n)
    df = n - 1
    crit = stdtrit(df, 1 - sig)
    low = 1 - nctdtr(df, (margin + true_diff) / se, crit)
    high = 1 - nctdtr(df, (margin - true_diff) / se, crit)
    return float(max(0.0, low + high - 1))


def smallest_n(power_at: Callable[[int], float], target: float) -> int | None:
    """The least n in [MIN_N, MAX_N] whose power reaches the target (power rises with n);
    None (not estimable) when none does: two designs that never disagree give McNemar no
    power at any n, and MAX_N printed as "worst 10,000,000 items" read as a result."""
    if power_at(MIN_N) >= target:
        return MIN_N
    lo, hi = MIN_N, MIN_N
    while power_at(hi) < target:
        if hi >= MAX_N:
            return None
        lo, hi = hi, min(MAX_N, hi * 2)
    while hi - lo > 1:  # power_at(lo) < target ≤ power_at(hi)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power_at(mid) >= target else (mid, hi)
    return hi


def n_for_power(diff: float, sd_d: float, power: float = POWER, sig: float = SIG) -> int | None:
    """Items for the paired t test to detect a mean difference `diff` with this power."""
    return smallest_n(lambda n: paired_power(n, diff, sd_d, sig), power)


def n_for_mcnemar(
    diff: float, discordant: float, power: float = POWER, sig: float = SIG
) -> int | None:
    """Items for McNemar's test to detect an accuracy difference `diff` with this power."""
    return smallest_n(lambda n: mcnemar_power(n, diff, discordant, sig), power)


def n_for_tost(
    sd_d: float, margin: float, power: float = POWER, true_diff: float = 0.0, sig: float = SIG
) -> int | None:
    """Items for TOST to show equivalence within ±margin with this power, at a true difference
    of `true_diff` (0: the designs are truly the same)."""
    return smallest_n(lambda n: tost_power(n, sd_d, margin, true_diff, sig), power)


def mcnemar_power(n: int, diff: float, discordant: float, sig: float = SIG) -> float:
    """Power of McNemar's test with continuity correction (tasks.accuracy.verdict_impact's
    mcnemar) at n items when two designs' accuracies differ by `diff` and a share `discordant`
    of items is right under one design only: b − c ≈ N(n·diff, n(discordant − diff²)),
    b + c ≈ n·discordant (Connor 1987), rejecting when |b − c| − 1 > z·√(b + c)."""
    diff = abs(diff)
    if n < MIN_N or discordant <= 0 or diff > discordant:
        return 0.0
    z = NormalDist().inv_cdf(1 - sig / 2)
    spread = math.sqrt(n * (discordant - diff**2))
    shift = n * diff - 1 - z * math.sqrt(n * discordant)
    if spread == 0:
        return 1.0 if shift > 0 else 0.0
    return NormalDist().cdf(shift / spread)


def smallest_diff(power_at: Callable[[float], float], target: float, upper: float) -> float | None:
    """The least difference in (0, upper] whose power reaches the target (power rises with the
    difference); None when even `upper` falls short."""
    if power_at(upper) < target:
        return None
    lo, hi = 0.0, upper
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if power_at(mid) >= target else (mid, hi)
    return hi


def detectable_diff(n: int, sd_d: float, power: float = POWER, sig: float = SIG) -> float | None:
    """The smallest mean difference the paired t test detects with this power at n items."""
    if sd_d == 0:
        return 0.0
    upper = 1.0
    while paired_power(n, upper, sd_d, sig) < power and upper < 1e6:
        upper *= 2
    return smallest_diff(lambda x: paired_power(n, x, sd_d, sig), power, upper)


def detectable_accuracy_diff(
    n: int, discordant: float, power: float = POWER, sig: float = SIG
) -> float | None:
    """The smallest accuracy difference McNemar's test detects with this power at n items (it
    cannot exceed the discordant share)."""
    return smallest_diff(lambda x: mcnemar_power(n, x, discordant, sig), power, discordant)


# ---- Krippendorff's α by simulation -------------------------------------------------------

# draw(m, rows, rng) → two (rows, m) arrays: judge and human scores of `rows` samples of m items
Draw = Callable[[int, int, np.random.Generator], tuple[np.ndarray, np.ndarray]]


def alphas(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Interval α of each row of two (rows, m) arrays, a and b as two coders."""
    from tasks.stats import alpha_two_coders

    shift = (a.mean() + b.mean()) / 2  # keeps the sums of squares from cancelling
    a, b = a - shift, b - shift
    m = np.full(a.shape[0], a.shape[1], dtype=float)
    return alpha_two_coders(
        m, ((a - b) ** 2).sum(axis=1), (a + b).sum(axis=1), (a**2 + b**2).sum(axis=1)
    )


def pilot_draw(judge: np.ndarray, human: np.ndarray) -> Draw:
    """Samples of m pilot items drawn with replacement (a bootstrap at another sample size)."""
    judge, human = np.asarray(judge, dtype=float), np.asarray(human, dtype=float)

    def draw(m: int, rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        idx = rng.integers(0, len(judge), size=(rows, m))
        return judge[idx], human[idx]

    return draw


def normal_draw(bias: float, sd: float, alpha: float) -> Draw:
    """Samples from a normal model with the stated bias, sd of judge − human and α: human
    h ~ N(0, s_h), judge = h + bias + N(0, sd), with s_h solved from
    α = 1 − (bias² + sd²) / (2·s_h² + sd² + bias²/2). No clipping to 1–7."""
    if not 0 < alpha < 1:
        raise ValueError(f"an assumed α must lie in (0, 1), got {alpha}")
    var_h = ((bias**2 + sd**2) / (1 - alpha) - sd**2 - bias**2 / 2) / 2
    s_h = math.sqrt(max(var_h, 0.0))

    def draw(m: int, rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        human = rng.normal(0.0, s_h, size=(rows, m))
        return human + bias + rng.normal(0.0, sd, size=(rows, m)), human

    return draw


def alpha_halfwidth(
    draw: Draw, m: int, rng: np.random.Generator, draws: int = ALPHA_DRAWS
) -> float:
    """Half the 2.5–97.5% range of α over `draws` simulated samples of m items: the expected
    half-width of the percentile 95% CI the tables report."""
    rows = max(1, SIM_BLOCK // m)
    values = np.concatenate(
        [alphas(*draw(m, min(rows, draws - start), rng)) for start in range(0, draws, rows)]
    )
    values = values[np.isfinite(values)]
    if values.size < draws / 2:  # most samples have no spread: α says nothing
        return math.nan
    lo, hi = np.quantile(values, [0.025, 0.975])
    return float(hi - lo) / 2


def n_for_alpha_halfwidth(
    draw: Draw, hw: float, rng: np.random.Generator, start: int = ALPHA_START
) -> int | None:
    """Items for a 95% CI half-width of hw on α: simulate at `start` items and scale as 1/√n,
    then simulate again at that answer (at most MAX_SIM_ITEMS) and scale once more; the second
    step removes most of the small-sample curvature. None when α is undefined in the samples."""
    if hw <= 0:
        raise ValueError(f"a target half-width must be positive, got {hw}")
    m = start
    for step in range(2):
        width = alpha_halfwidth(draw, m, rng)
        if not math.isfinite(width):
            return None
        n = m * (width / hw) ** 2
        nearer = int(min(MAX_SIM_ITEMS, max(10, round(n))))
        if step or nearer == m:
            break
        m = nearer
    return _items(n)


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


# ---- the drift canary -----------------------------------------------------------------------


def canary_sigma(noise_sd: float, repeats: int, n: int) -> float:
    """SD of a canary's mean shift from repeat noise alone: noise_sd·√(2/(R·n))."""
    return noise_sd * math.sqrt(2 / (repeats * n))


def canary_false_alarm(level: float = 0.95) -> float:
    """Chance that a judge without drift is flagged in one design and bucket: the shift's CI
    (half-width ≈ z·σ) must clear the noise band (z·σ), so |shift| > 2z·σ."""
    z = NormalDist().inv_cdf((1 + level) / 2)
    return 2 * (1 - NormalDist().cdf(2 * z))


CANARY_GRID = 256  # quantile points per estimated sd in canary_power (error < 3e-5)


def canary_power(n: int, shift: float, noise_sd: float, repeats: int, level: float = 0.95) -> float:
    """Chance that the drift rule (tasks/drift.py) flags a true mean shift at n items under
    normal repeat noise, exactly: the old 2z + z₀.₈ sizing put z for the CI's t and true sds
    for the two estimated ones, and its 23 items for 0.5 at sd 0.5 flag 77%, not 80%.

    The rule flags when |δ̂| > t·ŝ_d/√n + z·ŝ·√(2/(R·n)) (CI half-width plus noise band), with
    δ̂ ~ N(δ, σ²), σ = canary_sigma, and ŝ_d (n − 1 df) and ŝ (2n(R − 1) df) independent of δ̂
    and of each other: the power is Φ(δ/σ − t·u − z·w) + Φ(−δ/σ − t·u − z·w) averaged over
    u = ŝ_d/σ_d and w = ŝ/s (scaled χ, on a grid of their quantiles)."""
    from scipy.special import ndtr

    if n < MIN_N:
        return 0.0
    if noise_sd == 0:
        return 1.0 if shift != 0 else 0.0
    ratio = shift / canary_sigma(noise_sd, repeats, n)
    bar = _canary_bar(n, repeats, level)
    return float(np.mean(ndtr(ratio - bar) + ndtr(-ratio - bar)))


@functools.lru_cache(maxsize=16)
def _canary_bar(n: int, repeats: int, level: float) -> np.ndarray:
    """t·u + z·w of canary_power over its grid (cached: a search asks one n many times)."""
    from scipy import stats as sps

    q = (np.arange(CANARY_GRID) + 0.5) / CANARY_GRID
    dof = 2 * n * (repeats - 1)
    u = np.sqrt(sps.chi2.ppf(q, n - 1) / (n - 1))
    w = np.sqrt(sps.chi2.ppf(q, dof) / dof)
    t, z = sps.t.ppf((1 + level) / 2, n - 1), sps.norm.ppf((1 + level) / 2)
    return t * u[:, None] + z * w[None, :]


def canary_detectable_shift(
    n: int, noise_sd: float, repeats: int, level: float = 0.95, power: float = POWER
) -> float | None:
    """The smallest mean shift (1–7) a canary of n items flags with this power (canary_power);
    None with fewer than 2 items."""
    if n < MIN_N:
        return None
    if noise_sd == 0:
        return 0.0
    from scipy.optimize import brentq

    def short(x: float) -> float:  # power rises with the shift: one root
        return canary_power(n, x, noise_sd, repeats, level) - power

    upper = canary_sigma(noise_sd, repeats, n)
    while short(upper) < 0:
        upper *= 2
    return float(brentq(short, 0.0, upper, xtol=1e-6))


def canary_size(
    shift: float, noise_sd: float, repeats: int, level: float = 0.95, power: float = POWER
) -> int | None:
    """Canary items needed to flag a mean shift of `shift` (1–7) with this power: the least n
    whose canary_power reaches it (None: not within MAX_N items)."""
    return smallest_n(lambda n: canary_power(n, shift, noise_sd, repeats, level), power)


def canary_lines(
    study: Study, designs_per_judge: dict[str, int], noise_sd: float | None, n_items: int
) -> list[str]:
    """What the study's canary costs per bucket and what it can see (ratings), for the CLI."""
    c = study.canary
    n = min(c.size, n_items) if n_items else c.size
    calls = {j: n * c.repeats * d for j, d in designs_per_judge.items()}
    lines = [
        f"canary: {n} items × {c.repeats} repeats per design, every {c.every}: "
        + ", ".join(f"{j} {k:,} calls" for j, k in calls.items())
        + f" per bucket ({sum(calls.values()):,} in all)"
    ]
    if StudyType.named(study.type).drift_statistic == "mean_shift":
        sd = 1.0 if noise_sd is None else noise_sd
        basis = "assumed; no canary batch yet" if noise_sd is None else "from its last batches"
        shift = canary_detectable_shift(n, sd, c.repeats, c.level)
        size = canary_size(0.25, sd, c.repeats, c.level)
        lines.append(
            "canary: flags "
            + ("no shift (fewer than 2 items)" if shift is None else f"a mean shift ≥ {shift:.2f}")
            + f" on 1–7 with 80% power at repeat noise sd {sd:.2f} ({basis}); "
            + ("0.25 not estimable" if size is None else f"{size} items would catch 0.25")
            + "; a design without drift is flagged in "
            f"{canary_false_alarm(c.level):.1e} of buckets"
        )
    return lines
