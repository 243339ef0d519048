"""Calibration of a judge's probability of a binary event (an accuracy verdict's TRUE, a pairwise
answer A) against the truth, per design: Brier score, expected calibration error (ECE) with a
bootstrap CI and the ECE a calibrated judge would show, and the reliability diagram's bins.
Pure Polars and NumPy; the study types build the calls (tasks/<type>/calibration.py).

Definitions (the scored calls of a design: answered, with a distribution and a truth):

* **P(event)** (`event_probability`): the stored distribution over the scale's values
  (`probs`, JSON {"<value>": p}), normalised over the scale's categories: P(TRUE) =
  p(TRUE) / (p(FALSE) + p(TRUE)); P(A) = p(A) / (p(A) + p(B) + p(tie)), so the mass a
  pairwise judge puts on a tie counts against A. Keys are matched to categories as the
  parser matches answers (case-insensitive, with or without JSON quotes); a key off the
  grid is ignored, a category without a key has p = 0. No distribution, or none on the
  grid (all zero): no P, and the call is counted in n_no_probs, never scored.
* **Brier**: mean (P − y)² over the scored calls (y = 1 when the event is true).
* **Bins**: N_BINS equal-width bins of P on [0, 1], a value on an inner edge in the lower bin
  (scikit-learn's `calibration_curve(strategy="uniform")`); per non-empty bin its calls,
  mean P and observed frequency of the event: the reliability diagram.
* **ECE**: Σ_bins (n_b / N) · |mean P_b − observed_b| = Σ_b |Σ P − Σ y| / N.
* **ece_lo / ece_hi**: percentile 95% interval over `n_boot` resamples of units (items; a
  pair with both its orders) drawn with replacement, so repeats and orders of one unit move
  together. ECE is biased upward at small n (each bin's noise adds to it), so the interval
  never reaches 0, even for a perfectly calibrated judge.
* **ece_null_hi**: the 95th percentile of the ECE of a judge that is calibrated by
  construction, with the same probabilities: y drawn as Bernoulli(P) `n_boot` times
  ("consistency resampling", Bröcker & Smith 2007), the calls of a unit sharing one truth
  (`calibrated_ece`). An ECE above it is more than the binning noise of this many items;
  `miscalibrated` says so.

Every resample comes from `design_rng(seed, design)`, so a design's intervals do not depend
on which other designs ran.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import polars as pl

from schemas.calibration import Calibration
from schemas.calibration_bins import CalibrationBins
from schemas.validate import validate
from tasks.stats import BOOT_BLOCK, CI_LEVEL, cluster_resampled_sums, design_rng

N_BINS = 10
DESIGN = ["study", "judge", "model", "prompt_level", "reasoning_effort"]
# what a study type hands over: one row per planned call of a design
# `flipped`: the call's event is the complement of its unit's truth (pairwise: b shown first)
CALL_COLUMNS = [*DESIGN, "unit", "flipped", "status", "p", "y"]


def _category(key: str, categories: dict[str, int]) -> int | None:
    """The index of the category a probs key names (quoted or not, any case), else None."""
    try:
        text = json.loads(key)
    except ValueError:
        text = key
    return categories.get(str(text).strip().upper())


def _one(probs: str | None, categories: dict[str, int], event: int) -> float | None:
    if probs is None:
        return None
    mass = [0.0] * len(categories)
    for key, p in json.loads(probs).items():
        i = _category(key, categories)
        if i is not None and p is not None:
            mass[i] += float(p)
    total = sum(mass)
    return mass[event] / total if total > 0 else None


def event_probability(probs: pl.Series, categories: Sequence[str], event: str) -> pl.Series:
    """Each call's P(event) from its stored distribution (module docstring), null without one."""
    index = {c.upper(): i for i, c in enumerate(categories)}
    target = index[event.upper()]
    values = [_one(p, index, target) for p in probs.to_list()]
    return pl.Series("p", values, dtype=pl.Float64)


def bin_ids(p: np.ndarray, n_bins: int = N_BINS) -> np.ndarray:
    """The equal-width bin of each probability, as scikit-learn's calibration_curve bins it."""
    return np.searchsorted(np.linspace(0.0, 1.0, n_bins + 1)[1:-1], p)


