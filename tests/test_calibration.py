"""Calibration (tasks/calibration.py): Brier, ECE and the reliability bins against scikit-learn on
the same inputs; a calibrated sample within its noise, an overconfident one beyond it; P(event)
from stored distributions; calls without one counted, never silently dropped."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss

from tasks import calibration as cal


def sample(n: int, seed: int, sharpen: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """P uniform on (0, 1) and y ~ Bernoulli(P): calibrated. `sharpen` > 1 pushes the stated P
    towards 0 and 1 after y is drawn (overconfident: said 0.95 when it is right 0.75)."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < truth).astype(int)
    logit = np.log(truth / (1 - truth)) * sharpen
    return 1 / (1 + np.exp(-logit)), y


@pytest.mark.parametrize("n_bins", [5, 10, 15])
def test_brier_ece_and_bins_match_scikit_learn(n_bins: int) -> None:
    p, y = sample(3000, seed=n_bins, sharpen=1.7)
    assert cal.brier(p, y) == pytest.approx(brier_score_loss(y, p), rel=1e-12)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy="uniform")
    bins = cal.reliability_bins(p, y, n_bins)
    np.testing.assert_allclose(bins["observed"].to_numpy(), prob_true, rtol=1e-12)
    np.testing.assert_allclose(bins["mean_p"].to_numpy(), prob_pred, rtol=1e-12)
    # counts per bin (continuous P never sits on an edge): numpy's histogram
    counts, _ = np.histogram(p, bins=np.linspace(0, 1, n_bins + 1))
    assert bins["n"].to_list() == counts[counts > 0].tolist()
    expected_ece = np.sum(counts[counts > 0] / p.size * np.abs(prob_true - prob_pred))
    assert cal.ece(p, y, n_bins) == pytest.approx(expected_ece, rel=1e-12)
    assert cal.ece(p, y, n_bins) > 0.05  # overconfident: not a trivial zero


def test_a_value_on_an_edge_falls_in_the_lower_bin_as_in_scikit_learn() -> None:
    p = np.array([0.1, 0.1, 0.2, 0.5, 0.5, 1.0, 0.0])
    y = np.array([0, 1, 0, 1, 1, 1, 0])
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10)
    bins = cal.reliability_bins(p, y, 10)
    np.testing.assert_allclose(bins["mean_p"].to_numpy(), prob_pred)
    np.testing.assert_allclose(bins["observed"].to_numpy(), prob_true)
    assert bins["bin"].to_list() == [0, 1, 4, 9]  # 0.1 → (0, 0.1], 0.2 → (0.1, 0.2]


def calls(p: np.ndarray, y: np.ndarray, judge: str, repeats: int = 1) -> pl.DataFrame:
    """One design's planned calls: unit i has `repeats` calls with the same P and truth."""
    n = p.size
    return pl.DataFrame(
        {
            "study": "s",
            "judge": judge,
            "model": f"m/{judge}",
            "prompt_level": "base",
            "reasoning_effort": "n/a",
            "unit": np.repeat([f"i{i}" for i in range(n)], repeats),
            "flipped": False,
            "status": "ok",
            "p": np.repeat(p, repeats),
            "y": np.repeat(y.astype(bool), repeats),
        }
    )


def test_calibrated_is_within_its_noise_and_overconfident_is_not() -> None:
    """The same truth, stated honestly and overconfidently: the honest judge's ECE is below
    the bound a calibrated judge exceeds 5% of the time, the overconfident one's lies far above
    it, with intervals apart; three seeds, so one lucky draw does not pass."""
    for seed in (1, 2, 3):
        honest, y = sample(1500, seed)
        sharp, _ = sample(1500, seed, sharpen=3.0)
        frame = pl.concat([calls(honest, y, "honest"), calls(sharp, y, "sharp")])
        table, _ = cal.calibration_tables(frame, "accuracy", "TRUE", n_boot=400, seed=seed)
        h, s = table.sort("judge").rows(named=True)
        assert (h["judge"], s["judge"]) == ("honest", "sharp")
        assert h["ece"] <= h["ece_null_hi"] and h["miscalibrated"] is False
        assert h["ece"] < 0.05 and h["ece_lo"] <= h["ece"] <= h["ece_hi"]
        assert s["miscalibrated"] is True and s["ece_lo"] > 2 * h["ece_hi"]
        assert s["brier"] > h["brier"]


def test_repeats_resample_with_their_unit() -> None:
    """Ten identical repeats per item carry no more information than one: the item bootstrap's
    interval is as wide as with one call per item (a call bootstrap would shrink it ~√10)."""
    p, y = sample(200, seed=7, sharpen=2.0)
    one, _ = cal.calibration_tables(calls(p, y, "j"), "accuracy", "TRUE", n_boot=500)
    ten, _ = cal.calibration_tables(calls(p, y, "j", repeats=10), "accuracy", "TRUE", n_boot=500)
    width = [t["ece_hi"][0] - t["ece_lo"][0] for t in (one, ten)]
    assert ten["ece"][0] == pytest.approx(one["ece"][0])
    assert width[1] == pytest.approx(width[0], rel=0.3)


