"""Tone gaps: how far a judge's score of the same text moves with its style (confident vs
hesitant, native vs non-native), set against how far it moves when the judge is simply asked
again (repeat noise).

A text's score under one version is the mean of its ok repeats; every comparison pairs the two
versions of the same text, so text quality cancels and only the rewrite differs. Intervals are
percentile-bootstrap 95% over texts (tasks.stats.bootstrap_ci), one generator per comparison
from the seed and the comparison's names, so a row does not depend on which others ran.

Every statistic meets its cut through tasks.cuts (one tolerance: a mean 1e-15 below the pass
mark passes, a gap of 1e-15 is a tie). Every p value also comes adjusted for multiple
comparisons (tasks.multiplicity, Holm and Benjamini–Hochberg) over its FAMILY.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandera.polars as pa
import polars as pl
import scipy.stats

from schemas.tone_criterion_gaps import ToneCriterionGaps
from schemas.tone_gaps import ToneGaps
from schemas.tone_human_relation import ToneHumanRelation
from schemas.tone_scores import (
    CRITERION_RANGE,
    ORIGINAL,
    TONE_DESIGN,
    TONE_POLES,
    ToneScores,
)
from schemas.tone_threshold_sweep import ToneThresholdSweep
from schemas.tone_version_scores import ToneVersionScores
from schemas.validate import validate
from tasks.cuts import above, at_least, at_least_expr, below
from tasks.judging.parse import ERROR, OK
from tasks.multiplicity import with_adjusted
from tasks.notes import FAILED
from tasks.stats import bootstrap_ci, design_rng, wilcoxon

THRESHOLD = 6.0  # default pass mark on the 1–10 overall score
THRESHOLDS = tuple(1.0 + 0.5 * k for k in range(19))  # 1, 1.5, …, 10
# The family a table's p values are adjusted over: all tests of that table in one study (for
# tone_gaps: judges × prompt levels × rewriters × axes). A study is the unit a reader
# scans for "which of these gaps are real", and its size does not depend on other studies.
FAMILY = ["study"]
TEXT = [*TONE_DESIGN, "text_id"]
ORIGINAL_KEYS = ["study", "judge", "model", "prompt_level", "text_id"]
COMPARISON = [*TONE_DESIGN, "pole_a", "pole_b"]
SIDE_VALUES = ("n_calls", "n_ok", "n_failed", "n_error", "mean", "var")
COUNTS = SIDE_VALUES[:4]


def _num(x: float | None) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def _empty_schema(model: type[pa.DataFrameModel]) -> dict[str, pl.DataType]:
    return {name: col.dtype.type for name, col in model.to_schema().columns.items()}


def _finish(
    rows: list[dict],
    model: type[pa.DataFrameModel],
    keys: list[str],
    p_columns: Sequence[str] = (),
) -> pl.DataFrame:
    """Rows → the validated table, each of `p_columns` with its `<p>_holm` and `<p>_bh` (each
    p column its own family of tests within FAMILY)."""
    out = pl.DataFrame(rows, schema=_empty_schema(model))
    for p in p_columns:
        out = with_adjusted(out, p, FAMILY, p)
    return validate(out.select(list(model.to_schema().columns)).sort(keys), model)


# ── versions and their pairing ─────────────────────────────────────────────────────────────


def _version_stats(tone_scores: pl.DataFrame) -> pl.DataFrame:
    """One row per version (text × pole of a comparison): planned, ok, failed (tasks.notes.
    FAILED) and provider-error calls, mean and variance (ddof 1) of the ok overall scores."""
    c = pl.col
    ok = c("status") == OK
    return tone_scores.group_by([*TEXT, "pole"]).agg(
        pl.len().cast(pl.Int64).alias("n_calls"),
        ok.sum().cast(pl.Int64).alias("n_ok"),
        c("status").is_in(FAILED).sum().cast(pl.Int64).alias("n_failed"),
        (c("status") == ERROR).sum().cast(pl.Int64).alias("n_error"),
        c("overall").filter(ok).mean().alias("mean"),
        c("overall").filter(ok).var(ddof=1).alias("var"),
    )


def _pole_table(poles: Mapping[str, tuple[str, str]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "axis": list(poles),
            "pole_a": [a for a, _ in poles.values()],
            "pole_b": [b for _, b in poles.values()],
        },
        schema={"axis": pl.String, "pole_a": pl.String, "pole_b": pl.String},
    )


def _check_poles(versions: pl.DataFrame, poles: Mapping[str, tuple[str, str]]) -> None:
    """Every rewritten version must be one side of its axis's pair: a gap is only defined then."""
    known = {(axis, pole) for axis, pair in poles.items() for pole in pair}
    bad = sorted(set(versions.select("axis", "pole").unique().rows()) - known)
    if bad:
        raise ValueError(f"versions whose (axis, pole) has no pair to compare: {bad}; {poles}")