def brier(p: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((np.asarray(p, float) - np.asarray(y, float)) ** 2))


def ece(p: np.ndarray, y: np.ndarray, n_bins: int = N_BINS) -> float:
    """Expected calibration error over equal-width bins (module docstring)."""
    p, y = np.asarray(p, float), np.asarray(y, float)
    bins = bin_ids(p, n_bins)
    gap = np.bincount(bins, weights=p - y, minlength=n_bins)
    return float(np.abs(gap).sum() / p.size)


def reliability_bins(p: np.ndarray, y: np.ndarray, n_bins: int = N_BINS) -> pl.DataFrame:
    """The non-empty bins: bin, its edges, calls, mean P and observed frequency."""
    p, y = np.asarray(p, float), np.asarray(y, float)
    bins = bin_ids(p, n_bins)
    n = np.bincount(bins, minlength=n_bins)
    sum_p = np.bincount(bins, weights=p, minlength=n_bins)
    sum_y = np.bincount(bins, weights=y, minlength=n_bins)
    full = n > 0
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    return pl.DataFrame(
        {
            "bin": np.arange(n_bins)[full],
            "bin_lo": edges[:-1][full],
            "bin_hi": edges[1:][full],
            "n": n[full],
            "mean_p": sum_p[full] / n[full],
            "observed": sum_y[full] / n[full],
        },
        schema={
            "bin": pl.Int64,
            "bin_lo": pl.Float64,
            "bin_hi": pl.Float64,
            "n": pl.Int64,
            "mean_p": pl.Float64,
            "observed": pl.Float64,
        },
    )


def bootstrap_ece(
    p: np.ndarray,
    y: np.ndarray,
    unit: np.ndarray,
    n_boot: int,
    rng: np.random.Generator,
    n_bins: int = N_BINS,
) -> np.ndarray:
    """ECE of n_boot resamples of units (all calls of a drawn unit come along): per unit and
    bin the calls and Σ(P − y), resampled by count matrices (tasks/stats.py)."""
    p, y = np.asarray(p, float), np.asarray(y, float)
    _, codes = np.unique(np.asarray(unit), return_inverse=True)
    k = int(codes.max()) + 1
    cell = codes * n_bins + bin_ids(p, n_bins)
    n = np.bincount(cell, minlength=k * n_bins).reshape(k, n_bins)
    gap = np.bincount(cell, weights=p - y, minlength=k * n_bins).reshape(k, n_bins)
    sums = cluster_resampled_sums(np.hstack([n.sum(1, keepdims=True), gap]), n_boot, rng)
    return np.abs(sums[:, 1:]).sum(1) / sums[:, 0]


