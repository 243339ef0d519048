"""Generalizability theory for a fully crossed design (items × the design facets): random-effects
variance components from the expected mean squares (G-study) and the G coefficients of averaging
a score over n conditions of each facet (D-study).

Why expected mean squares and not a library (bench/bench_gstudy.py, this machine, shared):
on a balanced crossed design the EMS (ANOVA) estimators are exact and unbiased, and a
23,000-item rating study × 36 designs (828,000 cells) takes 1.9–4.9 s. statsmodels 0.15
`MixedLM` (REML, seven crossed `vc_formula` components) took 125 s on 25 items × 36 designs
(900 cells) and did not finish 1,800 cells in 240 s; `generalizit` 0.1.2 (one release,
Henderson method 1, pandas group-bys per pair of components) took 16 s on 900 cells and did
not finish 1,800 in 150 s, and rounds its sums and components to 4 decimals, which blurs the
1e-3 to 1e-4 components of a 0/1 score.

Negative estimates are reported as 0 (with a note); the other components are solved from the
unmodified ones, so they stay unbiased (Brennan's convention, Generalizability Theory, 2001)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl

ITEM = "item"  # the object of measurement's name in component names ("judge:item")
RESIDUAL = "residual"  # the highest interaction, confounded with the within-cell error


def effects(facets: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every non-empty subset of the factors (facets, then the item), lowest order first."""
    factors = (*facets, ITEM)
    return [c for k in range(1, len(factors) + 1) for c in itertools.combinations(factors, k)]


def name(effect: tuple[str, ...], n_factors: int) -> str:
    return RESIDUAL if len(effect) == n_factors else ":".join(effect)


def balanced_subset(
    cells: pl.DataFrame, facets: tuple[str, ...], item: str = "item_id"
) -> tuple[pl.DataFrame, dict[str, tuple[int, int]]]:
    """The largest complete crossing found greedily in one score per item × design cell: while
    a cell is missing, drop the facet level or the items with the largest share of their cells
    missing (a facet level before items on a tie: it costs fewer scores). Returns the cells kept
    and, per factor, (levels kept, levels there were)."""
    before = {f: cells[f].n_unique() for f in (*facets, item)}
    kept = cells
    while kept.height:
        n = {f: kept[f].n_unique() for f in (*facets, item)}
        total = math.prod(n.values())
        if kept.height == total:
            break
        worst: tuple[float, str, object] | None = None
        for f in facets:
            per = kept.group_by(f).len().with_columns(miss=1 - pl.col("len") * n[f] / total)
            top = per.sort(["miss", f], descending=[True, False]).row(0, named=True)
            if worst is None or top["miss"] > worst[0]:
                worst = (top["miss"], f, top[f])
        per_item = kept.group_by(item).len().with_columns(miss=1 - pl.col("len") * n[item] / total)
        item_miss = per_item["miss"].max()
        if worst is not None and worst[0] >= item_miss:
            kept = kept.filter(pl.col(worst[1]) != worst[2])
        else:
            drop = per_item.filter(pl.col("miss") == item_miss)[item]
            kept = kept.filter(~pl.col(item).is_in(drop.implode()))
    after = {f: kept[f].n_unique() for f in before}
    return kept, {f: (after[f], before[f]) for f in before}


def cube(cells: pl.DataFrame, factors: tuple[str, ...], value: str) -> np.ndarray:
    """A complete crossing's scores as a dense array, one axis per factor (levels sorted)."""
    codes = [(cells[f].rank("dense").to_numpy() - 1).astype(np.int64) for f in factors]
    shape = tuple(int(c.max()) + 1 for c in codes)
    y = np.full(shape, np.nan)
    y[tuple(codes)] = cells[value].to_numpy().astype(float)
    if np.isnan(y).any():
        raise ValueError("cube: the cells are not a complete crossing")
    return y