def _sides(
    versions: pl.DataFrame,
    keys: list[str],
    values: Sequence[str],
    poles: Mapping[str, tuple[str, str]],
) -> pl.DataFrame:
    """Version rows → one row per `keys` (which hold axis) with each value column for pole A
    (suffix _a) and pole B (_b), null where that version is absent, plus the pole names."""
    _check_poles(versions, poles)
    table = _pole_table(poles)
    named = versions.join(table, on="axis", how="inner")

    def side(pole: str, suffix: str) -> pl.DataFrame:
        rows = named.filter(pl.col("pole") == pl.col(pole))
        return rows.select(*keys, *(pl.col(v).alias(f"{v}_{suffix}") for v in values))

    pairs = side("pole_a", "a").join(side("pole_b", "b"), on=keys, how="full", coalesce=True)
    return pairs.join(table, on="axis", how="left")


def _human(tone_scores: pl.DataFrame) -> pl.DataFrame:
    """study, text_id → human (the text's human rating); a text with two ratings is an error."""
    per_text = tone_scores.group_by("study", "text_id").agg(
        pl.col("human_score").drop_nulls().n_unique().alias("n_human"),
        pl.col("human_score").drop_nulls().first().alias("human"),
    )
    clash = per_text.filter(pl.col("n_human") > 1)
    if clash.height:
        raise ValueError(
            f"{clash.height} text(s) carry more than one human_score, e.g. "
            f"{clash.select('study', 'text_id').head(5).rows()}"
        )
    return per_text.drop("n_human")


def _texts(tone_scores: pl.DataFrame, poles: Mapping[str, tuple[str, str]]) -> pl.DataFrame:
    """One row per comparison × text that has any rewritten version: each pole's counts, mean
    and variance, the original's mean (over all its ok calls, whatever axis label they carry)
    and the human rating."""
    c = pl.col
    stats = _version_stats(tone_scores)
    texts = _sides(stats.filter(c("pole") != ORIGINAL), TEXT, SIDE_VALUES, poles)
    originals = (
        tone_scores.filter((c("pole") == ORIGINAL) & (c("status") == OK))
        .group_by(ORIGINAL_KEYS)
        .agg(c("overall").mean().alias("mean_orig"))
    )
    counts = [f"{v}_{s}" for v in COUNTS for s in ("a", "b")]
    return (
        texts.with_columns(c(*counts).fill_null(0))
        .join(originals, on=ORIGINAL_KEYS, how="left")
        .join(_human(tone_scores), on=["study", "text_id"], how="left")
        .sort(TEXT)  # a fixed order: the bootstrap draws row positions
    )


def _both(texts: pl.DataFrame) -> pl.DataFrame:
    return texts.filter(pl.col("mean_a").is_not_null() & pl.col("mean_b").is_not_null())


# ── statistics of one comparison ───────────────────────────────────────────────────────────