def test_the_calibrated_bound_counts_items_not_repeats() -> None:
    """A calibrated judge asked ten times per item (same P, same truth): the bound a calibrated
    judge reaches by chance is as wide as with one call per item, so repeats do not flag it;
    drawing each call's truth apart would shrink the bound about √10-fold and flag it."""
    for seed in (11, 12, 13):
        p, y = sample(150, seed)
        one, _ = cal.calibration_tables(calls(p, y, "j"), "accuracy", "TRUE", n_boot=400)
        ten, _ = cal.calibration_tables(calls(p, y, "j", 10), "accuracy", "TRUE", n_boot=400)
        assert ten["ece_null_hi"][0] == pytest.approx(one["ece_null_hi"][0], rel=0.25)
        assert ten["ece"][0] == pytest.approx(one["ece"][0])
        # the same verdict as one call per item (seed 12 is a calibrated sample beyond its
        # 95% bound: the 1-in-20 a bound at 95% lets through, flagged either way)
        assert ten["miscalibrated"][0] == one["miscalibrated"][0]
        rng = np.random.default_rng(seed)
        p10, units = np.repeat(p, 10), np.repeat(np.arange(150), 10)
        apart = cal.calibrated_ece(p10, np.arange(1500), np.zeros(1500, bool), 400, rng)
        shared = cal.calibrated_ece(p10, units, np.zeros(1500, bool), 400, rng)
        assert np.quantile(apart, 0.95) < 0.6 * np.quantile(shared, 0.95)


def test_a_flipped_call_draws_the_complement_of_its_units_truth() -> None:
    """A pair in both orders: P(A) = q shown a first, 1 − q shown b first. Under the coupling
    the two orders' events are exact complements, as the human's one label makes them."""
    q = np.array([0.3, 0.8])
    p = np.array([q[0], 1 - q[0], q[1], 1 - q[1]])
    units, flipped = np.array([0, 0, 1, 1]), np.array([False, True, False, True])
    rng = np.random.default_rng(0)
    u = np.random.default_rng(0).random((1, 2))[:, units]
    y = np.where(flipped, 1 - u, u) < p
    assert (y[0, 0] != y[0, 1]) and (y[0, 2] != y[0, 3])
    assert cal.calibrated_ece(p, units, flipped, 1, rng)[0] == pytest.approx(
        cal.ece(p, y[0].astype(float))
    )


def test_calls_without_probs_or_truth_are_counted() -> None:
    p, y = sample(40, seed=4)
    frame = calls(p, y, "j").with_columns(
        p=pl.when(pl.int_range(pl.len()) < 10).then(None).otherwise(pl.col("p")),
        y=pl.when(pl.int_range(pl.len()).is_between(10, 14)).then(None).otherwise(pl.col("y")),
        status=pl.when(pl.int_range(pl.len()) == 39).then(pl.lit("error")).otherwise("status"),
    )
    table, bins = cal.calibration_tables(frame, "accuracy", "TRUE", n_boot=50)
    (row,) = table.rows(named=True)
    assert (row["n_calls"], row["n_ok"], row["n_no_probs"], row["n_no_truth"]) == (40, 39, 10, 5)
    assert row["n_scored"] == 24 == bins["n"].sum()
    scored = frame.slice(15, 24)
    assert row["brier"] == pytest.approx(brier_score_loss(scored["y"], scored["p"]))


def test_no_probs_anywhere_gives_rows_with_counts_and_no_numbers() -> None:
    p, y = sample(12, seed=5)
    frame = calls(p, y, "j").with_columns(p=pl.lit(None, pl.Float64))
    table, bins = cal.calibration_tables(frame, "pairwise", "A", n_boot=50)
    (row,) = table.rows(named=True)
    assert row["n_no_probs"] == 12 and row["n_scored"] == 0
    assert row["ece"] is None and row["brier"] is None and row["miscalibrated"] is None
    assert bins.is_empty() and bins.columns == list(cal.CalibrationBins.to_schema().columns)
    empty, no_bins = cal.calibration_tables(frame.clear(), "pairwise", "A")
    assert empty.is_empty() and no_bins.is_empty()


def test_event_probability_reads_the_grid_and_normalises() -> None:
    probs = pl.Series(
        [
            json.dumps({'"TRUE"': 0.6, '"FALSE"': 0.2}),  # as the grid writes it: quoted
            json.dumps({"true": 0.3, "FALSE": 0.1, "maybe": 0.5}),  # off-grid key ignored
            json.dumps({"FALSE": 0.9}),  # TRUE absent: p = 0
            json.dumps({"maybe": 1.0}),  # no mass on the grid: no P
            None,
        ]
    )
    got = cal.event_probability(probs, ["FALSE", "TRUE"], "TRUE").to_list()
    assert got[:3] == pytest.approx([0.75, 0.75, 0.0]) and got[3:] == [None, None]
    winner = pl.Series([json.dumps({"A": 0.5, "B": 0.3, "tie": 0.2})])
    assert cal.event_probability(winner, ["A", "B", "tie"], "A")[0] == pytest.approx(0.5)
