"""Statistics checked against independent computations (scipy, or by hand)."""

import itertools

import krippendorff
import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from schemas.rating_metrics import RatingMetrics
from schemas.validate import TableError, validate
from tasks import stats
from tasks.rating import metrics
from tasks.rating.metrics import rating_metrics
from tasks.stats import (
    CI_COLUMNS,
    alpha_two_coders,
    bootstrap_ci,
    design_rng,
    interval_alpha,
    kripp_alpha,
    resample_stats,
    wilcoxon,
)

RNG = np.random.default_rng(7)
JUDGE = np.round(RNG.uniform(1, 7, 30), 2)
HUMAN = np.clip(JUDGE + RNG.normal(0.4, 0.8, 30), 1, 7).round(3)


def test_wilcoxon_matches_scipy_and_hand_rank_biserial() -> None:
    w, p, rbc = wilcoxon(JUDGE, HUMAN)
    ref = sps.wilcoxon(JUDGE, HUMAN, alternative="two-sided")
    assert w == pytest.approx(ref.statistic)
    assert p == pytest.approx(ref.pvalue, rel=1e-6)
    d = JUDGE - HUMAN
    d = d[d != 0]
    ranks = sps.rankdata(np.abs(d))
    r_plus, r_minus = ranks[d > 0].sum(), ranks[d < 0].sum()
    assert rbc == pytest.approx((r_plus - r_minus) / (r_plus + r_minus))
    assert rbc < 0  # humans were made higher than the judge


def _alpha_by_hand(a: np.ndarray, b: np.ndarray) -> float:
    """Krippendorff's interval α for two coders, no missing data, from the definition."""
    values = np.concatenate([a, b])
    n = len(values)
    d_o = sum(2 * (x - y) ** 2 for x, y in zip(a, b, strict=True)) / n
    d_e = sum((x - y) ** 2 for x, y in itertools.permutations(values, 2)) / (n * (n - 1))
    return 1 - d_o / d_e


def test_interval_alpha_matches_the_krippendorff_package() -> None:
    """Random coders × units data with missing values, and Krippendorff's textbook example."""
    rng = np.random.default_rng(3)
    for coders, units in [(2, 15), (3, 40), (5, 25)]:
        data = np.round(rng.normal(4, 1.5, (coders, units)), 1)
        data[rng.random(data.shape) < 0.15] = np.nan
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
        assert interval_alpha(data) == pytest.approx(ref, abs=1e-12)
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", 4 coders × 12 units
    nan = np.nan
    textbook = np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
            [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
        ]
    )
    assert interval_alpha(textbook) == pytest.approx(0.849, abs=5e-4)


def test_krippendorff_alpha_matches_definition() -> None:
    assert kripp_alpha(JUDGE, HUMAN) == pytest.approx(_alpha_by_hand(JUDGE, HUMAN))
    assert kripp_alpha(JUDGE, JUDGE) == pytest.approx(1.0)
    assert kripp_alpha(np.ones(4), np.ones(4)) is None  # undefined, not a made-up number
    for value, n in [(6.99, 3), (4.37, 50), (1.1, 333)]:  # rounding leaves Σ-terms ≠ 0 here
        assert kripp_alpha(np.full(n, value), np.full(n, value)) is None


def test_a_judge_one_ulp_from_the_human_means_has_alpha_at_most_1() -> None:
    """Observed disagreement as Σ(v − v̄)², never Σv² − (Σv)²/k: the latter cancelled and gave
    α up to 1 + 2.5e-14 on such judges, which the schema refuses. The two-coder α (resamples,
    power) and the bootstrap interval stay ≤ 1 as well."""
    rng = np.random.default_rng(0)
    for _ in range(100):
        human = rng.integers(1, 8, size=(rng.integers(5, 200), 3)).mean(axis=1)
        judge = np.nextafter(human, 10)
        assert kripp_alpha(judge, human) == 1.0
        a, b = judge - 4, human - 4
        sums = (len(a), np.sum((a - b) ** 2), np.sum(a + b), np.sum(a**2 + b**2))
        assert alpha_two_coders(*sums) <= 1.0
        ci = bootstrap_ci(judge, human, np.arange(len(judge)), 50, rng)
        assert ci["alpha_hi"] <= 1.0