def mean_squares(y: np.ndarray) -> dict[tuple[int, ...], tuple[int, float]]:
    """The full crossed ANOVA of a dense array (one observation per cell): per effect (a tuple
    of axes), (df, SS). The effect of axes A is the inclusion–exclusion of the marginal means
    over the subsets of A; its SS counts every cell it spans."""
    axes = tuple(range(y.ndim))
    y = y - y.mean()
    means = {
        sub: y.mean(axis=tuple(a for a in axes if a not in sub), keepdims=True)
        for k in range(y.ndim + 1)
        for sub in itertools.combinations(axes, k)
    }
    out = {}
    for k in range(1, y.ndim + 1):
        for eff in itertools.combinations(axes, k):
            e = sum(
                (-1) ** (k - j) * means[sub]
                for j in range(k + 1)
                for sub in itertools.combinations(eff, j)
            )
            spread = y.size / math.prod(y.shape[a] for a in eff)
            df = math.prod(y.shape[a] - 1 for a in eff)
            out[eff] = (df, float(spread * np.sum(np.asarray(e) ** 2)))
    return out


def ems_solve(
    ms: dict[tuple[int, ...], float], shape: tuple[int, ...]
) -> dict[tuple[int, ...], float]:
    """σ² per effect from the mean squares of a balanced fully crossed random design:
    E[MS_α] = Σ_{β ⊇ α} σ²_β · Π_{axes not in β} n, solved from the highest order down
    (unmodified: a negative estimate stays negative here)."""
    axes = set(range(len(shape)))
    sigma: dict[tuple[int, ...], float] = {}
    for eff in sorted(ms, key=len, reverse=True):
        above = sum(
            s * math.prod(shape[a] for a in axes - set(b))
            for b, s in sigma.items()
            if set(eff) < set(b)
        )
        sigma[eff] = (ms[eff] - above) / math.prod(shape[a] for a in axes - set(eff))
    return sigma


def g_study(
    cells: pl.DataFrame, facets: tuple[str, ...], value: str, item: str = "item_id"
) -> tuple[list[dict], dict[str, tuple[int, int]]]:
    """Random-effects components of `value` (one per item × design cell) over the items and the
    facets that have two or more levels, on the balanced subset: one dict per effect with
    component, df, ss, ms, variance (negative → 0), raw (unmodified) and note; and the subset's
    (levels kept, levels there were) per factor. A facet with one level is left out (its
    components are confounded with the others and cannot be estimated); with no facet varying,
    or fewer than two items, there is no G-study (no rows)."""
    kept, sizes = balanced_subset(cells, facets, item)
    varying = tuple(f for f in facets if sizes[f][0] > 1)
    if kept.height == 0 or sizes[item][0] < 2 or not varying:
        return [], sizes  # no items to tell apart, or no facet to generalize over
    y = cube(kept, (*varying, item), value)
    anova = mean_squares(y)
    raw = ems_solve({e: ss / df for e, (df, ss) in anova.items()}, y.shape)
    factors = (*varying, ITEM)
    rows = []
    for eff in sorted(anova, key=lambda e: (len(e), e)):
        df, ss = anova[eff]
        v = raw[eff]
        rows.append(
            {
                "component": name(tuple(factors[a] for a in eff), len(factors)),
                "df": df,
                "ss": ss,
                "ms": ss / df,
                "variance": max(v, 0.0),
                "raw": v,
                "note": f"negative estimate {v:.3g} set to 0" if v < 0 else None,
            }
        )
    return rows, sizes


def d_study(components: dict[str, float], counts: dict[str, int]) -> dict[str, float | None]:
    """The D-study of a mean over counts[f] conditions of each facet (every facet random, the
    item the object of measurement): universe-score variance σ²(item); relative error σ²(δ),
    each item interaction divided by the conditions of its facets; absolute error σ²(Δ), which
    adds the facets' own main effects and interactions likewise; Eρ² = σ²τ / (σ²τ + σ²δ) and
    Φ = σ²τ / (σ²τ + σ²Δ). `components` by component name (non-negative); facets absent from
    `components` do not vary."""
    facets = tuple(counts)
    tau = components.get(ITEM, 0.0)
    rel = absolute = 0.0
    for eff in effects(facets):
        key = name(eff, len(facets) + 1)
        if key not in components or eff == (ITEM,):
            continue
        share = components[key] / math.prod(counts[f] for f in eff if f != ITEM)
        absolute += share
        if ITEM in eff:
            rel += share
    return {
        "var_item": tau,
        "var_rel_error": rel,
        "var_abs_error": absolute,
        "g_relative": tau / (tau + rel) if tau + rel > 0 else None,
        "phi": tau / (tau + absolute) if tau + absolute > 0 else None,
    }
