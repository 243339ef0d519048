"""Variance decomposition of judge scores: how much of the spread comes from the model, the
prompt level, the scale, the item, and their two-way interactions (eta² per study), and the
same design as a G-study (random-effects components) with its D-study (tasks/gtheory.py)."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
from scipy import sparse

from schemas.d_study import DStudy
from schemas.validate import validate
from schemas.variance_components import COMPONENTS, VarianceComponents
from tasks import gtheory
from tasks.stats import one_blas_thread

FACTORS = ("judge", "prompt_level", "scale")  # design-level factors; "judge" is the model


def rating_factors(rows: pl.DataFrame) -> tuple[str, ...]:
    """A rating study's design-level factors: FACTORS, and the readout when the study reads
    its calls two ways (Analysis.readouts), a design choice like any other (issue 29)."""
    if "readout" in rows.columns and rows["readout"].n_unique() > 1:
        return (*FACTORS, "readout")
    return FACTORS


def steps(factors: tuple[str, ...]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """The nested models of the sequential decomposition over the design-level factors (the
    first one the judge): (component added, the group whose means are absorbed, the
    design-level terms). The factors' main effects in order, the item, their two-way terms
    in pair order ("a:b", the cells of a × b), then judge × item."""
    j = factors[0]
    pairs = tuple(f"{a}:{b}" for a, b in itertools.combinations(factors, 2))
    mains = tuple((f, "all", factors[: k + 1]) for k, f in enumerate(factors))
    two_way = tuple((p, "item", (*factors, *pairs[: k + 1])) for k, p in enumerate(pairs))
    last = (f"{j}:item", "judge:item", (*factors, *pairs))
    return (*mains, ("item", "item", factors), *two_way, last)


TOL = 1e-9  # relative size below which a direction counts as already explained (rank)


def _codes(rows: pl.DataFrame, *columns: str) -> np.ndarray:
    """0-based integer code of each row's combination of the columns (sorted order)."""
    return (rows.select(pl.struct(columns).rank("dense")).to_series().to_numpy() - 1).astype(
        np.int64
    )


class _Absorbed:
    """y with the means of a grouping removed (the grouping's fixed effects absorbed), reduced
    to the designs: Σ residual², E'My and E'ME for the observations × designs incidence E.
    For any design-level columns F = E·G (Frisch–Waugh–Lovell):
    RSS(group + F) = Σ residual² − q'H⁺q with H = G'(E'ME)G, q = G'E'My;
    rank(group + F) = groups + rank(H). Everything after the group means is designs × designs."""

    def __init__(self, y: np.ndarray, design: np.ndarray, group: np.ndarray, n_designs: int):
        n_g = np.bincount(group)
        resid = y - (np.bincount(group, weights=y) / n_g)[group]
        self.rss = float(resid @ resid)
        self.groups = n_g.size
        self.b = np.bincount(design, weights=resid, minlength=n_designs)
        incidence = sparse.csr_matrix(
            (np.ones(y.size), (group, design)), shape=(n_g.size, n_designs)
        )
        self.n_d = np.bincount(design, minlength=n_designs).astype(float)
        shared = (incidence.T @ sparse.diags(1.0 / n_g) @ incidence).toarray()
        self.a = np.diag(self.n_d) - shared

    def fit(self, g: np.ndarray) -> tuple[float, int]:
        """(RSS, rank) of the group means plus the design-level columns g (designs × p)."""
        if g.shape[1] == 0:
            return self.rss, self.groups
        h, q = g.T @ self.a @ g, g.T @ self.b
        # a column the grouping already explains (e.g. judge within judge × item) is dropped
        # before scaling, so its rounding noise is not blown up; the rest get unit diagonal
        raw = (g**2).T @ self.n_d
        keep = np.diag(h) > TOL * raw
        s = 1.0 / np.sqrt(np.diag(h)[keep])
        lam, u = np.linalg.eigh(h[np.ix_(keep, keep)] * np.outer(s, s))
        pos = lam > TOL * max(lam.max(initial=0.0), 1.0)
        z = u[:, pos].T @ (q[keep] * s)
        return self.rss - float(np.sum(z**2 / lam[pos])), self.groups + int(pos.sum())