def _exact_alpha(a: np.ndarray, b: np.ndarray) -> float:
    """Two-coder interval α in exact rational arithmetic from the floats given."""
    from fractions import Fraction

    values = [Fraction(float(v)) for v in (*a, *b)]
    mean = sum(values) / len(values)
    expected = 2 * sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    observed = sum(
        2 * (Fraction(float(x)) - Fraction(float(y))) ** 2 for x, y in zip(a, b, strict=True)
    )
    return float(1 - observed / len(values) / expected)


def test_alpha_just_below_1_is_kept_to_full_precision() -> None:
    """A genuine α = 1 − 1e-12 comes out as that, not rounded up to 1 (nothing is clamped) and
    not lost to cancellation (the old form was off by 5e-4 of 1 − α here)."""
    human = np.linspace(1, 7, 40)
    judge = human + 2.5e-6 * np.where(np.arange(40) % 2, 1.0, -1.0)
    exact = _exact_alpha(judge, human)
    assert 1 - exact == pytest.approx(1e-12, rel=0.1)
    got = interval_alpha(np.vstack([judge, human]))
    assert got < 1 and 1 - got == pytest.approx(1 - exact, rel=1e-6, abs=0)


def _scores(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            ("s", "judge", "j", "m", "base", "likert7", item, rep, status, sc, hu)
            for item, rep, status, sc, hu in rows
        ],
        schema=[
            "study",
            "kind",
            "judge",
            "model",
            "prompt_level",
            "scale",
            "item_id",
            "repeat",
            "status",
            "score_1to7",
            "human_1to7",
        ],
        orient="row",
    )


def test_rating_metrics_by_hand() -> None:
    scores = _scores(
        [
            ("a", 0, "ok", 5.0, 4.0),
            ("a", 1, "ok", 7.0, 4.0),  # repeats average to 6
            ("b", 0, "ok", 2.0, 3.0),
            ("b", 1, "unparseable", None, 3.0),
            ("c", 0, "out_of_range", None, 6.0),
            ("c", 1, "error", None, 6.0),
            ("d", 0, "ok", 4.0, 5.5),
            ("d", 1, "ok", 4.0, 5.5),
        ]
    )
    m = rating_metrics(scores).row(0, named=True)
    diffs = np.array([6 - 4, 2 - 3, 4 - 5.5])
    assert m["n_planned"] == 8 and m["n_items"] == 3
    assert m["parse_failure_rate"] == pytest.approx(2 / 8)
    assert m["error_rate"] == pytest.approx(1 / 8)
    assert m["bias"] == pytest.approx(diffs.mean())
    assert m["abs_bias"] == pytest.approx(abs(diffs.mean()))
    assert m["mae"] == pytest.approx(np.abs(diffs).mean())
    assert m["kripp_alpha"] == pytest.approx(
        _alpha_by_hand(np.array([6, 2, 4.0]), np.array([4, 3, 5.5]))
    )


def test_design_without_any_ok_score_is_kept_with_nulls() -> None:
    m = rating_metrics(_scores([("a", 0, "unparseable", None, 4.0)])).row(0, named=True)
    assert m["n_items"] == 0 and m["bias"] is None and m["parse_failure_rate"] == 1.0


def test_design_with_one_item_has_no_intervals() -> None:
    m = rating_metrics(_scores([("a", 0, "ok", 5.0, 4.0)])).row(0, named=True)
    assert m["n_items"] == 1 and m["bias"] == 1.0
    assert all(m[c] is None for c in CI_COLUMNS)


# --- one small fixed example with ties and zero differences, against independent computations

TIED_J = np.array([4, 5, 3, 6, 2, 4, 5, 7, 3, 4, 6, 1.0])
TIED_H = np.array([4, 3, 4, 4, 2, 6, 4, 5, 5, 3, 6, 2.0])  # d: three 0s, |d| tied at 1 and 2


def _signed_ranks(judge: np.ndarray, human: np.ndarray) -> tuple[float, float, np.ndarray]:
    """R+, R− and the ranks of |judge − human| with zero differences dropped ('wilcox')."""
    d = judge - human
    d = d[d != 0]
    ranks = sps.rankdata(np.abs(d))  # ties get the average rank
    return ranks[d > 0].sum(), ranks[d < 0].sum(), ranks


