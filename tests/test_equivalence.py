"""TOST equivalence (tasks/equivalence.py) against statsmodels' ttost_paired and a t interval."""

import warnings

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.weightstats import ttost_paired

from tasks.equivalence import MIN_N_NO_SPREAD, tost


def _sums(d: np.ndarray) -> tuple[int, float, float]:
    return len(d), float(d.sum()), float((d**2).sum())


def _tost(d: np.ndarray, margin: float) -> dict:
    return {k: v[0] for k, v in tost(*(np.array([s]) for s in _sums(d)), margin).items()}


@pytest.mark.parametrize(("n", "shift", "margin"), [(2, 0.0, 0.2), (8, 0.1, 0.2), (40, -0.15, 0.3)])
def test_p_equals_statsmodels_ttost_paired(n: int, shift: float, margin: float) -> None:
    rng = np.random.default_rng(n)
    b = rng.uniform(1, 7, n)
    a = b + shift + rng.normal(0, 0.3, n)
    got = _tost(a - b, margin)
    ref = ttost_paired(a, b, -margin, margin)[0]
    assert got["p"] == pytest.approx(ref, rel=1e-9)
    # the 90% CI: mean ± t(0.95, n − 1) · sd/√n
    d = a - b
    half = sps.t.ppf(0.95, n - 1) * d.std(ddof=1) / np.sqrt(n)
    assert (got["lo"], got["hi"]) == pytest.approx((d.mean() - half, d.mean() + half), rel=1e-9)


def test_many_pairs_at_once_equal_one_at_a_time() -> None:
    rng = np.random.default_rng(3)
    ds = [rng.normal(rng.uniform(-0.4, 0.4), 0.3, rng.integers(2, 30)) for _ in range(25)]
    sums = np.array([_sums(d) for d in ds]).T
    got = tost(*sums, 0.2)
    for k, d in enumerate(ds):
        assert got["p"][k] == pytest.approx(ttost_paired(d, np.zeros_like(d), -0.2, 0.2)[0])


def test_verdicts() -> None:
    alternating = np.tile([0.3, -0.3], 50)  # mean 0, sd ≈ 0.3: 90% CI ±0.05 at n = 100
    assert _tost(alternating, 0.2)["verdict"] == "yes"
    assert _tost(alternating[:4], 0.2)["verdict"] == "inconclusive"  # ±0.41 at n = 4
    assert _tost(alternating + 0.4, 0.2)["verdict"] == "no"  # CI wholly above 0.2
    assert _tost(alternating - 0.4, 0.2)["verdict"] == "no"  # … or below −0.2
    assert _tost(alternating + 0.2, 0.2)["verdict"] == "inconclusive"  # CI straddles the margin
    one = _tost(np.array([0.0]), 0.2)
    assert one["verdict"] == "inconclusive" and np.isnan(one["p"])
    # every difference equal: zero width and p 0 (as statsmodels), but a verdict only from
    # MIN_N_NO_SPREAD items on: two designs agreeing on 3 items are not shown equivalent
    assert _tost(np.full(3, 0.1), 0.2)["verdict"] == "inconclusive"
    assert _tost(np.full(MIN_N_NO_SPREAD - 1, 0.1), 0.2)["verdict"] == "inconclusive"
    assert _tost(np.full(MIN_N_NO_SPREAD, 0.1), 0.2)["verdict"] == "yes"
    assert _tost(np.full(MIN_N_NO_SPREAD, 0.5), 0.2)["verdict"] == "no"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ttost_paired(np.full(3, 0.1), np.zeros(3), -0.2, 0.2)[0] < 1e-12


def test_p_on_the_cut_is_not_equivalent() -> None:
    """A margin that puts p at 0.05 up to float noise: on the cut, so not "yes"; a hair wider
    and it is."""
    d = np.array([0.3, -0.1, 0.2, -0.25, 0.05, -0.2, 0.1, -0.1])
    d = d - d.mean()
    se = d.std(ddof=1) / np.sqrt(len(d))
    margin = sps.t.ppf(0.95, len(d) - 1) * se
    on = _tost(d, margin)
    assert on["p"] == pytest.approx(0.05, abs=1e-12) and on["verdict"] == "inconclusive"
    assert _tost(d, margin * (1 + 1e-4))["verdict"] == "yes"


@pytest.mark.parametrize("value", [0.15, 0.10])
def test_equal_differences_on_3_items_are_inconclusive_whatever_their_float_noise(
    value: float,
) -> None:
    """A design `value` above another on items scored 1, 1 and 4: Σd² − n·mean² is 1e-17 for
    0.15 (1.15 − 1 and 4.15 − 4 differ in the last bits) and exactly 0 for 0.10. Both are no
    spread, so both wait for MIN_N_NO_SPREAD items."""
    other = np.array([1.0, 1.0, 4.0])
    got = _tost((other + value) - other, 0.2)
    assert got["verdict"] == "inconclusive"
    assert got["lo"] == got["hi"] == got["mean"]


def test_a_genuine_small_spread_is_still_spread() -> None:
    """1e-6 apart is a spread (Σ(d − mean)² is 3e-11 of Σd², far above rounding): the t CI
    decides on 3 items, as for any other spread."""
    d = 0.15 + np.array([-1e-6, 0.0, 1e-6])
    got = _tost(d, 0.2)
    assert got["verdict"] == "yes" and got["lo"] < got["mean"] < got["hi"]
    assert got["p"] == pytest.approx(ttost_paired(d, np.zeros(3), -0.2, 0.2)[0], rel=1e-6)