def study_components(
    study: str, rows: pl.DataFrame, value: str, factors: tuple[str, ...] = FACTORS
) -> list[dict]:
    """One study's components of `value` over `factors` (the first the judge), `item_id` and
    the judge × item cells; shared with the pairwise analysis (judge, prompt level, order)."""
    y = rows[value].to_numpy().astype(float)
    y = y - y.mean()  # SS are shift-free; centring keeps the sums small
    design = _codes(rows, *factors)
    n_designs = int(design.max()) + 1
    designs = rows.select(factors).with_columns(d=design).unique("d").sort("d")  # row d: code d
    per_design = {f: _codes(designs, f) for f in factors}
    for a, b in itertools.combinations(factors, 2):
        per_design[f"{a}:{b}"] = _codes(designs, a, b)

    def columns(terms: tuple[str, ...]) -> np.ndarray:
        """One indicator column per level of each term, one row per design."""
        blocks = [np.eye(per_design[t].max() + 1)[per_design[t]] for t in terms]
        return np.hstack(blocks) if blocks else np.empty((n_designs, 0))

    grouping = {
        "all": np.zeros(y.size, dtype=np.int64),
        "item": _codes(rows, "item_id"),
        "judge:item": _codes(rows, factors[0], "item_id"),
    }
    absorbed = {name: _Absorbed(y, design, g, n_designs) for name, g in grouping.items()}
    rss, rank = absorbed["all"].fit(columns(()))
    total = rss
    out = []
    for component, group, terms in steps(factors):
        new_rss, new_rank = absorbed[group].fit(columns(terms))
        df = new_rank - rank
        out.append((component, df, max(rss - new_rss, 0.0) if df > 0 else 0.0))
        rss, rank = new_rss, new_rank
    out.append(("residual", y.size - rank, max(rss, 0.0) if y.size > rank else 0.0))
    return [
        {
            "study": study,
            "component": c,
            "df": df,
            "ss": ss,
            "eta_sq": min(ss / total, 1.0) if total > 0 else None,
            "method": "type1_anova",
        }
        for c, df, ss in out
    ]


@one_blas_thread()
def variance_components(item_scores: pl.DataFrame) -> pl.DataFrame:
    """Per study, over judge designs (kind "judge") and item-level scores (one per design ×
    item, the mean over repeats, unweighted): eta² = SS / total SS for judge (the model
    choice), prompt_level, scale, item, judge:prompt_level, judge:scale, prompt_level:scale,
    judge:item and the residual (everything else: prompt_level:item, scale:item, three-way).
    A study with two readouts adds readout after scale, and its two-way terms after each
    factor's own (rating_factors).

    Sums of squares are sequential (type I) from exact least squares in that order: each
    component gets what the earlier ones leave unexplained, df = the rank it adds. The item
    and judge × item effects are not dummy-coded: their means are absorbed
    (Frisch–Waugh–Lovell), which leaves a designs × designs problem, so 23,000 items cost
    O(rows) and no dense items matrix exists. On a complete crossing (every design scored
    every item) this equals the classical balanced decomposition, order does not matter and
    the components sum to the total. Missing cells (a design without some items, a design
    absent altogether) need no imputation and drop no rows; the split then depends on the
    order, earlier terms taking the variance they share with later ones. A factor with one
    level, or a term with nothing left to explain, gets df 0 and ss 0.
    """
    judged = item_scores.filter(pl.col("kind") == "judge")
    return components_table(
        [
            row
            for (study,), grp in judged.group_by("study", maintain_order=True)
            for row in study_components(study, grp, "score_1to7", rating_factors(grp))
        ]
    )


def components_table(rows: list[dict]) -> pl.DataFrame:
    """`study_components` rows → the validated `variance_components` table, in COMPONENTS
    order."""
    schema = {name: col.dtype.type for name, col in VarianceComponents.to_schema().columns.items()}
    out = pl.DataFrame(rows, schema=schema)
    order = pl.col("component").replace_strict(COMPONENTS, list(range(len(COMPONENTS))))
    return validate(
        out.sort("study", "method", order, descending=[False, True, False]), VarianceComponents
    )