def test_tied_example_alpha_matches_the_krippendorff_package() -> None:
    ref = krippendorff.alpha(
        reliability_data=np.vstack([TIED_J, TIED_H]), level_of_measurement="interval"
    )
    assert kripp_alpha(TIED_J, TIED_H) == pytest.approx(ref, abs=1e-12)
    d = TIED_J - TIED_H
    sums = (len(d), np.sum(d**2), np.sum(TIED_J + TIED_H), np.sum(TIED_J**2 + TIED_H**2))
    assert alpha_two_coders(*sums) == pytest.approx(ref, abs=1e-12)


def _normal_p(r_plus: float, ranks: np.ndarray) -> float:
    """Two-sided normal-approximation p by hand: tie-corrected variance and a continuity
    correction of 0.5 towards the mean (as scipy applies it, also when |R+ − mean| < 0.5)."""
    n = len(ranks)
    _, ties = np.unique(ranks, return_counts=True)
    se = np.sqrt(n * (n + 1) * (2 * n + 1) / 24 - np.sum(ties**3 - ties) / 48)
    z = (r_plus - n * (n + 1) / 4) / se
    return 2 * sps.norm.sf(abs(z - np.sign(z) * 0.5 / se))


def test_tied_example_wilcoxon_uses_the_normal_approximation_not_a_permutation_test() -> None:
    """≤ 13 pairs with ties or zeros: scipy 1.17's method='auto' (pingouin 0.7's default) runs
    a permutation test over all sign flips; judgelab's rule takes the normal approximation
    there, as it does for every tied or zero-holding sample."""
    w, p, rbc = wilcoxon(TIED_J, TIED_H)
    r_plus, r_minus, ranks = _signed_ranks(TIED_J, TIED_H)
    assert (r_plus, r_minus) == (26, 19)
    assert w == min(r_plus, r_minus)
    assert p == pytest.approx(_normal_p(r_plus, ranks), rel=1e-12)
    assert p == pytest.approx(
        sps.wilcoxon(TIED_J, TIED_H, method="asymptotic", correction=True).pvalue, rel=1e-12
    )
    flips = np.array(list(itertools.product([0, 1], repeat=len(ranks)))) @ ranks
    centre = ranks.sum() / 2
    permutation = np.mean(np.abs(flips - centre) >= abs(r_plus - centre))
    assert permutation == pytest.approx(sps.wilcoxon(TIED_J, TIED_H).pvalue)  # scipy "auto"
    assert p != pytest.approx(permutation, rel=1e-2)
    # rank-biserial: (R+ − R−)/(R+ + R−) over the non-zero differences; positive = judge higher
    assert rbc == pytest.approx((r_plus - r_minus) / (r_plus + r_minus)) == pytest.approx(7 / 45)


def test_tied_example_wilcoxon_normal_approximation_is_continuity_corrected() -> None:
    """14–50 pairs with ties: the normal approximation with the tie correction, and the
    continuity correction, which pingouin 0.7 switches on (scipy's default is off)."""
    judge, human = np.concatenate([TIED_J, np.roll(TIED_J, 3)]), np.tile(TIED_H, 2)
    w, p, rbc = wilcoxon(judge, human)
    r_plus, r_minus, ranks = _signed_ranks(judge, human)
    assert w == min(r_plus, r_minus)
    assert p == pytest.approx(_normal_p(r_plus, ranks), rel=1e-9)
    assert p == pytest.approx(sps.wilcoxon(judge, human, correction=True).pvalue, rel=1e-9)
    assert p != pytest.approx(sps.wilcoxon(judge, human, correction=False).pvalue, rel=1e-3)
    assert rbc == pytest.approx((r_plus - r_minus) / (r_plus + r_minus))


# --- bootstrap intervals