def _ci(
    a: np.ndarray, b: np.ndarray, n_boot: int, seed: int, key: Sequence[str]
) -> tuple[float | None, float | None]:
    """Percentile 95% interval of mean(a − b) over resampled texts (paired rows)."""
    ci = bootstrap_ci(a, b, np.arange(len(a)), n_boot, design_rng(seed, key))
    return ci["bias_lo"], ci["bias_hi"]


def _noise(both: pl.DataFrame) -> tuple[float | None, float | None]:
    """(pooled within-version repeat SD, harmonic mean of ok repeats per version) over the A
    and B versions of the paired texts. The pool weights each version's variance by its
    n_ok − 1 degrees of freedom; versions with one ok repeat add nothing to it."""
    n = np.concatenate([both["n_ok_a"].to_numpy(), both["n_ok_b"].to_numpy()]).astype(float)
    var = np.concatenate([both["var_a"].to_numpy(), both["var_b"].to_numpy()]).astype(float)
    if n.size == 0:
        return None, None
    dof = np.where(n >= 2, n - 1, 0.0)
    pooled = float(np.sum(dof * np.nan_to_num(var)) / dof.sum()) if dof.sum() > 0 else None
    r_hmean = float(n.size / np.sum(1.0 / n))
    return (math.sqrt(pooled) if pooled is not None else None), r_hmean


def _passes(mean: np.ndarray, threshold: float) -> np.ndarray:
    """A version passes when its mean is ≥ the pass mark (the genre's accept rule), a mean
    within the tolerance below the mark included."""
    return np.asarray(at_least(mean, threshold), dtype=bool)


def _excludes_zero(lo: float | None, hi: float | None) -> bool | None:
    """The interval lies clear of 0; an end on 0 (within the tolerance) does not."""
    return None if lo is None or hi is None else bool(above(lo, 0.0) or below(hi, 0.0))


def _distinguishable(
    lo: float | None, hi: float | None, gap: float | None, yardstick: float | None
) -> bool | None:
    """A real shift (interval excludes 0) larger than re-asking the judge moves one text
    (|gap| > yardstick, i.e. gap_to_noise beyond ±1); null when either part is undefined."""
    excludes = _excludes_zero(lo, hi)
    if excludes is None or yardstick is None or gap is None:
        return None
    return bool(excludes and above(abs(gap), yardstick))


def _gap_stats(
    grp: pl.DataFrame, key: Sequence[str], threshold: float, n_boot: int, seed: int
) -> dict:
    """Every tone_gaps column after the comparison's names, for one comparison's texts."""
    calls_a, calls_b = grp["n_calls_a"].sum(), grp["n_calls_b"].sum()
    both_sides = {n: int(grp[f"{n}_a"].sum() + grp[f"{n}_b"].sum()) for n in COUNTS}
    both = _both(grp)
    a, b = both["mean_a"].to_numpy(), both["mean_b"].to_numpy()
    d = a - b
    n = len(d)
    gap = float(d.mean()) if n else None
    lo, hi = _ci(a, b, n_boot, seed, [*key, "a-b"])
    _, p, rbc = wilcoxon(a, b)
    noise_sd, r_hmean = _noise(both)
    yardstick = noise_sd * math.sqrt(2 / r_hmean) if noise_sd is not None else None
    distinguishable = _distinguishable(lo, hi, gap, yardstick)
    wins_a, wins_b = int(np.sum(above(d, 0.0))), int(np.sum(below(d, 0.0)))
    pass_a, pass_b = _passes(a, threshold), _passes(b, threshold)
    flip_a, flip_b = int(np.sum(pass_a & ~pass_b)), int(np.sum(pass_b & ~pass_a))
    out = {
        "threshold": float(threshold),
        "ok_rate_a": grp["n_ok_a"].sum() / calls_a if calls_a else None,
        "ok_rate_b": grp["n_ok_b"].sum() / calls_b if calls_b else None,
        "n_calls": both_sides["n_calls"],
        "n_failed": both_sides["n_failed"],
        "n_error": both_sides["n_error"],
        "n_texts": n,
        "mean_a": float(a.mean()) if n else None,
        "mean_b": float(b.mean()) if n else None,
        "gap": gap,
        "gap_lo": lo,
        "gap_hi": hi,
        "wilcoxon_p": p,
        "rank_biserial": rbc,
        "noise_sd": noise_sd,
        "repeats_hmean": r_hmean,
        "noise_yardstick": yardstick,
        "gap_to_noise": gap / yardstick if gap is not None and yardstick else None,
        "distinguishable": distinguishable,
        "n_a_wins": wins_a,
        "n_b_wins": wins_b,
        "n_ties": n - wins_a - wins_b,
        "win_ratio": wins_a / wins_b if wins_b else None,
        "n_flip_a_pass": flip_a,
        "n_flip_b_pass": flip_b,
        "share_flip_a_pass": flip_a / n if n else None,
        "share_flip_b_pass": flip_b / n if n else None,
    }
    for side in ("a", "b"):
        vs = grp.filter(pl.col(f"mean_{side}").is_not_null() & pl.col("mean_orig").is_not_null())
        v, o = vs[f"mean_{side}"].to_numpy(), vs["mean_orig"].to_numpy()
        lo_o, hi_o = _ci(v, o, n_boot, seed, [*key, f"{side}-original"])
        out |= {
            f"n_{side}_orig": len(v),
            f"gap_{side}_orig": float(np.mean(v - o)) if len(v) else None,
            f"gap_{side}_orig_lo": lo_o,
            f"gap_{side}_orig_hi": hi_o,
        }
    return out


