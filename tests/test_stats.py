"""Statistics checked against independent computations (scipy, or by hand)."""

import itertools

import krippendorff
import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from tasks.stats import interval_alpha, kripp_alpha, rating_metrics, wilcoxon

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
    assert m["mae"] == pytest.approx(np.abs(diffs).mean())
    assert m["kripp_alpha"] == pytest.approx(
        _alpha_by_hand(np.array([6, 2, 4.0]), np.array([4, 3, 5.5]))
    )


def test_design_without_any_ok_score_is_kept_with_nulls() -> None:
    m = rating_metrics(_scores([("a", 0, "unparseable", None, 4.0)])).row(0, named=True)
    assert m["n_items"] == 0 and m["bias"] is None and m["parse_failure_rate"] == 1.0