def _pairs(n: int, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.uniform(1, 7, n)
    return np.clip(human + rng.normal(0.3, 0.8, n), 1, 7), human


def test_alpha_two_coders_equals_interval_alpha_on_a_resample() -> None:
    judge, human = _pairs(40)
    idx = np.random.default_rng(2).integers(0, 40, 40)
    a, b = judge[idx], human[idx]
    for shift in (0.0, 4.0):  # α does not move when both coders shift
        x, y = a - shift, b - shift
        sums = (len(x), np.sum((x - y) ** 2), np.sum(x + y), np.sum(x**2 + y**2))
        assert alpha_two_coders(*sums) == pytest.approx(interval_alpha(np.vstack([a, b])))
    flat = np.full(5, 3.3)  # no spread: undefined in both
    assert np.isnan(alpha_two_coders(5, 0.0, 10 * 3.3, 10 * 3.3**2))
    assert interval_alpha(np.vstack([flat, flat])) is None


@pytest.mark.parametrize(("rows_per_block", "rows_per_count"), [(None, None), (4, None), (None, 7)])
def test_cluster_resamples_match_a_direct_computation(
    rows_per_block: int | None, rows_per_count: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each resample's bias, MAE and α equal those of the pairs it draws, built explicitly.
    Rebuilds the index matrix from the same seed, block by block as resample_stats draws it
    (one block at the default size; 8 blocks of 4 resamples with a tiny block), and counts
    the draws a few rows at a time (all 30 at once by default; 7, 7, 7, 7 and 2)."""
    if rows_per_block:
        monkeypatch.setattr(stats, "BOOT_BLOCK", 9 * rows_per_block)
    if rows_per_count:
        monkeypatch.setattr(stats, "BOOT_COUNT_CELLS", 9 * rows_per_count)
    rng = np.random.default_rng(4)
    unit = np.repeat(np.arange(9), rng.integers(1, 5, 9))  # 9 units of 1–4 pairs
    a, b = np.round(rng.uniform(1, 7, (2, len(unit))), 1)
    bias, mae, alpha = resample_stats(a, b, unit, 30, np.random.default_rng(8))
    redraw, step = np.random.default_rng(8), rows_per_block or 30
    idx = np.vstack([redraw.integers(0, 9, (min(step, 30 - s), 9)) for s in range(0, 30, step)])
    assert len(bias) == 30
    for r in range(30):
        rows = np.concatenate([np.flatnonzero(unit == u) for u in idx[r]])
        d = a[rows] - b[rows]
        assert bias[r] == pytest.approx(d.mean())
        assert mae[r] == pytest.approx(np.abs(d).mean())
        assert alpha[r] == pytest.approx(interval_alpha(np.vstack([a[rows], b[rows]])))


def test_intervals_contain_the_estimate_and_narrow_with_more_items() -> None:
    widths = []
    for n in (50, 800):
        judge, human = _pairs(n)
        ci = bootstrap_ci(judge, human, np.arange(n), 1000, np.random.default_rng(0))
        d = judge - human
        assert ci["bias_lo"] < d.mean() < ci["bias_hi"]
        assert ci["mae_lo"] < np.abs(d).mean() < ci["mae_hi"]
        assert ci["alpha_lo"] < kripp_alpha(judge, human) < ci["alpha_hi"]
        widths.append([ci[f"{s}_hi"] - ci[f"{s}_lo"] for s in ("bias", "mae", "alpha")])
    assert all(big < small / 2 for small, big in zip(*widths, strict=True))  # ~ 1/√16


def _two_designs() -> pl.DataFrame:
    judge, human = _pairs(60)
    one = _scores(
        [(f"i{i}", 0, "ok", j, h) for i, (j, h) in enumerate(zip(judge, human, strict=True))]
    )
    return pl.concat(
        [one, one.with_columns(pl.lit("k").alias("judge"), (pl.col("score_1to7") - 0.5).clip(1, 7))]
    )


def test_intervals_depend_on_seed_and_design_only() -> None:
    scores = _two_designs()
    ci = list(CI_COLUMNS)
    first = rating_metrics(scores, seed=5)
    assert first.equals(rating_metrics(scores.reverse(), seed=5))  # order of designs
    alone = rating_metrics(scores.filter(pl.col("judge") == "k"), seed=5)
    assert alone.select(ci).equals(first.filter(pl.col("judge") == "k").select(ci))
    assert not first.select(ci).equals(rating_metrics(scores, seed=6).select(ci))
    assert design_rng(5, ["a", "b"]).random() != design_rng(5, ["ab", ""]).random()


def test_no_resamples_means_null_intervals() -> None:
    m = rating_metrics(_two_designs(), n_boot=0)
    assert m.height == 2 and m["bias"].null_count() == 0
    assert all(m[c].null_count() == 2 for c in CI_COLUMNS)


def test_schema_rejects_a_reversed_interval() -> None:
    m = rating_metrics(_two_designs())
    with pytest.raises(TableError, match="intervals_ordered"):
        validate(m.with_columns(mae_lo=pl.col("mae_hi"), mae_hi=pl.col("mae_lo")), RatingMetrics)


@pytest.mark.parametrize("n", [8, 30, 200])
def test_wilcoxon_equals_pingouin(n: int) -> None:
    """judgelab computes what pingouin.wilcoxon does, without its n × n CLES matrix."""
    import pingouin as pg

    judge, human = _pairs(n, seed=n)
    judge = np.round(judge)  # ties and zero differences, as integer scales give
    ref = pg.wilcoxon(judge, human, alternative="two-sided").iloc[0]
    w, p, rbc = wilcoxon(judge, human)
    assert (w, p, rbc) == pytest.approx((ref["W_val"], ref["p_val"], ref["RBC"]), rel=1e-12)


# --- one signed-rank rule for every table (stats.signed_rank), against scipy with that method


def _scipy_p(d: np.ndarray, method: str) -> float:
    return sps.wilcoxon(d, method=method, correction=True, zero_method="wilcox").pvalue


UNTIED = np.random.default_rng(5).permutation(np.arange(1, 52)) * 0.01 + 0.002  # 51 distinct


@pytest.mark.parametrize(
    ("d", "method"),
    [
        (UNTIED[:12] - 0.12, "exact"),  # no ties, no zeros, n ≤ 50
        (UNTIED[:50] - 0.2, "exact"),  # n = 50 still exact
        (UNTIED - 0.2, "asymptotic"),  # n = 51
        (np.append(UNTIED[:11] - 0.05, 0.0), "asymptotic"),  # a zero, otherwise untied
        (np.array([0.5, -0.5, 1.0, 1.5, 2.0, 0.25]), "asymptotic"),  # a tie, n = 6
        (TIED_J - TIED_H, "asymptotic"),  # ties and zeros, n ≤ 13 (scipy "auto": permutation)
    ],
)
def test_signed_rank_picks_its_method_and_matches_scipy(d: np.ndarray, method: str) -> None:
    test = stats.signed_rank(d)
    other = "asymptotic" if method == "exact" else "exact"
    assert bool(test["exact"][0]) == (method == "exact")
    assert test["p"][0] == pytest.approx(_scipy_p(d, method), rel=1e-12)
    # the two methods give different p here, so a wrong choice cannot pass
    assert test["p"][0] != pytest.approx(_scipy_p(d, other), rel=1e-4)


def test_signed_rank_rounds_float_noise_before_ranking() -> None:
    """0.1 + 0.2 and 0.3 are one tie; a difference of 1e-12 is a zero (dropped): the rule
    decides on the data, not on the last bit of a float."""
    noisy = np.array([0.1 + 0.2, 0.3, 0.7, -0.45, 1.1, 1e-12, 0.9, 1.3])
    clean = np.array([0.3, 0.3, 0.7, -0.45, 1.1, 0.0, 0.9, 1.3])
    got, ref = stats.signed_rank(noisy), stats.signed_rank(clean)
    assert not got["exact"][0] and got["n"][0] == 7
    assert got["p"][0] == ref["p"][0] == pytest.approx(_scipy_p(clean, "asymptotic"))


def test_signed_rank_vectorised_equals_one_column_at_a_time() -> None:
    """Columns of any size, with absent pairs (NaN), some exact, some approximate, some
    untestable (fewer than 2 pairs, or no non-zero difference): each as scipy on its own."""
    rng = np.random.default_rng(9)
    d = np.round(rng.normal(0.2, 1, (70, 60)), 1)
    d[:, :20] = rng.normal(0.2, 1, (70, 20))  # untied columns
    d[rng.random(d.shape) < rng.uniform(0, 0.9, 60)] = np.nan
    d[:, 58] = np.nan
    d[0, 58] = 1.0  # one pair
    d[:, 59] = np.where(np.isnan(d[:, 59]), np.nan, 0.0)  # only zero differences
    test = stats.signed_rank(d)
    assert test["exact"].sum() >= 5 and (~test["exact"]).sum() >= 20
    for j in range(60):
        dj = d[~np.isnan(d[:, j]), j]
        if j >= 58:
            assert np.isnan(test["p"][j])
            continue
        method = "exact" if test["exact"][j] else "asymptotic"
        assert test["p"][j] == pytest.approx(_scipy_p(dj, method), rel=1e-10)
        r = sps.rankdata(np.abs(dj[dj != 0]))
        assert test["r_plus"][j] == r[dj[dj != 0] > 0].sum()


def test_wilcoxon_of_only_zero_differences_has_no_p() -> None:
    assert wilcoxon(np.ones(5), np.ones(5)) == (0.0, None, None)
    assert wilcoxon(np.ones(1), np.zeros(1)) == (None, None, None)


def test_wilcoxon_equals_pingouin_given_the_same_method() -> None:
    """Tied data of 8 pairs: pingouin told to use the normal approximation agrees exactly;
    left to scipy's "auto" it runs the permutation test judgelab does not."""
    import pingouin as pg

    judge, human = np.array([3, 4, 4, 5, 6, 2, 5, 7.0]), np.array([4, 4, 2, 3, 5, 3, 3, 5.0])
    w, p, rbc = wilcoxon(judge, human)
    ref = pg.wilcoxon(judge, human, method="asymptotic").iloc[0]
    assert (w, p, rbc) == pytest.approx((ref["W_val"], ref["p_val"], ref["RBC"]), rel=1e-12)
    assert p != pytest.approx(pg.wilcoxon(judge, human).iloc[0]["p_val"], rel=1e-3)


# --- repeats, and Holm / BH over each study's designs of one kind


def test_repeats_are_averaged_and_their_noise_is_the_mean_item_sd() -> None:
    scores = _scores(
        [
            ("a", 0, "ok", 1.0, 4.0),
            ("a", 1, "ok", 2.0, 4.0),
            ("a", 2, "ok", 6.0, 4.0),  # mean 3 (median 2), sd √7
            ("b", 0, "ok", 5.0, 5.0),
            ("b", 1, "ok", 6.0, 5.0),  # sd √0.5
            ("b", 2, "error", None, 5.0),
            ("c", 0, "ok", 7.0, 5.0),  # one ok repeat: no sd, not in repeat_sd
            ("c", 1, "unparseable", None, 5.0),
            ("d", 0, "ok", 2.0, 3.0),
            ("d", 1, "ok", 3.0, 3.0),
            ("d", 2, "ok", 4.0, 3.0),  # sd 1
        ]
    )
    m = rating_metrics(scores, n_boot=0).row(0, named=True)
    diffs = np.array([3 - 4, 5.5 - 5, 7 - 5, 3 - 3.0])
    assert m["bias"] == pytest.approx(diffs.mean())
    assert m["mae"] == pytest.approx(np.abs(diffs).mean())
    assert m["repeat_sd"] == pytest.approx((np.sqrt(7) + np.sqrt(0.5) + 1) / 3)
    single = rating_metrics(_scores([("a", 0, "ok", 5.0, 4.0), ("b", 0, "ok", 3.0, 4.0)]))
    assert single["repeat_sd"].to_list() == [None]  # no item repeated: no noise to report


def _design_scores(study: str, kind: str, judge: str, shift: float, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    human = np.round(rng.uniform(2, 6, 25), 2)
    judge_scores = np.clip(human + shift + rng.normal(0, 0.5, 25), 1, 7)
    return _scores(
        [(f"i{i}", 0, "ok", j, h) for i, (j, h) in enumerate(zip(judge_scores, human, strict=True))]
    ).with_columns(pl.lit(study).alias("study"), pl.lit(kind).alias("kind"), judge=pl.lit(judge))


def test_adjusted_p_are_over_the_study_designs_of_one_kind() -> None:
    from statsmodels.stats.multitest import multipletests

    frames = [
        _design_scores("s", "judge", f"j{k}", shift, k)
        for k, shift in enumerate((0.0, 0.1, 0.25, 0.4, 0.6))
    ]
    frames += [_design_scores("s", "baseline", "vader", 0.3, 9)]
    frames += [
        _design_scores("t", "judge", "j0", 0.2, 10),
        _design_scores("t", "judge", "j1", 0, 11),
    ]
    m = rating_metrics(pl.concat(frames), n_boot=0)
    for (study, kind), grp in m.group_by("study", "kind"):
        for method, column in (("holm", "p_holm"), ("fdr_bh", "p_bh")):
            ref = multipletests(grp["wilcoxon_p"].to_numpy(), method=method)[1]
            assert grp[column].to_numpy() == pytest.approx(ref, rel=1e-12), (study, kind)
    vader = m.filter(pl.col("kind") == "baseline").row(0, named=True)
    assert vader["p_holm"] == vader["wilcoxon_p"]  # a family of one
    assert (m["p_holm"] >= m["wilcoxon_p"]).all() and (m["p_holm"] > m["wilcoxon_p"]).any()


def _metrics_one_design_at_a_time(per_item: pl.DataFrame, n_boot: int, seed: int) -> list[dict]:
    """The straightforward reference: one polars group per design, the per-design functions."""
    rows = []
    for design, grp in per_item.group_by(metrics.DESIGN, maintain_order=True):
        j, h = grp["score_1to7"].to_numpy(), grp["human_1to7"].to_numpy()
        w, p, rbc = stats.wilcoxon(j, h)
        repeated = grp.filter(pl.col("n_ok") >= 2)["score_sd"]
        rows.append(
            {
                **dict(zip(metrics.DESIGN, design, strict=True)),
                "n_items": len(j),
                "repeat_sd": float(repeated.mean()) if repeated.len() else None,
                "bias": float(np.mean(j - h)),
                "mae": float(np.mean(np.abs(j - h))),
                "wilcoxon_w": w,
                "wilcoxon_p": p,
                "rank_biserial": rbc,
                "kripp_alpha": stats.kripp_alpha(j, h),
                **stats.bootstrap_ci(
                    j,
                    h,
                    np.arange(len(j)),
                    n_boot,
                    stats.design_rng(seed, stats.readout_key(design)),
                ),
            }
        )
    return rows


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_design_metrics_equal_one_design_at_a_time_on_random_data(seed: int) -> None:
    """Designs as slices of one sorted frame and one signed-rank call for all of them give
    what a loop over polars groups gives: random designs of 1–60 items (some with a single
    item, ties, zero differences, repeats), rows shuffled so item order within a design is
    not sorted (the bootstrap's draws index it)."""
    from tasks.rating.item_scores import item_scores

    rng = np.random.default_rng(seed)
    frames = []
    for d in range(int(rng.integers(3, 12))):
        n = int(rng.choice([1, 2, 5, 13, 60]))
        reps = int(rng.integers(1, 3))
        human = np.round(rng.uniform(1, 7, n), 1)
        items = [f"i{i}" for i in rng.permutation(100)[:n]]
        for r in range(reps):
            judge = np.clip(np.round(human + rng.normal(0, 1, n)), 1, 7)
            rows = zip(items, judge.tolist(), human.tolist(), strict=True)
            frames.append(
                _scores([(it, r, "ok", j, h) for it, j, h in rows]).with_columns(
                    judge=pl.lit(f"j{d % 4}"), scale=pl.lit(f"s{d}")
                )
            )
    per_item = item_scores(pl.concat(frames)).sample(fraction=1.0, shuffle=True, seed=seed)
    got = metrics._design_metrics(per_item, n_boot=200, seed=seed)
    want = pl.DataFrame(_metrics_one_design_at_a_time(per_item, 200, seed))
    got = got.sort(metrics.DESIGN)
    want = want.sort(metrics.DESIGN)
    assert got.select(metrics.DESIGN).equals(want.select(metrics.DESIGN))
    for column in want.columns[len(metrics.DESIGN) :]:
        a, b = got[column].to_numpy().astype(float), want[column].to_numpy().astype(float)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=column)


@pytest.mark.parametrize("seed", range(5))
def test_signed_rank_sums_equal_rankdata_column_by_column(seed: int) -> None:
    """R+, R− and the tie term, computed in sorted order for all columns at once, against
    scipy's average ranks of each column's present |d| (ties, zeros dropped, NaN absent)."""
    rng = np.random.default_rng(seed)
    d = np.round(rng.normal(0, 1.5, (40, 30)) * 2) / 2  # many ties and zeros
    d[rng.uniform(size=d.shape) < 0.3] = np.nan
    d[:, 0] = np.nan  # a column without any pair
    nonzero = np.where(d == 0, np.nan, d)
    r_plus, r_minus, tie_term = stats._signed_rank_sums(nonzero)
    for c in range(d.shape[1]):
        x = nonzero[:, c][~np.isnan(nonzero[:, c])]
        ranks = sps.rankdata(np.abs(x))
        _, t = np.unique(np.abs(x), return_counts=True)
        assert r_plus[c] == ranks[x > 0].sum() and r_minus[c] == ranks[x < 0].sum()
        assert tie_term[c] == (t**3 - t).sum()
