"""Judge versus judge: every pair of designs in a study compared item by item, and which of the
design choices (model, prompt level, scale) the two differ in."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
from scipy import stats as sps

from schemas.design_pairs import CHOICES, DesignPairs
from schemas.scores import DESIGN
from schemas.validate import validate
from tasks.stats import alpha_two_coders

DESIGN_KEYS = DESIGN[1:]  # a design within its study
CHOICE_COLUMNS = dict(zip(CHOICES, ("judge", "prompt_level", "scale"), strict=True))
CHUNK_CELLS = 2_000_000  # items × pairs held in memory at once (a few arrays of this size)
EXACT_MAX_N = 50  # scipy's "auto" Wilcoxon is asymptotic only above 50 pairs per test


def _matrix(study_rows: pl.DataFrame) -> tuple[pl.DataFrame, np.ndarray]:
    """The study's designs (sorted) and an items × designs score matrix, NaN where unscored."""
    designs = study_rows.select(DESIGN_KEYS).unique().sort(DESIGN_KEYS).with_row_index("d")
    items = study_rows.select("item_id").unique().sort("item_id").with_row_index("i")
    cells = study_rows.join(designs, on=DESIGN_KEYS).join(items, on="item_id")
    x = np.full((items.height, designs.height), np.nan)
    x[cells["i"].to_numpy(), cells["d"].to_numpy()] = cells["score_1to7"].to_numpy()
    return designs.drop("d"), x


def _wilcoxon_p(d: np.ndarray) -> np.ndarray:
    """Two-sided signed-rank p per column of paired differences d (NaN = item not shared).

    The same scipy call as tasks.stats.wilcoxon (pingouin's defaults: zero differences
    dropped, continuity correction), so p agrees with it. Columns sharing more than 50 items
    are tested in one vectorised call: for them scipy's "auto" method is the normal
    approximation, as it would be one by one, and an unshared item enters as a zero
    difference, which the default zero_method drops — so batching cannot change a result.
    Columns with 50 or fewer shared items go one by one (~0.3 ms each), since there "auto"
    may pick an exact or permutation test.
    """
    p = np.full(d.shape[1], np.nan)
    present = ~np.isnan(d)
    batch = present.sum(axis=0) > EXACT_MAX_N
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        if batch.any():
            filled = np.where(present[:, batch], d[:, batch], 0.0)
            p[batch] = sps.wilcoxon(filled, axis=0, correction=True).pvalue
        for j in np.flatnonzero(~batch):
            dj = d[present[:, j], j]
            if dj.size >= 2:
                p[j] = sps.wilcoxon(dj, correction=True).pvalue
    return p


def _pair_stats(x: np.ndarray) -> dict[str, np.ndarray]:
    """Per unordered pair (a before b in design order): counts, differences, α and p."""
    ia, ib = np.triu_indices(x.shape[1], 1)
    out = {k: np.empty(ia.size) for k in ("n", "sum_d", "sum_abs", "sq", "s1", "s2", "p")}
    step = max(1, CHUNK_CELLS // max(1, x.shape[0]))
    for lo in range(0, ia.size, step):
        sl = slice(lo, lo + step)
        a, b = x[:, ia[sl]], x[:, ib[sl]]
        both = ~np.isnan(a) & ~np.isnan(b)
        d = np.where(both, a - b, np.nan)
        # α is unchanged by a common shift; centring on 4 keeps its sums of squares small
        a0, b0 = np.where(both, a - 4.0, 0.0), np.where(both, b - 4.0, 0.0)
        out["n"][sl] = both.sum(axis=0)
        out["sum_d"][sl] = np.nansum(d, axis=0)
        out["sum_abs"][sl] = np.nansum(np.abs(d), axis=0)
        out["sq"][sl] = np.nansum(d**2, axis=0)
        out["s1"][sl] = (a0 + b0).sum(axis=0)
        out["s2"][sl] = (a0**2 + b0**2).sum(axis=0)
        out["p"][sl] = _wilcoxon_p(d)
    out["ia"], out["ib"] = ia, ib
    return out


def _study_pairs(study: str, rows: pl.DataFrame) -> pl.DataFrame:
    designs, x = _matrix(rows)
    s = _pair_stats(x)
    n = s["n"]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_diff = np.where(n > 0, s["sum_d"] / n, np.nan)
        mad = np.where(n > 0, s["sum_abs"] / n, np.nan)
        alpha = np.where(n >= 2, alpha_two_coders(n, s["sq"], s["s1"], s["s2"]), np.nan)
    side = {
        f"{c}_{tag}": designs[c].gather(idx)
        for tag, idx in (("a", s["ia"]), ("b", s["ib"]))
        for c in DESIGN_KEYS
    }
    return pl.DataFrame(
        {
            "study": [study] * n.size,
            **side,
            "n_items": n.astype(np.int64),
            "mean_diff": mean_diff,
            "mad": mad,
            "alpha": alpha,
            "wilcoxon_p": s["p"],
        },
        schema_overrides={"study": pl.String},
    )


def design_pairs(item_scores: pl.DataFrame, meaningful: float = 0.2) -> pl.DataFrame:
    """Every unordered pair of designs within a study (k designs → k(k−1)/2 rows), compared
    on the items both scored: mean and absolute difference (a − b), mean absolute difference
    per item, interval α with the two designs as coders, a paired Wilcoxon test, and which
    design choices differ ("model" compares the judge column).

    a precedes b in the order of the design columns. The items × designs matrix is built once
    per study; counts, means, MAD and α are vectorised over pairs in chunks. A pair that shares
    no item keeps its row with null statistics; α and p need two shared items.
    """
    parts = [
        _study_pairs(study, rows)
        for (study,), rows in item_scores.group_by("study", maintain_order=True)
    ]
    schema = {name: col.dtype.type for name, col in DesignPairs.to_schema().columns.items()}
    if not parts:
        return validate(pl.DataFrame(schema=schema), DesignPairs)
    differ = [
        pl.when(pl.col(f"{col}_a") != pl.col(f"{col}_b")).then(pl.lit(choice))
        for choice, col in CHOICE_COLUMNS.items()
    ]
    out = (
        pl.concat(parts)
        .with_columns(pl.col("mean_diff", "mad", "alpha", "wilcoxon_p").fill_nan(None))
        .with_columns(
            pl.col("mean_diff").abs().alias("abs_diff"),
            (pl.col("wilcoxon_p") < 0.05).alias("sig"),
            (pl.col("mean_diff").abs() > meaningful).alias("meaningful"),
            pl.concat_str(differ, separator="+", ignore_nulls=True).alias("differs"),
            pl.sum_horizontal(d.is_not_null() for d in differ).cast(pl.Int64).alias("n_differ"),
        )
        .with_columns(
            pl.when(pl.col("n_differ") == 0)
            .then(pl.lit("none"))
            .otherwise("differs")
            .alias("differs")
        )
        .select(list(schema))
        .sort(["study", *(f"{c}_a" for c in DESIGN_KEYS), *(f"{c}_b" for c in DESIGN_KEYS)])
    )
    return validate(out, DesignPairs)
