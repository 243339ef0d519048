"""The drift canary's power: its false-alarm rate, its chance to flag a true mean shift, and
the items it needs (tasks/drift.py's rule; tasks/power.py's conventions)."""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np

from judgelab.study import Study
from tasks.power import MIN_N, POWER, smallest_n
from tasks.study_types import StudyType

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