def calibrated_ece(
    p: np.ndarray,
    unit: np.ndarray,
    flipped: np.ndarray,
    n_boot: int,
    rng: np.random.Generator,
    n_bins: int = N_BINS,
) -> np.ndarray:
    """ECE of n_boot samples of a judge calibrated by construction, the probabilities as given
    (consistency resampling). The calls of a unit share its truth: each sample draws one
    uniform u per unit, and a call's event is true when u < P (1 − u < P for a `flipped` call,
    whose event is the complement of its unit's: a pair shown b first). So each call is
    Bernoulli(P), and repeats of an item are not counted as independent evidence, which would
    make the bound too tight. Drawn in blocks of BOOT_BLOCK draws."""
    p = np.asarray(p, float)
    _, codes = np.unique(np.asarray(unit), return_inverse=True)
    flipped = np.asarray(flipped, bool)
    onehot = np.zeros((p.size, n_bins))
    onehot[np.arange(p.size), bin_ids(p, n_bins)] = 1.0
    sum_p = p @ onehot
    rows = max(1, BOOT_BLOCK // p.size)
    out = []
    for start in range(0, n_boot, rows):
        u = rng.random((min(rows, n_boot - start), int(codes.max()) + 1))[:, codes]
        draws = np.where(flipped, 1 - u, u) < p
        out.append(np.abs(sum_p - draws.astype(float) @ onehot).sum(1) / p.size)
    return np.concatenate(out)


def _design_row(scored: pl.DataFrame, n_boot: int, rng: np.random.Generator, n_bins: int) -> dict:
    """Brier, ECE, its interval and the calibrated judge's bound for one design's scored calls."""
    none = dict.fromkeys(
        ["mean_p", "observed", "brier", "ece", "ece_lo", "ece_hi", "ece_null_hi"], None
    )
    if scored.is_empty():
        return none
    p = scored["p"].to_numpy()
    y = scored["y"].cast(pl.Float64).to_numpy()
    unit = scored["unit"].to_numpy()
    row = none | {
        "mean_p": float(p.mean()),
        "observed": float(y.mean()),
        "brier": brier(p, y),
        "ece": ece(p, y, n_bins),
    }
    if n_boot <= 0:
        return row
    q = [(1 - CI_LEVEL) / 2, (1 + CI_LEVEL) / 2]
    if np.unique(unit).size >= 2:
        row["ece_lo"], row["ece_hi"] = map(
            float, np.quantile(bootstrap_ece(p, y, unit, n_boot, rng, n_bins), q)
        )
    flipped = scored["flipped"].to_numpy()
    null = calibrated_ece(p, unit, flipped, n_boot, rng, n_bins)
    row["ece_null_hi"] = float(np.quantile(null, CI_LEVEL))
    return row


def calibration_tables(
    calls: pl.DataFrame,
    study_type: str,
    event: str,
    n_bins: int = N_BINS,
    n_boot: int = 1000,
    seed: int = 0,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """calls (CALL_COLUMNS: one row per planned call, `p` its P(event) or null, `y` the truth
    or null, `unit` the item or pair resampled, `flipped` whether its event is the complement
    of the unit's truth) → (calibration, calibration_bins).

    One calibration row per design, whatever it has: n_ok answered calls = n_no_probs (no
    distribution) + n_no_truth (a distribution, no truth) + n_scored; the numbers are over the
    scored calls (null when there are none). calibration_bins holds each design's non-empty
    bins."""
    rows, bins = [], []
    for key, group in calls.group_by(DESIGN, maintain_order=True):
        answered = group.filter(pl.col("status") == "ok")
        has_p, has_y = answered["p"].is_not_null(), answered["y"].is_not_null()
        scored = answered.filter(has_p & has_y)
        design = dict(zip(DESIGN, key, strict=True))
        rng = design_rng(seed, [str(v) for v in key])
        rows.append(
            design
            | {
                "study_type": study_type,
                "event": event,
                "n_calls": group.height,
                "n_ok": answered.height,
                "n_no_probs": int((~has_p).sum()),
                "n_no_truth": int((has_p & ~has_y).sum()),
                "n_scored": scored.height,
                "n_units": scored["unit"].n_unique(),
                "n_bins": n_bins,
            }
            | _design_row(scored, n_boot, rng, n_bins)
        )
        if not scored.is_empty():
            b = reliability_bins(scored["p"].to_numpy(), scored["y"].to_numpy(), n_bins)
            bins.append(
                b.with_columns(
                    pl.lit(study_type).alias("study_type"),
                    *(pl.lit(v, pl.String).alias(c) for c, v in design.items()),
                )
            )
    columns = list(Calibration.to_schema().columns)
    schema = {c: Calibration.to_schema().columns[c].dtype.type for c in columns}
    table = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    table = table.with_columns(
        miscalibrated=pl.when(pl.col("ece_null_hi").is_not_null()).then(
            pl.col("ece") > pl.col("ece_null_hi")
        )
    ).select(columns)
    bin_columns = list(CalibrationBins.to_schema().columns)
    bin_schema = {c: CalibrationBins.to_schema().columns[c].dtype.type for c in bin_columns}
    binned = (
        pl.concat([b.select(bin_columns) for b in bins])
        if bins
        else pl.DataFrame(schema=bin_schema)
    )
    binned = binned.cast(bin_schema)
    return (
        validate(table.sort(DESIGN), Calibration),
        validate(binned.sort([*DESIGN, "bin"]), CalibrationBins),
    )
