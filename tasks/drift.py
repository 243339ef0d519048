"""Drift of the canary's answers between date buckets, against the judge's own noise.

A judge's answers move from batch to batch for two reasons: noise (a sampled answer differs
each time it is asked) and drift (the model behind the name changed). Repeats of one batch
measure the first, so a shift counts as drift only when its confidence interval lies wholly
outside the band noise alone keeps it in, at the same level (schemas/drift.py says exactly
what each column is).

Ratings (1–7): shift = mean over items of (batch mean − reference mean), paired t CI; noise
band ±z·s·√(Σᵢ(1/kᵢ + 1/k'ᵢ))/n, s the pooled within-item repeat SD of both batches and kᵢ,
k'ᵢ the item's ok repeats in each (= z·s·√(2/(R·n)) with R repeats everywhere).
Verdicts: shift = flip rate between the batches (repeat r against repeat r: a seeded
provider sends the same seed to both); noise band [0, upper bound of the flip rate between
two repeats of one batch]. Under no drift a rating batch lands outside the band with
probability ≈ P(|Z| > 2z) per design and bucket (≈ 1e-4 at level 0.95, with the CI's SE
equal to the noise's): an alert is rare by construction, not by luck.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import stats as sps

from schemas.drift import Drift
from schemas.validate import validate
from tasks.stats import kripp_alpha

DESIGN = ["study", "judge", "model", "prompt_level", "scale", "reasoning_effort"]


def drift_table(
    answers: pl.DataFrame,
    statistic: str,
    level: float = 0.95,
    compare: str = "first",
) -> pl.DataFrame:
    """`answers`: one row per canary call with DESIGN, bucket, item_id, repeat, status and
    `value` (a score on 1–7, or a verdict 1/0), and for verdicts `reference` (the item's
    label, may be null). `statistic`: "mean_shift" (ratings) or "flip_rate" (verdicts).
    One row per design × bucket, batch 1 first (see schemas/drift.py)."""
    ok = answers.filter((pl.col("status") == "ok") & pl.col("value").is_not_null())
    if "reference" not in ok.columns:
        ok = ok.with_columns(pl.lit(None, pl.Boolean).alias("reference"))
    rows = []
    for design, calls in ok.sort([*DESIGN, "bucket"]).group_by(DESIGN, maintain_order=True):
        buckets = calls["bucket"].unique(maintain_order=True).to_list()
        by_bucket = {b: calls.filter(pl.col("bucket") == b) for b in buckets}
        for batch, bucket in enumerate(buckets, 1):
            ref = None if batch == 1 else buckets[0 if compare == "first" else batch - 2]
            row = _compare(by_bucket[bucket], None if ref is None else by_bucket[ref], statistic)
            rows.append(
                dict(zip(DESIGN, design, strict=True))
                | {"bucket": bucket, "batch": batch, "reference": ref, "statistic": statistic}
                | _flagged(row, statistic, level)
            )
    schema = {c: col.dtype.type for c, col in Drift.to_schema().columns.items()}
    return validate(pl.DataFrame(rows, schema=schema), Drift)


def _matrix(calls: pl.DataFrame, items: list[str], repeats: int) -> np.ndarray:
    """items × repeats values, NaN where a call has no ok answer."""
    out = np.full((len(items), repeats), np.nan)
    index = {item: i for i, item in enumerate(items)}
    for item, r, v in calls.select("item_id", "repeat", "value").iter_rows():
        if item in index and r < repeats:
            out[index[item], r] = v
    return out


def _compare(now: pl.DataFrame, ref: pl.DataFrame | None, statistic: str) -> dict:
    """The raw comparison of one batch with its reference (None: the first batch alone)."""
    frames = [now] if ref is None else [now, ref]
    items = sorted(set.intersection(*(set(f["item_id"].to_list()) for f in frames)))
    repeats = int(max(f["repeat"].max() for f in frames)) + 1
    mats = [_matrix(f, items, repeats) for f in frames]
    noise = _within_flips(mats) if statistic == "flip_rate" else _within_sd(mats)
    k = np.stack([np.sum(~np.isnan(m), axis=1) for m in mats])  # batches × items
    out = {
        "n_items": 0 if ref is None else len(items),
        "repeats": int(len(k.ravel()) / np.sum(1 / k)) if k.size and k.min() > 0 else 0,
        "noise_sd": noise[0],
        "noise_se": noise[1],
        "d": None,
        "k": k,
    }
    if ref is None or not items:
        return out
    if statistic == "flip_rate":
        a, b = mats
        both = ~np.isnan(a) & ~np.isnan(b)
        flips = np.where(both, a != b, np.nan)
        keep = both.any(axis=1)
        out["d"] = np.nanmean(flips[keep], axis=1)
        labels = dict(now.select("item_id", "reference").drop_nulls().iter_rows())
        truth = np.array([labels.get(i, math.nan) for i in items], dtype=float)  # NaN: none
        out["accuracy_change"] = _accuracy(a, truth) - _accuracy(b, truth)
    else:
        means = [np.nanmean(m, axis=1) for m in mats]
        keep = ~np.isnan(means[0]) & ~np.isnan(means[1])
        out["d"] = means[0][keep] - means[1][keep]
        out["alpha"] = kripp_alpha(means[0][keep], means[1][keep])
        out["k"] = k[:, keep]
    out["n_items"] = len(out["d"])
    return out


def _accuracy(verdicts: np.ndarray, truth: np.ndarray) -> float:
    known = ~np.isnan(verdicts) & ~np.isnan(truth)[:, None]
    right = verdicts == truth[:, None]
    return float(right[known].mean()) if known.any() else math.nan


def _within_sd(mats: list[np.ndarray]) -> tuple[float | None, None]:
    """Pooled within-item repeat SD over the batches (None: no item with 2 ok repeats)."""
    ss, dof = 0.0, 0
    for m in mats:
        k = np.sum(~np.isnan(m), axis=1)
        two = k >= 2
        if two.any():
            dev = m[two] - np.nanmean(m[two], axis=1, keepdims=True)
            ss += float(np.nansum(dev**2))
            dof += int(np.sum(k[two] - 1))
    return (math.sqrt(ss / dof) if dof else None), None


def _within_flips(mats: list[np.ndarray]) -> tuple[float | None, float | None]:
    """Mean share of repeat pairs of one batch that disagree, over item × batch units, and its
    standard error (None: no unit with 2 ok repeats)."""
    shares = []
    for m in mats:
        for row in m:
            v = row[~np.isnan(row)]
            if len(v) >= 2:
                ones, n = float(v.sum()), len(v)
                shares.append(ones * (n - ones) / (n * (n - 1) / 2))
    if not shares:
        return None, None
    s = np.array(shares)
    return float(s.mean()), float(s.std(ddof=1) / math.sqrt(len(s))) if len(s) > 1 else 0.0


def _flagged(row: dict, statistic: str, level: float) -> dict:
    """The shift, its CI, the noise band and whether the CI lies wholly outside the band."""
    d, z = row["d"], float(sps.norm.ppf((1 + level) / 2))
    out = {
        "n_items": row["n_items"],
        "repeats": row["repeats"],
        "shift": None,
        "shift_lo": None,
        "shift_hi": None,
        "noise": None,
        "noise_sd": row["noise_sd"],
        "alpha": row.get("alpha"),
        "accuracy_change": _finite(row.get("accuracy_change")),
        "level": level,
        "flagged": False,
    }
    if d is None or len(d) == 0:
        return out
    shift = float(np.mean(d))
    half = math.nan
    if len(d) >= 2:
        half = float(sps.t.ppf((1 + level) / 2, len(d) - 1) * np.std(d, ddof=1) / math.sqrt(len(d)))
    lo, hi = shift - half, shift + half
    if statistic == "flip_rate":
        lo, hi = max(0.0, lo), min(1.0, hi)
        noise = None if row["noise_sd"] is None else min(1.0, row["noise_sd"] + z * row["noise_se"])
        flagged = noise is not None and math.isfinite(lo) and lo > noise
    else:
        k = row["k"]
        sd = row["noise_sd"]
        noise = None if sd is None else z * sd * math.sqrt(float(np.sum(1 / k))) / len(d)
        flagged = noise is not None and math.isfinite(lo) and (lo > noise or hi < -noise)
    return out | {
        "shift": shift,
        "shift_lo": _finite(lo),
        "shift_hi": _finite(hi),
        "noise": noise,
        "flagged": bool(flagged),
    }


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)
