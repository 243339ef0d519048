"""Judge-corrected estimates (tasks/ppi.py): coverage with a planted biased judge, agreement with
ppi_py (the reference implementation, a dev dependency), Rogan–Gladen, and the label planner
against a simulation."""

import math

import numpy as np
import pytest

from tasks import ppi

# Coverage replications: R = 600 gives the 95% coverage a binomial SD of √(.95·.05/600) =
# 0.0089; the test allows 3.5 SD (0.031), so a correct interval fails it about 1 run in 2,000
# while one with 90% coverage (a z of 1.64 instead of 1.96) fails it.
R = 600
TOL = 3.5 * math.sqrt(0.95 * 0.05 / R)
TRUE_MEAN = 4.0
BIAS = 0.8


def planted(rng, n_items):
    """Human means on 1–7 and a judge reading them +0.8 too high with noise (SD 0.7)."""
    human = np.clip(rng.normal(TRUE_MEAN, 1.2, n_items), 1, 7)
    judge = np.clip(human + BIAS + rng.normal(0, 0.7, n_items), 1, 7)
    return human, judge


def population_mean():
    """The planted humans' mean after clipping to 1–7 (the estimand), by a large draw."""
    return float(np.clip(np.random.default_rng(99).normal(TRUE_MEAN, 1.2, 4_000_000), 1, 7).mean())


def test_ppi_covers_the_truth_and_the_judge_alone_does_not():
    truth = population_mean()
    rng = np.random.default_rng(7)
    covered = naive_covered = 0
    widths = []
    for _ in range(R):
        human, judge = planted(rng, 1000)
        labelled = rng.permutation(1000)[:100]
        rest = np.setdiff1d(np.arange(1000), labelled)
        ci, lam = ppi.ppi_mean_ci(human[labelled], judge[labelled], judge[rest])
        covered += ci.lo <= truth <= ci.hi
        naive = ppi.mean_ci(judge)
        naive_covered += naive.lo <= truth <= naive.hi
        widths.append(ci.width / ppi.mean_ci(human[labelled]).width)
        assert 0 < lam <= 1
    assert abs(covered / R - 0.95) <= TOL, covered / R
    assert naive_covered / R < 0.01  # the judge's +0.8 is far outside its own ±0.08
    assert np.mean(widths) < 0.8  # the judge tracks the humans: PPI is narrower than humans alone


def test_ppi_point_estimate_removes_the_bias():
    rng = np.random.default_rng(3)
    human, judge = planted(rng, 20_000)
    ci, _ = ppi.ppi_mean_ci(human[:2000], judge[:2000], judge[2000:], lam=1.0)
    assert abs(judge.mean() - human.mean()) > 0.6
    assert abs(ci.estimate - human.mean()) < 0.03
    # λ = 1 by hand: mean judge on the unlabelled plus mean (human − judge) on the labelled
    by_hand = judge[2000:].mean() + (human[:2000] - judge[:2000]).mean()
    assert ci.estimate == pytest.approx(by_hand)


def test_unrelated_judge_gets_lambda_near_zero():
    rng = np.random.default_rng(5)
    human = rng.normal(4, 1, 300)
    judge = rng.normal(6, 1, 3000)  # no relation to the humans at all
    ci, lam = ppi.ppi_mean_ci(human, judge[:300], judge[300:])
    assert lam < 0.15
    assert ci.lo < human.mean() < ci.hi


def likert(rng, n_items):
    """Integer human labels on 1–7 (ties) and a judge off by −1 to +2 points (half a point high)."""
    human = rng.integers(1, 8, n_items)
    return human, np.clip(human + rng.integers(-1, 3, n_items), 1, 7)


def verdicts(rng, n_items):
    """0/1 truth at a 30% rate and a lenient judge (TRUE for 90% of true items, 35% of false)."""
    truth = (rng.random(n_items) < 0.3).astype(float)
    return truth, np.where(truth == 1, rng.random(n_items) < 0.9, rng.random(n_items) < 0.35)


def contrary(rng, n_items):
    """A judge that reads the scale backwards: Cov(Y, Ŷ) < 0, so the tuned λ clips to 0."""
    human, _ = planted(rng, n_items)
    return human, 8 - human + rng.normal(0, 0.3, n_items)


def timid(rng, n_items):
    """A judge that squeezes the scale toward 4: Cov/Var(Ŷ) ≈ 2.5, so the tuned λ clips to 1."""
    human, _ = planted(rng, n_items)
    return human, 4 + 0.4 * (human - 4) + rng.normal(0, 0.05, n_items)


# (data, labelled n, items in all): few labels and many (n/N from 0.005 to 4), 1–7 reals,
# tied integers and 0/1 verdicts, and judges whose tuned λ lands inside (0, 1) or is clipped
CASES = {
    "planted-80-of-700": (planted, 80, 700),
    "planted-10-of-2000": (planted, 10, 2000),
    "planted-400-of-500": (planted, 400, 500),
    "likert-150-of-1200": (likert, 150, 1200),
    "verdicts-200-of-3000": (verdicts, 200, 3000),
    "contrary-60-of-600": (contrary, 60, 600),
    "timid-120-of-900": (timid, 120, 900),
}
TUNED_LAMBDA = {"contrary-60-of-600": 0.0, "timid-120-of-900": 1.0}


@pytest.fixture(scope="module")
def ppi_py():
    """The reference implementation: a dev dependency (requirements.lock), so missing is a
    broken environment, never a reason to skip the comparison."""
    try:
        import ppi_py
    except ModuleNotFoundError as e:
        pytest.fail(f"ppi_py is missing ({e}): install the dev extra with `make setup`")
    return ppi_py


