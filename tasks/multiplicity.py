"""Multiple-comparison control: Holm and Benjamini–Hochberg adjusted p over one family of tests.

A table that reports "share significant" over hundreds of tests at p < 0.05 expects 5% false
positives from noise alone. Each such table names its family (the tests one study's table
makes) and adds the share after Holm (family-wise error 5%) and after Benjamini–Hochberg
(false discovery rate 5%). Untested entries (null p) stay null and are not counted in the
family. The adjustments are statsmodels' `multipletests` ("holm", "fdr_bh") operation for
operation, written out because its Holm branch calls `gc.collect()` on every call: 0.65 s each
in a process that has imported Prefect and litellm (tests compare the two on random data).
"""

from __future__ import annotations

import numpy as np
import polars as pl

METHODS = ("holm", "bh")


def _holm(p_sorted: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment of ascending p values: running max of p_(i) · (m − i + 1)."""
    return np.maximum.accumulate(p_sorted * np.arange(p_sorted.size, 0, -1))


def _bh(p_sorted: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg of ascending p values: running min from the top of p_(i) / (i / m)."""
    ecdf = np.arange(1, p_sorted.size + 1) / float(p_sorted.size)
    return np.minimum.accumulate((p_sorted / ecdf)[::-1])[::-1]


def adjust(p: np.ndarray | pl.Series | list, method: str) -> np.ndarray:
    """Adjusted p values (same order, NaN where p is missing) over the non-missing entries."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {sorted(METHODS)}")
    p = np.asarray(p.to_numpy() if isinstance(p, pl.Series) else p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        order = np.argsort(p[ok])
        adjusted = np.minimum((_holm if method == "holm" else _bh)(p[ok][order]), 1.0)
        out[np.flatnonzero(ok)[order]] = adjusted
    return out


def with_adjusted(frame: pl.DataFrame, p: str, family: list[str], prefix: str) -> pl.DataFrame:
    """Add `<prefix>_holm` and `<prefix>_bh`: column `p` adjusted within each `family` group."""
    if frame.is_empty():
        return frame.with_columns(
            pl.lit(None, pl.Float64).alias(f"{prefix}_holm"),
            pl.lit(None, pl.Float64).alias(f"{prefix}_bh"),
        )
    parts = []
    for _, grp in frame.with_row_index("_row").group_by(family, maintain_order=True):
        parts.append(
            grp.with_columns(
                pl.Series(f"{prefix}_{m}", adjust(grp[p], m), dtype=pl.Float64).fill_nan(None)
                for m in METHODS
            )
        )
    return pl.concat(parts).sort("_row").drop("_row")
