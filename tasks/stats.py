"""Statistics the study types share: Wilcoxon signed-rank with rank-biserial, Krippendorff's α,
percentile-bootstrap 95% intervals for bias, MAE and α, seeded generators per design. A rating
study's per-design metrics are tasks/rating/metrics.py."""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import scipy.stats

CI_LEVEL = 0.95
CI_COLUMNS = ("bias_lo", "bias_hi", "mae_lo", "mae_hi", "alpha_lo", "alpha_hi")
BOOT_BLOCK = 1 << 21  # index-matrix entries drawn at once (bounds the bootstrap's memory)
BOOT_COUNT_CELLS = 1 << 16  # resamples × units counted at once (a cache-sized count matrix)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """OpenBLAS on one thread while the block (or the decorated function) runs. The analysis'
    matrices are small (the bootstrap's 1,000 × 500 by 500 × 6 products, variance's ~100 ×
    100 eigh): a second thread gains nothing, and when the two cores are busy its spinning
    costs 20× (measured here under load: a product 7 ms instead of 0.35 ms of CPU; the
    variance stage 0.85 s instead of 0.05 s)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _finite(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


# The signed-rank test, by one explicit rule (scipy's method="auto" would pick a permutation
# test for ≤ 13 pairs with ties or zeros: thousands of resamples per test, and a p value that
# follows no stated convention)
EXACT_MAX_N = 50  # the exact null distribution up to this many differences (scipy's "auto")
DIFF_DECIMALS = 9  # differences are rounded first, so float noise neither ties nor unties them


@functools.cache
def _exact_tails(n: int) -> tuple[np.ndarray, np.ndarray]:
    """P(R+ ≤ k) and P(R+ ≥ k) for k = 0 … n(n+1)/2 under the null: R+ is a sum of a random
    subset of the ranks 1 … n (2ⁿ equally likely subsets). Exact counts: below 2⁵³ for n ≤ 50."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for rank in range(1, n + 1):
        counts[rank:] = counts[rank:] + counts[:-rank].copy()
    pmf = counts / 2.0**n
    return np.cumsum(pmf), np.cumsum(pmf[::-1])[::-1]


def _signed_rank_sums(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column of d (NaN = absent; zeros already NaN): R+ and R− (sums of the average ranks
    of |d| over the positive and the negative differences) and Σ over tie groups of t³ − t.

    One sort per column; everything else happens in sorted order (a rank and its tie group
    are never scattered back to the items): NaN sorts last and ties nothing. Ranks are
    multiples of ½, so the sums are exact whatever the order of summation."""
    a = np.abs(d)
    n = a.shape[0]
    order = np.argsort(a, axis=0, kind="stable")
    s = np.take_along_axis(a, order, axis=0)
    positive = np.take_along_axis(d > 0, order, axis=0)
    present = ~np.isnan(s)
    pos = np.arange(n, dtype=float)[:, None]
    new = np.ones(s.shape, dtype=bool)
    new[1:] = s[1:] != s[:-1]
    last = np.ones(s.shape, dtype=bool)
    last[:-1] = new[1:]
    start = np.maximum.accumulate(np.where(new, pos, 0.0), axis=0)
    end = np.flip(np.minimum.accumulate(np.flip(np.where(last, pos, n), axis=0), axis=0), axis=0)
    rank = (start + end) / 2 + 1
    r_plus = np.where(present & positive, rank, 0.0).sum(axis=0)
    r_minus = np.where(present & ~positive, rank, 0.0).sum(axis=0)
    ties = end - start + 1
    tie_term = np.where(present, ties**2 - 1, 0.0).sum(axis=0)  # Σ_groups t³ − t = Σ_items t² − 1
    return r_plus, r_minus, tie_term


def signed_rank(d: np.ndarray) -> dict[str, np.ndarray]:
    """Two-sided Wilcoxon signed-rank test per column of paired differences d (pairs along
    axis 0, NaN = no pair), vectorised over columns. The rule, for every caller:

    - differences are rounded to 9 decimals, then zero differences are dropped (Wilcoxon's
      treatment; scipy's and pingouin's default zero_method "wilcox"), leaving n;
    - exact null distribution when no difference was zero, none of the |d| are tied and
      n ≤ 50 (scipy's "exact");
    - otherwise the normal approximation with tie correction and continuity correction
      (scipy's method="asymptotic", correction=True).

    This is scipy's method="auto" (which pingouin 0.7 uses) except for ≤ 13 pairs with ties or
    zeros, where "auto" runs a permutation test: here they get the normal approximation.
    Columns with fewer than 2 pairs, or no non-zero difference, get NaN. Returns n, r_plus,
    r_minus, p and exact (whether the exact distribution gave p), each one value per column.
    """
    d = np.round(np.asarray(d, dtype=float), DIFF_DECIMALS)
    if d.ndim == 1:
        d = d[:, None]
    pairs = (~np.isnan(d)).sum(axis=0)
    zeros = (d == 0).sum(axis=0)
    r_plus, r_minus, tie_term = _signed_rank_sums(np.where(d == 0, np.nan, d))
    n = pairs - zeros
    tested = (pairs >= 2) & (n >= 1)
    exact = tested & (zeros == 0) & (tie_term == 0) & (n <= EXACT_MAX_N)
    p = np.full(d.shape[1], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = n * (n + 1) / 4
        se = np.sqrt((n * (n + 1) * (2 * n + 1) - tie_term / 2) / 24)
        z = (r_plus - mean) / se
        z = z - np.sign(z) * 0.5 / se
        asymptotic = tested & ~exact
        p[asymptotic] = np.minimum(1.0, 2 * scipy.stats.norm.sf(np.abs(z[asymptotic])))
    for size in np.unique(n[exact]):
        cols = np.flatnonzero(exact & (n == size))
        cdf, sf = _exact_tails(int(size))
        k = np.rint(r_plus[cols]).astype(int)
        p[cols] = np.minimum(1.0, 2 * np.minimum(cdf[k], sf[k]))
    return {"n": n, "r_plus": r_plus, "r_minus": r_minus, "p": p, "exact": exact}


def wilcoxon(
    judge: np.ndarray, human: np.ndarray
) -> tuple[float | None, float | None, float | None]:
    """(W, p, rank-biserial r) of the paired two-sided signed-rank test; None where undefined.

    p follows `signed_rank`'s rule (exact distribution for ≤ 50 differences, none zero or tied,
    else the normal approximation with tie and continuity corrections), the one every table
    uses; W = min(R+, R−) and the matched-pairs rank-biserial of Kerby 2014 over the non-zero
    differences (positive when the judge rates higher) are what `pingouin.wilcoxon` reports.
    pingouin itself is not called: it also builds the common-language effect size from an
    n × n matrix (1.1 GB at 8,000 items; the full VADER set has 23,703).
    """
    if len(judge) < 2:
        return None, None, None
    d = np.asarray(judge, dtype=float) - np.asarray(human, dtype=float)
    return wilcoxon_of(signed_rank(d), 0, len(d))


def wilcoxon_of(
    test: dict[str, np.ndarray], col: int, n_pairs: int
) -> tuple[float | None, float | None, float | None]:
    """`wilcoxon`'s (W, p, rank-biserial) from column col of a signed_rank result."""
    if n_pairs < 2:
        return None, None, None
    r_plus, r_minus = float(test["r_plus"][col]), float(test["r_minus"][col])
    rbc = (r_plus - r_minus) / (r_plus + r_minus) if test["n"][col] else None
    return _finite(min(r_plus, r_minus)), _finite(test["p"][col]), _finite(rbc)


def interval_alpha(data: np.ndarray) -> float | None:
    """Krippendorff's α, interval level, for a coders × units matrix (NaN = missing).

    The `krippendorff` package builds a units × values × values tensor: with continuous
    ratings (human means take thousands of distinct values) that is tens of gigabytes. For
    the interval metric both disagreements reduce to sums of squares, so this is O(n);
    tests check it against the package (which reproduces the textbook values) on small data.

    Both sums are taken over deviations from a mean, never as Σv² − (Σv)²/k: that difference
    cancels, and a judge equal to the human means up to rounding got α = 1 + 7e-16, which the
    schema rightly refuses. So observed ≥ 0 and α ≤ 1 exactly; α > −1 holds as math does
    (observed < 2·expected).
    """
    data = np.asarray(data, dtype=float)
    m = np.sum(~np.isnan(data), axis=0)
    pairable = data[:, m >= 2]
    m = m[m >= 2]
    n = m.sum()
    if n < 2:
        return None
    s1, s2 = np.nansum(pairable, axis=0), np.nansum(pairable**2, axis=0)
    values = pairable[~np.isnan(pairable)]
    # Σ over ordered pairs i≠j within a set of size k of (v_i − v_j)² = 2k·Σ(v − v̄)²
    within = np.nansum((pairable - s1 / m) ** 2, axis=0)
    observed = np.sum(2 * m * within / (m - 1)) / n
    expected = 2 * n * np.sum((values - values.mean()) ** 2) / (n * (n - 1))
    # one distinct value overall: α is undefined (expected is 0 up to rounding of the sums)
    if expected <= 1e-12 * s2.sum() / n:
        return None
    return _finite(1 - observed / expected)


def kripp_alpha(judge: np.ndarray, human: np.ndarray) -> float | None:
    """Interval α between the judge and the human mean as two coders; None if undefined."""
    if len(judge) < 2:
        return None
    return interval_alpha(np.vstack([judge, human]))


def alpha_two_coders(
    n: np.ndarray, sq_diff: np.ndarray, s1: np.ndarray, s2: np.ndarray
) -> np.ndarray:
    """Interval α of two coders who both rated all n units, from sums over the units:
    Σ(a−b)², Σ(a+b) and Σ(a²+b²). Works elementwise, so one call scores every resample.

    With two values per unit, interval_alpha's observed disagreement is Σ(a−b)²/n and the
    expected one is (2N·Σv² − 2(Σv)²)/(N(N−1)) over the N = 2n values. NaN where α is
    undefined (no spread among the values); shift the values towards 0 first (α does not
    change) so the sums of squares do not cancel.
    """
    n, sq_diff, s1, s2 = (np.asarray(x, dtype=float) for x in (n, sq_diff, s1, s2))
    big_n = 2 * n
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = (2 * big_n * s2 - 2 * s1**2) / (big_n * (big_n - 1))
        alpha = 1 - (sq_diff / n) / expected
    # all values equal: expected is 0 up to rounding of the sums
    return np.where(expected > 1e-12 * s2 / big_n, alpha, np.nan)


def design_rng(seed: int, key: Sequence[str]) -> np.random.Generator:
    """A generator fixed by the seed and the key (a design's names) alone, so a design's
    intervals do not depend on which other designs ran or in what order. sha256, not hash():
    Python salts string hashes per process."""
    digest = hashlib.sha256(json.dumps([seed, *key]).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def readout_key(design: Sequence[str]) -> tuple[str, ...]:
    """A design's names ending in its readout → the key its generator is seeded with: the
    "answer" readout keeps the key it had before readouts existed, so its intervals do not
    move when a study adds the expected score."""
    *names, readout = design
    return tuple(names) if readout == "answer" else tuple(design)


def resample_stats(
    a: np.ndarray, b: np.ndarray, unit: np.ndarray, n_boot: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bias mean(a − b), MAE and interval α (a, b as two coders) of n_boot resamples that draw
    units with replacement; every pair of a drawn unit comes along (a cluster bootstrap when
    a unit holds several pairs). α is NaN in a resample without spread.

    Vectorised: an n_boot × units index matrix becomes a count matrix, and counts @ per-unit
    sums gives each resample's sums, from which the three follow in closed form. The matrix
    is drawn in blocks of at most BOOT_BLOCK entries (one block for 1,000 × 1,000), so all
    of VADER (24k items) does not need gigabytes.
    """
    _, codes = np.unique(np.asarray(unit), return_inverse=True)
    k = int(codes.max()) + 1
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    shift = (a.mean() + b.mean()) / 2
    a, b = a - shift, b - shift
    d = a - b
    columns = (np.ones_like(d), d, np.abs(d), d**2, a + b, a**2 + b**2)
    sums = np.column_stack([np.bincount(codes, weights=c, minlength=k) for c in columns])
    n, s_d, s_abs, s_d2, s1, s2 = cluster_resampled_sums(sums, n_boot, rng).T
    return s_d / n, s_abs / n, alpha_two_coders(n, s_d2, s1, s2)


def cluster_resampled_sums(sums: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """n_boot × columns: row r holds the column sums of `sums` (one row per unit) over
    resample r, which draws units with replacement (a cluster bootstrap: a drawn unit brings
    all its observations). Drawn in blocks of at most BOOT_BLOCK index entries."""
    k = sums.shape[0]
    rows = max(1, BOOT_BLOCK // k)
    blocks = [
        _resampled_sums(sums, rng.integers(0, k, size=(min(rows, n_boot - start), k)))
        for start in range(0, n_boot, rows)
    ]
    return np.concatenate(blocks)


def _resampled_sums(sums: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Row r: the column sums of `sums` over the units drawn in idx[r], with repeats: a count
    matrix per few rows (BOOT_COUNT_CELLS entries, so it stays in cache: 3–6× faster than one
    count matrix for the whole block, measured at 500–24,000 units), times `sums`."""
    r, k = idx.shape
    step = max(1, BOOT_COUNT_CELLS // k)
    offsets = k * np.arange(min(step, r))[:, None]
    out = np.empty((r, sums.shape[1]))
    for lo in range(0, r, step):
        part = idx[lo : lo + step]
        m = part.shape[0]
        counts = np.bincount((part + offsets[:m]).ravel(), minlength=m * k).reshape(m, k)
        out[lo : lo + m] = counts.astype(float) @ sums
    return out


def bootstrap_ci(
    a: np.ndarray, b: np.ndarray, unit: np.ndarray, n_boot: int, rng: np.random.Generator
) -> dict[str, float | None]:
    """Percentile 95% intervals of bias, MAE and α over resamples of units (resample_stats);
    all None if n_boot is 0 or there are fewer than 2 units."""
    if n_boot <= 0 or np.unique(np.asarray(unit)).size < 2:
        return dict.fromkeys(CI_COLUMNS)
    bias, mae, alpha = resample_stats(a, b, unit, n_boot, rng)
    q = [(1 - CI_LEVEL) / 2, (1 + CI_LEVEL) / 2]
    bias_lo, bias_hi = np.quantile(bias, q)
    mae_lo, mae_hi = np.quantile(mae, q)
    # a resample without spread has no α; the interval is over the resamples that have one
    alpha_lo, alpha_hi = np.nanquantile(alpha, q) if np.isfinite(alpha).any() else (None, None)
    values = (bias_lo, bias_hi, mae_lo, mae_hi, alpha_lo, alpha_hi)
    return {c: _finite(v) for c, v in zip(CI_COLUMNS, values, strict=True)}
