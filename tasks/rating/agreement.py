"""Judge versus judge: every pair of designs in a study compared item by item, and which of the
design choices (model, prompt level, scale) the two differ in."""

from __future__ import annotations

import numpy as np
import polars as pl

from schemas.design_pairs import CHOICES, DesignPairs
from schemas.scores import DESIGN, with_readout
from schemas.validate import validate
from tasks.cuts import SIG_P, above_expr, below_expr
from tasks.equivalence import tost
from tasks.matrix import items_by_designs
from tasks.multiplicity import with_adjusted
from tasks.stats import alpha_two_coders, signed_rank

DESIGN_KEYS = DESIGN[1:]  # a design within its study
CHOICE_COLUMNS = dict(zip(CHOICES, ("judge", "prompt_level", "scale", "readout"), strict=True))
CHUNK_CELLS = 1_000_000  # items × pairs per chunk (the rank test holds ~15 arrays of this size)


def _wilcoxon_p(d: np.ndarray) -> np.ndarray:
    """Two-sided signed-rank p per column of paired differences d (NaN = item not shared).

    tasks.stats.signed_rank, the rule tasks.stats.wilcoxon (and so rating_metrics) uses:
    exact null distribution for ≤ 50 differences with no zero and no tie, else the
    normal approximation with tie and continuity corrections; never a permutation test. One
    vectorised call for all pairs of a chunk (scipy's "auto" one pair at a time ran a
    permutation test for each small tied pair: minutes for a study's 666 pairs).
    """
    return signed_rank(d)["p"]


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


def _study_pairs(study: str, rows: pl.DataFrame, margin: float) -> pl.DataFrame:
    designs, x = items_by_designs(rows, DESIGN_KEYS, "score_1to7")
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
    equiv = tost(n, s["sum_d"], s["sq"], margin)
    return pl.DataFrame(
        {
            "study": [study] * n.size,
            **side,
            "n_items": n.astype(np.int64),
            "mean_diff": mean_diff,
            "mad": mad,
            "alpha": alpha,
            "wilcoxon_p": s["p"],
            "diff_lo": equiv["lo"],
            "diff_hi": equiv["hi"],
            "tost_p": equiv["p"],
            "equivalent": equiv["verdict"],
        },
        schema_overrides={"study": pl.String, "equivalent": pl.String},
    )


def design_pairs(
    item_scores: pl.DataFrame, meaningful: float = 0.2, margin: float = 0.2
) -> pl.DataFrame:
    """Every unordered pair of designs within a study (k designs → k(k−1)/2 rows), compared
    on the items both scored: mean and absolute difference (a − b), mean absolute difference
    per item, interval α with the two designs as coders, a paired Wilcoxon test (raw, and
    Holm / Benjamini–Hochberg adjusted over all pairs of the study), a TOST equivalence test
    against ±margin, and which design choices differ ("model" compares the judge column).

    a precedes b in the order of the design columns. The items × designs matrix is built once
    per study; counts, means, MAD, α, p and TOST are vectorised over pairs in chunks. A pair
    that shares no item keeps its row with null statistics; α, p and TOST need two shared
    items (fewer: equivalence "inconclusive"). sig and meaningful meet their cuts through
    tasks.cuts, so an |difference| of 0.20000000000000004 is on the cut 0.2, not above it.
    """
    needed = with_readout(item_scores).select(
        "study", *DESIGN_KEYS, "item_id", "score_1to7"
    )  # copy less
    parts = [
        _study_pairs(study, rows, margin)
        for (study,), rows in needed.group_by("study", maintain_order=True)
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
        .with_columns(
            pl.col(
                "mean_diff", "mad", "alpha", "wilcoxon_p", "diff_lo", "diff_hi", "tost_p"
            ).fill_nan(None)
        )
        .pipe(with_adjusted, "wilcoxon_p", ["study"], "p")
        .with_columns(
            pl.col("mean_diff").abs().alias("abs_diff"),
            below_expr(pl.col("wilcoxon_p"), SIG_P).alias("sig"),
            above_expr(pl.col("mean_diff").abs(), meaningful).alias("meaningful"),
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
