"""Variance decomposition of judge scores: how much of the spread comes from the model, the
prompt level, the scale, the item, and their two-way interactions (eta² per study)."""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy import sparse

from schemas.validate import validate
from schemas.variance_components import COMPONENTS, VarianceComponents
from tasks.stats import one_blas_thread

FACTORS = ("judge", "prompt_level", "scale")  # design-level factors; "judge" is the model
# the nested models of the sequential decomposition: (component added, the group whose
# means are absorbed, the design-level terms); a term "a:b" is the cells of a × b
STEPS = (
    ("judge", "all", ("judge",)),
    ("prompt_level", "all", ("judge", "prompt_level")),
    ("scale", "all", FACTORS),
    ("item", "item", FACTORS),
    ("judge:prompt_level", "item", (*FACTORS, "judge:prompt_level")),
    ("judge:scale", "item", (*FACTORS, "judge:prompt_level", "judge:scale")),
    (
        "prompt_level:scale",
        "item",
        (*FACTORS, "judge:prompt_level", "judge:scale", "prompt_level:scale"),
    ),
    (
        "judge:item",
        "judge:item",
        (*FACTORS, "judge:prompt_level", "judge:scale", "prompt_level:scale"),
    ),
)
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


def _study_components(study: str, rows: pl.DataFrame) -> list[dict]:
    y = rows["score_1to7"].to_numpy().astype(float)
    y = y - y.mean()  # SS are shift-free; centring keeps the sums small
    design = _codes(rows, *FACTORS)
    n_designs = int(design.max()) + 1
    designs = rows.select(FACTORS).with_columns(d=design).unique("d").sort("d")  # row d: code d
    per_design = {f: _codes(designs, f) for f in FACTORS}
    for a, b in (("judge", "prompt_level"), ("judge", "scale"), ("prompt_level", "scale")):
        per_design[f"{a}:{b}"] = _codes(designs, a, b)

    def columns(terms: tuple[str, ...]) -> np.ndarray:
        """One indicator column per level of each term, one row per design."""
        blocks = [np.eye(per_design[t].max() + 1)[per_design[t]] for t in terms]
        return np.hstack(blocks) if blocks else np.empty((n_designs, 0))

    grouping = {
        "all": np.zeros(y.size, dtype=np.int64),
        "item": _codes(rows, "item_id"),
        "judge:item": _codes(rows, "judge", "item_id"),
    }
    absorbed = {name: _Absorbed(y, design, g, n_designs) for name, g in grouping.items()}
    rss, rank = absorbed["all"].fit(columns(()))
    total = rss
    out = []
    for component, group, terms in STEPS:
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
        }
        for c, df, ss in out
    ]


@one_blas_thread()
def variance_components(item_scores: pl.DataFrame) -> pl.DataFrame:
    """Per study, over judge designs (kind "judge") and item-level scores (one per design ×
    item, the mean over repeats, unweighted): eta² = SS / total SS for judge (the model
    choice), prompt_level, scale, item, judge:prompt_level, judge:scale, prompt_level:scale,
    judge:item and the residual (everything else: prompt_level:item, scale:item, three-way).

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
    rows = [
        row
        for (study,), grp in judged.group_by("study", maintain_order=True)
        for row in _study_components(study, grp)
    ]
    schema = {name: col.dtype.type for name, col in VarianceComponents.to_schema().columns.items()}
    out = pl.DataFrame(rows, schema=schema)
    order = pl.col("component").replace_strict(COMPONENTS, list(range(len(COMPONENTS))))
    return validate(out.sort("study", order), VarianceComponents)