def _spearman(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    """(rho, p); None below 3 points or when either side is constant."""
    if len(x) < 3:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: rho is NaN, reported as None
        rho, p = scipy.stats.spearmanr(x, y)
    return _num(rho), _num(p)


# ── the tables ─────────────────────────────────────────────────────────────────────────────


def version_scores(tone_scores: pl.DataFrame, threshold: float = THRESHOLD) -> pl.DataFrame:
    """tone_scores → tone_version_scores: one row per study × judge × prompt level ×
    rewriter × axis × text × pole (originals included, under their own rewriter "none").

    sd_overall is the repeat SD of the ok scores (the judge's noise on one text); verdict_share
    the share of ok repeats whose overall is ≥ threshold. Both null without ok repeats (SD also
    with one)."""
    c = pl.col
    scores = validate(tone_scores, ToneScores)
    ok = c("status") == OK
    out = (
        scores.group_by([*TEXT, "pole"])
        .agg(
            pl.len().cast(pl.Int64).alias("n_calls"),
            ok.sum().cast(pl.Int64).alias("n_ok"),
            c("overall").filter(ok).mean().alias("mean_overall"),
            c("overall").filter(ok).std(ddof=1).alias("sd_overall"),
            at_least_expr(c("overall"), threshold).filter(ok).mean().alias("verdict_share"),
        )
        .with_columns(pl.lit(float(threshold)).alias("threshold"))
        .select(list(ToneVersionScores.to_schema().columns))
        .sort([*TEXT, "pole"])
    )
    return validate(out, ToneVersionScores)


def tone_gaps(
    tone_scores: pl.DataFrame,
    threshold: float = THRESHOLD,
    n_boot: int = 1000,
    seed: int = 0,
    poles: Mapping[str, tuple[str, str]] = TONE_POLES,
) -> pl.DataFrame:
    """tone_scores → tone_gaps: one row per study × judge × prompt level × rewriter ×
    axis, pole A (high / native) against pole B (low / non_native) on the same texts.

    Over the texts whose two versions both have an ok score (n_texts): the mean gap A − B with
    its bootstrap interval, the paired Wilcoxon test and rank-biserial r, wins, and verdict
    flips (a version passes when its mean is ≥ threshold). The noise yardstick is the SD that
    one text's gap would have from repeat noise alone: pooled repeat SD × sqrt(2 / R), R the
    harmonic mean of ok repeats per version (for R repeats on both sides exactly the SD of a
    difference of two R-repeat means). A gap is distinguishable from noise when its interval
    excludes 0 and |gap| > yardstick (gap_to_noise beyond ±1): a real shift, and one larger
    than re-asking the judge moves a single text; null when either part is undefined (fewer
    than 2 texts, n_boot 0, or no version with 2 ok repeats). A version's gap to the original
    uses the texts where both have an ok score (n_a_orig, n_b_orig). wilcoxon_p_holm and
    wilcoxon_p_bh adjust the Wilcoxon p over the study's gap tests (FAMILY: all its rows).
    """
    texts = _texts(validate(tone_scores, ToneScores), poles)
    rows = [
        dict(zip(COMPARISON, key, strict=True)) | _gap_stats(grp, key, threshold, n_boot, seed)
        for key, grp in texts.group_by(COMPARISON, maintain_order=True)
    ]
    return _finish(rows, ToneGaps, TONE_DESIGN, ["wilcoxon_p"])


def threshold_sweep(
    tone_scores: pl.DataFrame,
    thresholds: Sequence[float] = THRESHOLDS,
    poles: Mapping[str, tuple[str, str]] = TONE_POLES,
) -> pl.DataFrame:
    """tone_scores → tone_threshold_sweep: per comparison and pass mark, the share of paired
    texts whose verdict flips with the pole (A passes and B fails, and the reverse), as in
    tone_gaps; every comparison gets every threshold (shares null without paired texts)."""
    c = pl.col
    texts = _texts(validate(tone_scores, ToneScores), poles)
    marks = pl.DataFrame(
        {"threshold": [float(t) for t in thresholds]}, schema={"threshold": pl.Float64}
    )
    pass_a = at_least_expr(c("mean_a"), c("threshold"))  # the cut is the row's pass mark
    pass_b = at_least_expr(c("mean_b"), c("threshold"))
    keys = [*TONE_DESIGN, "threshold"]
    shares = (
        _both(texts)
        .join(marks, how="cross")
        .group_by(keys)
        .agg(
            pl.len().cast(pl.Int64).alias("n_texts"),
            pass_a.mean().alias("pass_share_a"),
            pass_b.mean().alias("pass_share_b"),
            (pass_a & ~pass_b).mean().alias("share_flip_a_pass"),
            (pass_b & ~pass_a).mean().alias("share_flip_b_pass"),
        )
    )
    out = (
        texts.select(TONE_DESIGN)
        .unique()
        .join(marks, how="cross")
        .join(shares, on=keys, how="left")
        .with_columns(c("n_texts").fill_null(0))
        .select(list(ToneThresholdSweep.to_schema().columns))
        .sort(keys)
    )
    return validate(out, ToneThresholdSweep)


def _criteria_long(scores: pl.DataFrame) -> pl.DataFrame:
    """Ok calls of rewritten versions with criteria → one row per call × criterion (score).
    A criteria value that is not a JSON object of numbers in 1–4 is an error, never skipped."""
    c = pl.col
    calls = scores.filter(
        (c("status") == OK) & c("criteria").is_not_null() & (c("pole") != ORIGINAL)
    ).with_row_index("_call")
    index, names, values, problems = [], [], [], []
    for i, raw in enumerate(calls["criteria"]):
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            problems.append((i, raw))
            continue
        for name, value in parsed.items():
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not number or not CRITERION_RANGE[0] <= value <= CRITERION_RANGE[1]:
                problems.append((i, raw))
                continue
            index.append(i)
            names.append(str(name))
            values.append(float(value))
    if problems:
        where = [(calls["judge"][i], calls["text_id"][i], raw) for i, raw in problems[:5]]
        raise ValueError(
            f"{len(problems)} criteria value(s) not a JSON object of scores in "
            f"{CRITERION_RANGE[0]:g}–{CRITERION_RANGE[1]:g}; (judge, text, criteria): {where}"
        )
    long = pl.DataFrame(
        {"_call": index, "criterion": names, "score": values},
        schema={"_call": pl.UInt32, "criterion": pl.String, "score": pl.Float64},
    )
    return calls.select("_call", *TEXT, "pole").join(long, on="_call").drop("_call")


def criterion_gaps(
    tone_scores: pl.DataFrame,
    n_boot: int = 1000,
    seed: int = 0,
    poles: Mapping[str, tuple[str, str]] = TONE_POLES,
) -> pl.DataFrame:
    """tone_scores → tone_criterion_gaps: per comparison and rubric criterion, the mean gap
    A − B of the criterion's 1–4 score (each version: mean over its ok repeats that scored the
    criterion) over texts scored on both, with bootstrap interval and paired Wilcoxon; its p
    adjusted (Holm, BH) over the study's criterion tests (criteria × comparisons)."""
    long = _criteria_long(validate(tone_scores, ToneScores))
    keys = [*TEXT, "criterion"]
    per_version = long.group_by([*keys, "pole"]).agg(pl.col("score").mean().alias("mean"))
    pairs = _sides(per_version, keys, ("mean",), poles).sort(keys)
    rows = []
    for key, grp in pairs.group_by([*TONE_DESIGN, "criterion"], maintain_order=True):
        both = _both(grp)
        a, b = both["mean_a"].to_numpy(), both["mean_b"].to_numpy()
        n = len(a)
        lo, hi = _ci(a, b, n_boot, seed, [*key, "criterion"])
        _, p, rbc = wilcoxon(a, b)
        rows.append(
            dict(zip([*TONE_DESIGN, "criterion"], key, strict=True))
            | {
                "n_texts": n,
                "mean_a": float(a.mean()) if n else None,
                "mean_b": float(b.mean()) if n else None,
                "gap": float(np.mean(a - b)) if n else None,
                "gap_lo": lo,
                "gap_hi": hi,
                "wilcoxon_p": p,
                "rank_biserial": rbc,
            }
        )
    return _finish(rows, ToneCriterionGaps, [*TONE_DESIGN, "criterion"], ["wilcoxon_p"])


def human_relation(
    tone_scores: pl.DataFrame, poles: Mapping[str, tuple[str, str]] = TONE_POLES
) -> pl.DataFrame:
    """tone_scores → tone_human_relation: per comparison, Spearman's rho (and p) of the
    original's mean score with the human rating, over the comparison's texts (those with a
    rewritten version in it) that have both; and of the per-text gap A − B with the human
    rating, over texts with both versions scored — a nonzero rho means the style bonus is
    larger for better (rho > 0) or worse (rho < 0) texts. Null below 3 texts or when constant.
    Each p column is adjusted (Holm, BH) over its own family: that column's tests in the study."""
    texts = _texts(validate(tone_scores, ToneScores), poles)
    has_human = pl.col("human").is_not_null()
    rows = []
    for key, grp in texts.group_by(TONE_DESIGN, maintain_order=True):
        orig = grp.filter(pl.col("mean_orig").is_not_null() & has_human)
        rho_o, p_o = _spearman(orig["mean_orig"].to_numpy(), orig["human"].to_numpy())
        both = _both(grp).filter(has_human)
        gap = both["mean_a"].to_numpy() - both["mean_b"].to_numpy()
        rho_g, p_g = _spearman(gap, both["human"].to_numpy())
        rows.append(
            dict(zip(TONE_DESIGN, key, strict=True))
            | {
                "n_originals": orig.height,
                "rho_original": rho_o,
                "p_original": p_o,
                "n_texts": both.height,
                "rho_gap_human": rho_g,
                "p_gap_human": p_g,
            }
        )
    return _finish(rows, ToneHumanRelation, TONE_DESIGN, ["p_original", "p_gap_human"])