@pytest.mark.parametrize("lam", [None, 1.0, 0.3, 0.0])
@pytest.mark.parametrize("case", list(CASES))
def test_matches_ppi_py(ppi_py, case, lam):
    make, n, n_total = CASES[case]
    y, yhat = (np.asarray(a, dtype=float) for a in make(np.random.default_rng(11), n_total))
    ours, our_lam = ppi.ppi_mean_ci(y[:n], yhat[:n], yhat[n:], lam=lam)
    lo, hi = ppi_py.ppi_mean_ci(y[:n], yhat[:n], yhat[n:], alpha=1 - ppi.LEVEL, lam=lam)
    est = ppi_py.ppi_mean_pointestimate(y[:n], yhat[:n], yhat[n:], lam=lam)
    # ppi_py returns no λ; the point estimate moves with it (the judge's mean differs between
    # the labelled and the other items), so matching it checks the tuned λ too
    assert ours.estimate == pytest.approx(float(np.squeeze(est)), rel=1e-9, abs=1e-12)
    assert ours.lo == pytest.approx(float(np.squeeze(lo)), rel=1e-9, abs=1e-12)
    assert ours.hi == pytest.approx(float(np.squeeze(hi)), rel=1e-9, abs=1e-12)
    if lam is not None:
        assert our_lam == lam
    elif case in TUNED_LAMBDA:
        assert our_lam == TUNED_LAMBDA[case]  # the clip to [0, 1]
    else:
        assert 0 < our_lam < 1, our_lam


def test_rogan_gladen_recovers_the_true_rate():
    # a lenient judge: says TRUE for 95% of true items and for 40% of false ones
    assert ppi.rogan_gladen(0.3 * 0.95 + 0.7 * 0.4, 0.95, 0.6) == pytest.approx(0.3)
    assert ppi.rogan_gladen(0.5, 0.5, 0.5) is None  # a coin: nothing to correct with
    assert ppi.rogan_gladen(0.99, 0.9, 0.9) == 1.0  # clipped


def test_rogan_gladen_bootstrap_interval_covers():
    rng = np.random.default_rng(2)
    hits, reps = 0, 200
    for _ in range(reps):
        truth = (rng.random(2000) < 0.3).astype(float)
        said = np.where(truth == 1, rng.random(2000) < 0.9, rng.random(2000) < 0.35).astype(float)
        ci = ppi.rogan_gladen_ci(said, truth[:200], said[:200], 300, rng)
        assert ci.lo <= ci.estimate <= ci.hi
        hits += ci.lo <= 0.3 <= ci.hi
    # percentile bootstrap: near 95%; 200 reps have a binomial SD of 0.015
    assert 0.89 <= hits / reps <= 0.99, hits / reps
    assert said.mean() > 0.45  # the judge alone reads 0.51, far from 0.3


def test_labels_saved():
    ratio, effective = ppi.labels_saved(100, 0.6, 0.3)
    assert ratio == 2.0 and effective == 400  # half the width takes four times the labels
    assert ppi.labels_saved(100, None, 0.3) == (None, None)


def simulated_halfwidth(n, n_total, sd_judge, sd_resid, rng, reps=4000):
    """z × the empirical SD of the plain-PPI estimate over fresh planted samples."""
    y_true = rng.normal(0, sd_judge, (reps, n_total))
    est = y_true[:, n:].mean(1) + rng.normal(0, sd_resid, (reps, n)).mean(1)
    return ppi.Z * est.std(ddof=1)


def test_planner_matches_a_simulation_within_ten_percent():
    rng = np.random.default_rng(4)
    n_total, sd_judge, sd_resid, hw = 2000, 1.3, 0.8, 0.2
    n = ppi.n_labels_for_halfwidth(hw, n_total, sd_judge, sd_resid)
    assert n is not None and 40 < n < 400
    # the formula's width at n reaches the target, one label fewer does not
    assert ppi.ppi_halfwidth(n, n_total, sd_judge, sd_resid) <= hw
    assert ppi.ppi_halfwidth(n - 1, n_total, sd_judge, sd_resid) > hw
    # the estimator's actual spread: 10% fewer labels miss ±hw, 10% more reach it
    assert simulated_halfwidth(math.floor(0.9 * n), n_total, sd_judge, sd_resid, rng) > hw
    assert simulated_halfwidth(math.ceil(1.1 * n), n_total, sd_judge, sd_resid, rng) < hw


def test_planner_says_when_the_judge_alone_is_too_noisy():
    # the unlabelled items' own error is z·1.3/√(N − n) ≥ 0.057 for N = 2000: ±0.05 is out of reach
    assert ppi.n_labels_for_halfwidth(0.05, 2000, 1.3, 0.8) is None
    # a judge that equals the humans needs the fewest labels
    assert ppi.n_labels_for_halfwidth(0.2, 2000, 1.3, 0.0) == 2


def test_planner_with_the_labels_sd_picks_the_best_weight():
    # a judge that tracks the humans: λ near 1 is best, no worse than plain PPI
    plain = ppi.n_labels_for_halfwidth(0.1, 2000, 1.3, 0.8)
    tuned = ppi.n_labels_for_halfwidth(0.1, 2000, 1.3, 0.8, sd_human=1.2)
    assert tuned <= plain
    # a judge unrelated to the humans (resid² = human² + judge²): the labels alone, (z·sd/h)²
    useless = ppi.n_labels_for_halfwidth(0.1, 2000, 1.0, math.sqrt(1.2**2 + 1.0), sd_human=1.2)
    assert ppi.n_labels_for_halfwidth(0.1, 2000, 1.0, math.sqrt(1.2**2 + 1.0)) is None
    assert useless == math.ceil((ppi.Z * 1.2 / 0.1) ** 2)
