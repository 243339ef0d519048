"""Judge-corrected estimates of a human-scale mean from judge scores on every item and human
labels on a random subset: prediction-powered inference (PPI), Rogan–Gladen for 0/1 verdicts,
and how many human labels a ±x interval needs. Pure: arrays in, numbers out.

The PPI interval is ppi_py's `ppi_mean_ci` (Angelopoulos et al. 2023, "Prediction-powered
inference", Science; the power-tuned λ of PPI++, Angelopoulos, Duchi & Zrnic 2023), written out
here because ppi-python pulls numba and llvmlite (a 60 MB LLVM wheel, 180 MB unpacked) and gdown
for a closed form of a few lines. ppi-python is a dev dependency instead: tests/test_ppi.py
checks this against ppi_py to 1e-9 (several sizes, label shares, scales and λ).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

LEVEL = 0.95
Z = NormalDist().inv_cdf(0.5 + LEVEL / 2)


@dataclass(frozen=True)
class Interval:
    estimate: float | None
    lo: float | None
    hi: float | None

    @property
    def width(self) -> float | None:
        return None if self.lo is None or self.hi is None else self.hi - self.lo


NONE = Interval(None, None, None)


def mean_ci(x: np.ndarray) -> Interval:
    """The classical (CLT) 95% interval of a mean: mean ± z·sd/√n, sd with n − 1. Judge-only
    (every item's judge score) and human-only (the labelled items) estimates use it."""
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return Interval(float(x.mean()) if x.size else None, None, None)
    m, se = float(x.mean()), float(x.std(ddof=1)) / math.sqrt(x.size)
    return Interval(m, m - Z * se, m + Z * se)


def ppi_lambda(y: np.ndarray, yhat: np.ndarray, yhat_unlabeled: np.ndarray) -> float:
    """PPI++'s power-tuning λ for a mean, clipped to [0, 1] (ppi_py `_calc_lam_glm`, one
    coordinate): Cov(Y, Ŷ) on the labelled items over (1 + n/N)·Var(Ŷ) on all items. λ = 1 is
    plain PPI, λ = 0 the human-only interval; a judge unrelated to the humans gets λ near 0."""
    n, big_n = y.size, yhat_unlabeled.size
    cov = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    var = float(np.var(np.concatenate([yhat, yhat_unlabeled]), ddof=1))
    if var == 0:
        return 0.0
    return min(1.0, max(0.0, cov / ((1 + n / big_n) * var)))


def ppi_mean_ci(
    y: np.ndarray, yhat: np.ndarray, yhat_unlabeled: np.ndarray, lam: float | None = None
) -> tuple[Interval, float]:
    """The prediction-powered 95% interval for the human-scale mean, and its λ.

    y, yhat: human label and judge score on the n labelled items; yhat_unlabeled: the judge's
    scores on the N other items. Estimate λ·mean(Ŷ_unlabelled) + mean(Y − λ·Ŷ) (the judge's mean
    plus the mean judge–human error measured on the labelled items); variance λ²·Var(Ŷ_u)/N +
    Var(Y − λŶ)/n (ddof 0, as ppi_py). `lam` None: power-tuned (ppi_py's default)."""
    y, yhat, yu = (np.asarray(a, dtype=float) for a in (y, yhat, yhat_unlabeled))
    if y.size < 2 or yu.size < 2:
        return NONE, math.nan
    lam = ppi_lambda(y, yhat, yu) if lam is None else lam
    est = lam * float(yu.mean()) + float(np.mean(y - lam * yhat))
    se = math.sqrt((lam**2) * float(yu.var()) / yu.size + float(np.var(y - lam * yhat)) / y.size)
    return Interval(est, est - Z * se, est + Z * se), lam


def rogan_gladen(rate: float, sensitivity: float, specificity: float) -> float | None:
    """The true TRUE-rate behind a judge's TRUE-rate, given the judge's sensitivity
    P(TRUE | truly TRUE) and specificity P(FALSE | truly FALSE): (rate + spec − 1) /
    (sens + spec − 1), clipped to [0, 1]. None when sens + spec ≤ 1 (the judge tells the classes
    apart no better than chance, so nothing can be corrected)."""
    youden = sensitivity + specificity - 1
    if not youden > 0:
        return None
    return min(1.0, max(0.0, (rate + specificity - 1) / youden))


def _rg_of(verdicts: np.ndarray, y: np.ndarray, yhat: np.ndarray) -> float | None:
    pos, neg = y == 1, y == 0
    if not pos.any() or not neg.any():
        return None
    return rogan_gladen(
        float(verdicts.mean()), float(yhat[pos].mean()), float(1 - yhat[neg].mean())
    )


def rogan_gladen_ci(
    verdicts: np.ndarray, y: np.ndarray, yhat: np.ndarray, n_boot: int, rng: np.random.Generator
) -> Interval:
    """Rogan–Gladen on 0/1 arrays: the judge's TRUE-rate over all its `verdicts`, sensitivity
    and specificity from the labelled items' truth `y` and verdict `yhat`. The 95% interval is
    a percentile bootstrap that resamples the labelled items and all items independently (the
    two sources of error); resamples with a class missing or sens + spec ≤ 1 are left out.
    None where the labelled items lack a class or n_boot is 0."""
    verdicts, y, yhat = (np.asarray(a, dtype=float) for a in (verdicts, y, yhat))
    est = _rg_of(verdicts, y, yhat) if verdicts.size and y.size else None
    if est is None or n_boot <= 0:
        return Interval(est, None, None)
    rate = rng.binomial(verdicts.size, verdicts.mean(), n_boot) / verdicts.size
    draw = rng.integers(0, y.size, size=(n_boot, y.size))
    yb, hb = y[draw], yhat[draw]
    n_pos, n_neg = yb.sum(1), (1 - yb).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sens = (yb * hb).sum(1) / n_pos
        spec = ((1 - yb) * (1 - hb)).sum(1) / n_neg
        youden = sens + spec - 1
        corrected = np.clip((rate + spec - 1) / youden, 0, 1)
    kept = corrected[(n_pos > 0) & (n_neg > 0) & (youden > 0)]
    if kept.size < 2:
        return Interval(est, None, None)
    lo, hi = np.quantile(kept, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return Interval(est, float(lo), float(hi))


def labels_saved(n_labelled: int, human_width: float | None, ppi_width: float | None):
    """(width ratio, effective labels): the human-only interval's width over the PPI one's,
    and n·ratio², the human labels a human-only interval would need to be as narrow as the PPI
    interval (widths shrink as 1/√n). Labels saved = effective − n. None without both widths."""
    if not human_width or not ppi_width:
        return None, None
    ratio = human_width / ppi_width
    return ratio, n_labelled * ratio**2


def ppi_halfwidth(n: int, n_total: int, sd_judge: float, sd_resid: float) -> float:
    """Plain PPI's (λ = 1) 95% half-width with n labelled items out of n_total judged ones:
    z·√(sd_judge²/(n_total − n) + sd_resid²/n); sd_resid is the SD of human − judge."""
    return Z * math.sqrt(sd_judge**2 / (n_total - n) + sd_resid**2 / n)


def n_labels_for_halfwidth(
    halfwidth: float,
    n_total: int,
    sd_judge: float,
    sd_resid: float,
    sd_human: float | None = None,
) -> int | None:
    """The fewest human labels, of n_total judged items, for a PPI interval of ±halfwidth on
    the corrected mean. For a weight λ the variance is a/(N − n) + b/n with a = λ²·sd_judge²
    and b = Var(Y − λŶ); a/(N − n) + b/n = c, c = (halfwidth/z)², is c·n² − (cN − a + b)·n +
    bN = 0, and n is its smaller root, rounded up. With sd_human (the labels' SD) b is known
    for every λ (Cov(Y, Ŷ) from the three SDs) and the count is the least over λ on a grid of
    [0, 1], as the power-tuned interval picks λ; without it, plain PPI (λ = 1, b =
    sd_resid²). None when no n < N reaches it (the judge's own sampling error over the
    unlabelled items is already wider, and the labels alone would need them all)."""
    if n_total < 3 or halfwidth <= 0:
        return None
    c = (halfwidth / Z) ** 2
    if sd_human is None:
        return _smaller_root(sd_judge**2, sd_resid**2, c, n_total)
    cov = (sd_human**2 + sd_judge**2 - sd_resid**2) / 2
    found = [
        _smaller_root(
            (lam * sd_judge) ** 2,
            max(0.0, sd_human**2 - 2 * lam * cov + (lam * sd_judge) ** 2),
            c,
            n_total,
        )
        for lam in np.linspace(0, 1, 101)
    ]
    found = [n for n in found if n is not None]
    return min(found) if found else None


def _smaller_root(a: float, b: float, c: float, big_n: int) -> int | None:
    if b == 0:
        return 2
    q = c * big_n - a + b
    disc = q * q - 4 * c * b * big_n
    if q <= 0 or disc < 0:
        return None
    n = max(2, math.ceil((q - math.sqrt(disc)) / (2 * c) - 1e-9))
    return n if n < big_n else None
