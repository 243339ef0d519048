"""How many items a study needs: 95% CI half-widths per design, power to tell two designs apart,
and power of the equivalence test, from pilot data (the study's stored tables) or stated
assumptions: the closed forms and simulations. Pure: numbers in, numbers out. A study's plan and
its printed lines are tasks/power_plan.py; the canary's power is tasks/canary_power.py.

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

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from tasks import cuts
from tasks.equivalence import MIN_N_NO_SPREAD

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