# the D-study's grid: conditions averaged over, 1 up to this many per facet (two orders exist)
D_STUDY_MAX = {"judge": 5, "prompt_level": 3, "scale": 4, "order": 2, "readout": 2}
D_STUDY_COUNT = {"judge": "n_judges", "prompt_level": "n_prompt_levels", "scale": "n_scales"}
D_STUDY_COUNT |= {"order": "n_orders", "readout": "n_readouts"}


def study_g_study(
    study: str, rows: pl.DataFrame, value: str, factors: tuple[str, ...] = FACTORS
) -> tuple[list[dict], list[dict]]:
    """One study's random-effects components (method "random_ems") of `value` averaged per
    item × design cell (over repeats), and its D-study rows over D_STUDY_MAX. A facet with one
    level in the balanced subset is not projected (its count stays 1)."""
    cells = rows.group_by(*factors, "item_id").agg(pl.col(value).mean())
    kept, sizes = gtheory.balanced_subset(cells, factors)
    comps = gtheory.g_study(kept, factors, value)[0]  # kept is complete: nothing more dropped
    if not comps:
        return [], []
    total_ss = sum(c["ss"] for c in comps)
    total_var = sum(c["variance"] for c in comps)
    used = ", ".join(f"{sizes[f][0]} of {sizes[f][1]} {f} levels" for f in factors)
    subset = f"balanced subset: {sizes['item_id'][0]} of {sizes['item_id'][1]} items, {used}"
    left_out = [
        f"{f} {', '.join(sorted(set(cells[f]) - set(kept[f])))}"
        for f in factors
        if sizes[f][0] < sizes[f][1]
    ]
    if left_out:
        subset += f" (left out: {'; '.join(left_out)})"
    out = []
    for c in comps:
        notes = [n for n in (c["note"], subset if c["component"] == gtheory.ITEM else None) if n]
        out.append(
            {
                "study": study,
                "component": c["component"],
                "df": c["df"],
                "ss": c["ss"],
                "eta_sq": min(c["ss"] / total_ss, 1.0) if total_ss > 0 else None,
                "method": "random_ems",
                "ms": c["ms"],
                "variance": c["variance"],
                "variance_share": c["variance"] / total_var if total_var > 0 else None,
                "note": "; ".join(notes) or None,
            }
        )
    varying = [f for f in factors if sizes[f][0] > 1]
    components = {c["component"]: c["variance"] for c in comps}
    grid = [range(1, D_STUDY_MAX[f] + 1) if f in varying else (1,) for f in factors]
    d_rows = []
    for counts in itertools.product(*grid):
        n = dict(zip(factors, counts, strict=True))
        d_rows.append(
            {
                "study": study,
                **{D_STUDY_COUNT[f]: n[f] for f in factors},
                **gtheory.d_study(components, {f: n[f] for f in varying}),
            }
        )
    return out, d_rows


def d_study_table(rows: list[dict]) -> pl.DataFrame:
    schema = {name: col.dtype.type for name, col in DStudy.to_schema().columns.items()}
    return validate(pl.DataFrame(rows, schema=schema), DStudy)


@one_blas_thread()
def g_study_tables(item_scores: pl.DataFrame) -> tuple[list[dict], pl.DataFrame]:
    """Per rating study, over judge designs and item-level scores (as `variance_components`):
    the random-effects rows and the `d_study` table."""
    judged = item_scores.filter(pl.col("kind") == "judge")
    components, d_rows = [], []
    for (study,), grp in judged.group_by("study", maintain_order=True):
        c, d = study_g_study(study, grp, "score_1to7", rating_factors(grp))
        components += c
        d_rows += d
    return components, d_study_table(d_rows)


def tables(item_scores: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """`variance_components` by both methods (type I eta², random-effects σ²) and `d_study`."""
    random_rows, d = g_study_tables(item_scores)
    type1 = variance_components(item_scores)
    return {"variance_components": components_table(type1.to_dicts() + random_rows), "d_study": d}
