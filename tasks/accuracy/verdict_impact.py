"""Does a design choice change whether a TRUE/FALSE judge is right? Chi-square of correctness ×
choice and Cochran's Q across designs (verdict_tests); McNemar's test and a TOST equivalence
test for every pair of designs that differ in one choice only (verdict_pairs); each level of a
choice averaged over the other choices, the base of Table 17 (verdict_levels)."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
from scipy import stats as sps

from schemas.validate import validate
from schemas.verdict_levels import VerdictLevels
from schemas.verdict_pairs import CHOICES, VerdictPairs
from schemas.verdict_tests import VerdictTests
from schemas.verdicts import EFFORT_NA, VERDICT_DESIGN
from tasks.accuracy.consensus import design_verdicts
from tasks.accuracy.metrics import truth_labels
from tasks.cuts import SIG_P, below, below_expr
from tasks.equivalence import tost
from tasks.matrix import items_by_designs
from tasks.multiplicity import with_adjusted
from tasks.stats import one_blas_thread

EXACT_BELOW = 25  # McNemar: exact binomial when fewer discordant pairs than this
DESIGN_KEYS = VERDICT_DESIGN[1:]  # a design within its study
CHOICE_COLUMNS = dict(zip(CHOICES, ("judge", "prompt_level", "reasoning_effort"), strict=True))


def correctness(
    verdicts: pl.DataFrame, consensus: pl.DataFrame, truth: str = "reference"
) -> pl.DataFrame:
    """One row per design × item it resolved that has a truth: `correct` (Int64 0/1)."""
    return (
        design_verdicts(verdicts)
        .join(truth_labels(consensus, truth), on=["study", "item_id"], how="inner")
        .filter(pl.col("verdict").is_not_null() & pl.col("truth").is_not_null())
        .select(
            *VERDICT_DESIGN,
            "item_id",
            (pl.col("verdict") == pl.col("truth").cast(pl.Int64)).cast(pl.Int64).alias("correct"),
        )
    )


def _finite(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def _chi2(
    rows: pl.DataFrame, column: str
) -> tuple[float | None, float, float | None, float | None]:
    """(chi2, dof, p, Cramér's V) of correct × column: pingouin's Pearson row (Yates'
    correction when dof = 1, as scipy.stats.chi2_contingency). One outcome only (every row
    right, or every row wrong) gives dof 0, chi2 0, p 1 and no V."""
    if rows.is_empty():
        return None, 0.0, None, None
    import pingouin as pg  # here, not at the top: it costs every run 0.45 s of start-up

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, _, st = pg.chi2_independence(rows.to_pandas(), x="correct", y=column)
    row = st.set_index("test").loc["pearson"]
    return _finite(row["chi2"]), float(row["dof"]), _finite(row["pval"]), _finite(row["cramer"])


def _cochran(matrix: np.ndarray) -> tuple[float | None, float, float | None]:
    """(Q, dof, p) of pingouin.cochran over the items (rows) every design (column) resolved.
    Undefined (null) with fewer than 3 such items or when every item is unanimous."""
    k = matrix.shape[1]
    complete = matrix[~np.isnan(matrix).any(axis=1)]
    if complete.shape[0] < 3:
        return None, float(k - 1), None
    wide = pl.DataFrame({f"d{j}": complete[:, j] for j in range(k)}).to_pandas()
    import pingouin as pg

    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        st = pg.cochran(wide)
    return _finite(st["Q"].iloc[0]), float(st["dof"].iloc[0]), _finite(st["p_unc"].iloc[0])


def _test_row(study: str, test: str, choice: str, n_levels: int, n_obs: int, stats: tuple):
    statistic, dof, p, *v = stats
    return {
        "study": study,
        "test": test,
        "choice": choice,
        "n_levels": n_levels,
        "n_obs": n_obs,
        "statistic": statistic,
        "dof": dof,
        "p": p,
        "cramers_v": v[0] if v else None,
        "sig": below(p, SIG_P),
    }


def verdict_tests(
    verdicts: pl.DataFrame, consensus: pl.DataFrame, truth: str = "reference"
) -> pl.DataFrame:
    """Per study: for each design choice with at least two levels, the chi-square test of
    independence of correctness × choice over the design × item correctness rows; and Cochran's
    Q across the study's designs on the items every one of them resolved (with a truth).

    The chi-square treats the design × item rows as independent, which they are not (every
    design sees the same items): read it as a descriptive screen; Cochran's Q and the McNemar
    pairs are the paired tests. "n/a" reasoning effort is not a level of that choice: its
    designs leave the reasoning-effort test (they differ from the others in provider, not in
    effort), and the test needs two real effort levels. A design that resolved no item at all
    stays out of Cochran's Q (it would leave no complete item); n_levels counts those tested.
    p_holm and p_bh adjust p over the family of the study's tests in this table.
    """
    return tests_of(correctness(verdicts, consensus, truth))


def tests_of(correct: pl.DataFrame) -> pl.DataFrame:
    """`verdict_tests` from correctness rows (VERDICT_DESIGN, item_id, correct 0/1): shared by
    the study types whose verdicts are right or wrong (accuracy; pairwise against the human
    choice, tasks/pairwise/verdict_tests.py)."""
    out = []
    for (study,), rows in correct.group_by("study", maintain_order=True):
        for choice, column in CHOICE_COLUMNS.items():
            kept = (
                rows.filter(pl.col(column) != EFFORT_NA) if choice == "reasoning_effort" else rows
            )
            n_levels = kept[column].n_unique()
            if n_levels >= 2:
                out.append(
                    _test_row(
                        study,
                        "chi2_independence",
                        choice,
                        n_levels,
                        kept.height,
                        _chi2(kept.select("correct", column), column),
                    )
                )
        designs, x = items_by_designs(rows, DESIGN_KEYS, "correct")
        if designs.height >= 2:
            n_complete = int((~np.isnan(x).any(axis=1)).sum())
            out.append(
                _test_row(study, "cochran_q", "design", designs.height, n_complete, _cochran(x))
            )
    schema = {name: col.dtype.type for name, col in VerdictTests.to_schema().columns.items()}
    tested = {k: v for k, v in schema.items() if k not in ("p_holm", "p_bh")}
    frame = with_adjusted(pl.DataFrame(out, schema=tested), "p", ["study"], "p")
    return validate(frame.select(list(schema)).sort("study", "test", "choice"), VerdictTests)


def mcnemar(b: np.ndarray, c: np.ndarray) -> dict[str, np.ndarray]:
    """McNemar's test per pair from its discordant counts b (a right, b wrong) and c.

    The same formulas as pingouin.chi2_mcnemar (tests check it): chi2 = (|b − c| − 1)² / (b + c)
    with Edwards' continuity correction, and the exact two-sided binomial p = min(1, 2·P(X ≤
    min(b, c))), X ~ Bin(b + c, ½). `p` is the exact one below EXACT_BELOW discordant pairs
    (where the chi-square approximation is poor) and the chi-square one above. With no
    discordant pair chi2 is undefined and the exact p is 1.
    """
    b, c = np.asarray(b, dtype=float), np.asarray(c, dtype=float)
    n = b + c
    with np.errstate(divide="ignore", invalid="ignore"):
        chi2 = np.where(n > 0, (np.abs(b - c) - 1) ** 2 / n, np.nan)
    p_approx = np.where(n > 0, sps.chi2.sf(chi2, 1), np.nan)
    p_exact = np.minimum(1.0, 2 * sps.binom.cdf(np.minimum(b, c), n, 0.5))
    exact = n < EXACT_BELOW
    return {
        "chi2": chi2,
        "p_approx": p_approx,
        "p_exact": p_exact,
        "p": np.where(exact, p_exact, p_approx),
        "method": np.where(exact, "exact", "chi2_cc"),
    }


def _differ(designs: pl.DataFrame, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """pairs × choices: does design a differ from design b in the choice? "n/a" is no effort
    level, so it differs from no effort: a judge without effort control pairs with each effort
    design of another judge at the same prompt level (every judge is in the model row)."""
    out = []
    for col in CHOICE_COLUMNS.values():
        a, b = designs[col].to_numpy()[ia], designs[col].to_numpy()[ib]
        d = a != b
        if col == "reasoning_effort":
            d &= (a != EFFORT_NA) & (b != EFFORT_NA)
        out.append(d)
    return np.column_stack(out)


def _study_pairs(
    study: str, rows: pl.DataFrame, designs: pl.DataFrame, margin: float
) -> pl.DataFrame | None:
    designs, x = items_by_designs(rows, DESIGN_KEYS, "correct", designs)
    ia, ib = np.triu_indices(designs.height, 1)
    differ = _differ(designs, ia, ib)
    single = differ.sum(axis=1) == 1
    ia, ib, which = ia[single], ib[single], differ[single].argmax(axis=1)
    if ia.size == 0:
        return None
    right = np.nan_to_num(x, nan=0.0)
    wrong = np.where(np.isnan(x), 0.0, 1.0 - x)
    scored = (~np.isnan(x)).astype(float)
    # designs × designs counts over the items both scored, one matrix product each
    n = (scored.T @ scored)[ia, ib].astype(np.int64)
    both_right = (right.T @ right)[ia, ib]
    b = (right.T @ wrong)[ia, ib].astype(np.int64)
    c = (wrong.T @ right)[ia, ib].astype(np.int64)
    test = mcnemar(b, c)
    # per item d = correct_a − correct_b ∈ {−1, 0, 1}: Σd = b − c, Σd² = b + c
    equiv = tost(n, b - c, b + c, margin)
    has = n > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        acc_a = np.where(has, (both_right + b) / n, np.nan)
        acc_b = np.where(has, (both_right + c) / n, np.nan)
        corrected = (b == 0) | (c == 0)
        odds = np.where(corrected, (b + 0.5) / (c + 0.5), b / c)
    side = {
        f"{col}_{tag}": designs[col].gather(idx)
        for tag, idx in (("a", ia), ("b", ib))
        for col in DESIGN_KEYS
    }
    return pl.DataFrame(
        {
            "study": [study] * ia.size,
            "choice": np.array(CHOICES)[which],
            **side,
            "n_items": n,
            "accuracy_a": acc_a,
            "accuracy_b": acc_b,
            "acc_diff": acc_a - acc_b,
            "abs_acc_diff": np.abs(acc_a - acc_b),
            "b": b,
            "c": c,
            "odds_ratio": np.where(has, odds, np.nan),
            "or_corrected": corrected,
            "chi2": test["chi2"],
            "p_approx": test["p_approx"],
            "p_exact": np.where(has, test["p_exact"], np.nan),
            "p": np.where(has, test["p"], np.nan),
            "method": [str(m) if h else None for m, h in zip(test["method"], has, strict=True)],
            "margin": np.full(ia.size, margin),
            "diff_lo": equiv["lo"],
            "diff_hi": equiv["hi"],
            "tost_p": equiv["p"],
            "equivalent": equiv["verdict"].astype(str),
        },
        schema_overrides={
            "study": pl.String,
            "choice": pl.String,
            "method": pl.String,
            "equivalent": pl.String,
        },
    )


def verdict_pairs(
    verdicts: pl.DataFrame, consensus: pl.DataFrame, *, margin: float, truth: str = "reference"
) -> pl.DataFrame:
    """Every pair of designs in a study that differ in exactly one choice (model = judge,
    prompt level, reasoning effort), compared on the items both resolved that have a truth:
    accuracies, their difference (a − b), the discordant counts b (a right, b wrong) and c,
    the odds ratio b / c — (b + ½)/(c + ½) when either is 0, flagged by or_corrected — and
    McNemar's test (see `mcnemar`), its p adjusted by Holm and Benjamini–Hochberg over the
    family of all the study's pairs (p_holm, p_bh). `equivalent` is the TOST verdict on the
    per-item correctness differences (tasks.equivalence, margin ± `margin` as a fraction):
    "yes" the 90% CI (diff_lo, diff_hi) lies inside the margin, "no" wholly beyond it,
    "inconclusive" otherwise or with fewer than two shared items. a precedes b in design
    order. "n/a" is no effort level, so it never makes a difference in effort (`_differ`): a
    judge without effort control pairs with every effort design of another judge at the same
    prompt level. A pair without shared items keeps its row with null statistics.
    """
    designs = verdicts.select(VERDICT_DESIGN).unique()
    return pairs_of(correctness(verdicts, consensus, truth), designs, margin=margin)


@one_blas_thread()
def pairs_of(correct: pl.DataFrame, designs: pl.DataFrame, *, margin: float) -> pl.DataFrame:
    """`verdict_pairs` from correctness rows (see `tests_of`) and every design (VERDICT_DESIGN;
    a design without a scored item keeps its pairs, with null statistics)."""
    parts = [
        part
        for (study,), own in designs.group_by("study", maintain_order=True)
        if (part := _study_pairs(study, correct.filter(pl.col("study") == study), own, margin))
        is not None
    ]
    schema = {name: col.dtype.type for name, col in VerdictPairs.to_schema().columns.items()}
    if not parts:
        return validate(pl.DataFrame(schema=schema), VerdictPairs)
    out = (
        pl.concat(parts)
        .with_columns(
            pl.col(
                "accuracy_a", "accuracy_b", "acc_diff", "abs_acc_diff", "odds_ratio", "chi2"
            ).fill_nan(None),
            pl.col("p_approx", "p_exact", "p", "diff_lo", "diff_hi", "tost_p").fill_nan(None),
        )
        .with_columns(below_expr(pl.col("p"), SIG_P).alias("sig"))
        .pipe(with_adjusted, "p", ["study"], "p")
        .select(list(schema))
        .sort(
            ["study", "choice", *(f"{k}_a" for k in DESIGN_KEYS), *(f"{k}_b" for k in DESIGN_KEYS)]
        )
    )
    return validate(out, VerdictPairs)


def verdict_levels(metrics: pl.DataFrame) -> pl.DataFrame:
    """accuracy_metrics → one row per study × subset × design choice × level of it: the
    level's accuracy and leniency averaged over the other choices (Table 17 compares these).

    Averages are unweighted over designs and nested so that every judge counts once: a judge's
    designs are first averaged over its reasoning efforts (one for a judge without effort
    control, "n/a"), then over its prompt levels. model: each judge's mean over its prompt
    levels of its mean over efforts. prompt_level: over the judges (all of them) of each
    judge's mean over its efforts at that level. reasoning_effort: over the judges with real
    effort levels ("n/a" is none) of each judge's mean over its prompt levels at that effort.
    A design without a scored item (accuracy null) or without errors (leniency null) is left
    out of that mean; n_judges and n_designs count the judges and designs with an accuracy
    behind the level's value.
    """
    c = pl.col
    keys = ["study", "subset"]
    means = (c("accuracy").mean(), c("leniency").mean())

    def first(by: list[str], rows: pl.DataFrame) -> pl.DataFrame:
        """Designs → one value per judge and the choice's level (the rest averaged)."""
        return rows.group_by(by).agg(c("accuracy").count().alias("n_designs"), *means)

    def then(by: list[str], rows: pl.DataFrame, n_judges: pl.Expr) -> pl.DataFrame:
        """Per-judge values → one per level, every judge once."""
        return rows.group_by(by).agg(n_judges.alias("n_judges"), c("n_designs").sum(), *means)

    efforts_averaged = first([*keys, "judge", "prompt_level"], metrics)
    prompts_averaged = first(
        [*keys, "judge", "reasoning_effort"],
        metrics.filter(c("reasoning_effort") != EFFORT_NA),
    )
    judges = c("accuracy").count()  # judges with a value at the level
    parts = {
        "model": then([*keys, "judge"], efforts_averaged, (judges > 0).cast(pl.Int64)),
        "prompt_level": then([*keys, "prompt_level"], efforts_averaged, judges),
        "reasoning_effort": then([*keys, "reasoning_effort"], prompts_averaged, judges),
    }
    schema = {name: col.dtype.type for name, col in VerdictLevels.to_schema().columns.items()}
    out = pl.concat(
        [
            part.rename({CHOICE_COLUMNS[choice]: "level"})
            .with_columns(choice=pl.lit(choice))
            .select(list(schema))
            .cast(schema)
            for choice, part in parts.items()
        ]
    )
    return validate(out.sort("study", "subset", "choice", "level"), VerdictLevels)
