"""Two one-sided tests (TOST) for paired differences: does a design choice *not* matter?

"Not significant" is not "no difference". TOST asks whether the mean paired difference lies
inside ±margin: equivalent when both one-sided t tests reject at 5% (the 90% CI of the mean
difference lies inside the margin), "no" when the 90% CI lies wholly beyond the margin (a
difference larger than the margin is shown), "inconclusive" otherwise, including when fewer
than two items are shared. Vectorised over many pairs from their sums; tests check p against
statsmodels' `ttost_paired`.

Every difference equal (no spread) makes the t tests certain on any n: two designs agreeing
on 2 items would be "equivalent". With no spread a verdict needs `MIN_N_NO_SPREAD` items (by
the rule of three, 30 agreeing items bound the share that would differ below 10% at 95%);
fewer stay "inconclusive". p keeps the t test's value, as statsmodels gives it. "No spread" is
judged relative to Σd² (SPREAD_RTOL), not as exact zero: differences of 0.15 on 3 items (1.15 − 1,
4.15 − 4) left Σd² − n·mean² at 1e-17, not 0, and were "equivalent" while 0.10 was not.
"""

from __future__ import annotations

import numpy as np

from tasks import cuts

ALPHA = 0.05
MIN_N_NO_SPREAD = 30
SPREAD_RTOL = 1e-12  # Σ(d − mean)² at most this share of Σd² is rounding, not spread


def tost(n: np.ndarray, sum_d: np.ndarray, sum_d2: np.ndarray, margin: float) -> dict:
    """Per pair from n, Σd and Σd² of its paired differences: mean, the 90% CI, the TOST p
    (max of the two one-sided p) and the verdict "yes" / "no" / "inconclusive"."""
    from scipy import stats as sps  # here: `judgelab plan` imports this module for a constant

    n = np.asarray(n, dtype=float)
    sum_d, sum_d2 = np.asarray(sum_d, dtype=float), np.asarray(sum_d2, dtype=float)
    ok = n >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, sum_d / n, np.nan)
        ss = sum_d2 - n * mean**2
        ss = np.where(ss > SPREAD_RTOL * sum_d2, ss, 0.0)  # rounding residue of equal d's
        var = np.where(ok, ss / (n - 1), np.nan)
        se = np.sqrt(var / n)
        df = np.where(ok, n - 1, np.nan)
        # se = 0 (every difference equal): the t statistics are ±inf and the tests decide
        t_low = np.where(se > 0, (mean + margin) / se, np.sign(mean + margin) * np.inf)
        t_upp = np.where(se > 0, (mean - margin) / se, np.sign(mean - margin) * np.inf)
        p = np.maximum(sps.t.sf(t_low, df), sps.t.cdf(t_upp, df))
        half = sps.t.ppf(1 - ALPHA, df) * se
    lo, hi = mean - half, mean + half
    beyond = cuts.above(lo, margin) | cuts.below(hi, -margin)
    equivalent = cuts.below(p, ALPHA)
    decidable = ok & ((se > 0) | (n >= MIN_N_NO_SPREAD))
    verdict = np.where(
        ~decidable,
        "inconclusive",
        np.where(equivalent, "yes", np.where(beyond, "no", "inconclusive")),
    )
    return {"mean": mean, "lo": lo, "hi": hi, "p": np.where(ok, p, np.nan), "verdict": verdict}
