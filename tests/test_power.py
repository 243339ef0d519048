"""The power planner: each n it prints is checked against a seeded simulation of the test or
interval the study's tables actually run (bootstrap CIs of tasks.stats, McNemar of
tasks.accuracy.verdict_impact, TOST of tasks.equivalence), within 10%; the closed forms against
their textbook formulas; the pilot summaries against numpy on inline frames."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.weightstats import ttost_paired

from judgelab.study import Analysis, Study
from schemas.item_scores import ItemScores
from schemas.validate import validate
from tasks import power as pw
from tasks import power_plan as pp
from tasks.accuracy.verdict_impact import mcnemar
from tasks.equivalence import MIN_N_NO_SPREAD, tost
from tasks.stats import bootstrap_ci

Z = sps.norm.ppf(0.975)


def item_scores(
    designs: dict[tuple[str, str, str], tuple[float, float]], n_items: int = 120, seed: int = 0
) -> pl.DataFrame:
    """A pilot `item_scores`: human means on 1–7, each design = human + bias + noise (sd),
    clipped to 1–7, so differences are not quite normal."""
    rng = np.random.default_rng(seed)
    human = np.clip(rng.normal(4, 1.3, n_items), 1, 7)
    frames = []
    for (judge, level, scale), (bias, sd) in designs.items():
        score = np.clip(human + bias + rng.normal(0, sd, n_items), 1, 7)
        frames.append(
            pl.DataFrame(
                {
                    "study": "s",
                    "kind": "judge",
                    "judge": judge,
                    "model": f"fake/{judge}",
                    "prompt_level": level,
                    "scale": scale,
                    "item_id": [f"i{k:03d}" for k in range(n_items)],
                    "n_ok": 1,
                    "score_1to7": score,
                    "score_sd": None,
                    "human_1to7": human,
                    "readout": "answer",
                },
                schema_overrides={"score_sd": pl.Float64, "n_ok": pl.Int64},
            )
        )
    return validate(pl.concat(frames), ItemScores)


def implied_n(n: int, halfwidths: list[float], target: float) -> float:
    """The n at which the simulated mean half-width would meet the target (width ∝ 1/√n)."""
    return n * (float(np.mean(halfwidths)) / target) ** 2


def test_halfwidth_n_is_the_least_n_meeting_the_target() -> None:
    for sd, hw in [(1.0, 0.1), (0.8, 0.05), (0.37, 0.2)]:
        n = pw.n_for_halfwidth(sd, hw)
        assert n == math.ceil((Z * sd / hw) ** 2)
        assert Z * sd / math.sqrt(n) <= hw < Z * sd / math.sqrt(n - 1)
        assert pw.halfwidth(sd, n) == pytest.approx(Z * sd / math.sqrt(n))


def test_bias_mae_and_alpha_n_match_the_bootstrap_ci_within_10_percent() -> None:
    """The planner's n per design, then 80 simulated studies of that n drawn from the pilot,
    each with the tables' own percentile bootstrap (stats.bootstrap_ci): the mean half-width
    implies an n within 10% of the planner's."""
    pilot = item_scores({("a", "base", "likert7"): (0.3, 0.7)})
    targets = pw.Targets(bias_hw=0.12, mae_hw=0.08, alpha_hw=0.04)
    (row,) = pp.rating_designs(pilot, targets, seed=1).to_dicts()
    j, h = pilot["score_1to7"].to_numpy(), pilot["human_1to7"].to_numpy()
    d = j - h
    assert row["n_pilot"] == 120 and row["bias"] == pytest.approx(d.mean())
    assert row["sd"] == pytest.approx(np.std(d, ddof=1))
    assert row["mae"] == pytest.approx(np.abs(d).mean())
    assert row["sd_abs"] == pytest.approx(np.std(np.abs(d), ddof=1))
    rng = np.random.default_rng(7)
    for metric, target in [("bias", 0.12), ("mae", 0.08), ("alpha", 0.04)]:
        n = row[f"n_{metric}"]
        widths = []
        for _ in range(80):
            idx = rng.integers(0, len(j), n)
            ci = bootstrap_ci(j[idx], h[idx], np.arange(n), 1000, rng)
            widths.append((ci[f"{metric}_hi"] - ci[f"{metric}_lo"]) / 2)
        assert implied_n(n, widths, target) == pytest.approx(n, rel=0.1), metric


def test_assumed_mae_and_alpha_follow_the_normal_model() -> None:
    """folded_sd is the sd of |d| and normal_draw yields the stated α: both against numpy."""
    rng = np.random.default_rng(3)
    d = rng.normal(0.3, 0.9, 400_000)
    assert pw.folded_sd(0.3, 0.9) == pytest.approx(np.abs(d).std(), rel=0.01)
    judge, human = pw.normal_draw(0.3, 0.9, 0.8)(2000, 50, rng)
    assert pw.alphas(judge, human).mean() == pytest.approx(0.8, abs=0.01)
    plan = pp.assumed_rating_designs(pw.Assumptions(sd=0.9, bias=0.3), pw.Targets(mae_hw=0.07))
    assert plan["n_mae"][0] == math.ceil((Z * pw.folded_sd(0.3, 0.9) / 0.07) ** 2)


def t_test_power(d: np.ndarray) -> float:
    """Share of the simulated studies (rows of paired differences) the two-sided t test
    rejects at 5%."""
    return float(np.mean(sps.ttest_1samp(d, 0.0, axis=1).pvalue < 0.05))


def test_paired_difference_n_matches_simulation_within_10_percent() -> None:
    """From a pilot pair: at 10% fewer items the simulated paired t test (items resampled
    from the pilot's differences) has less than the target power, at 10% more it has more."""
    pilot = item_scores(
        {("a", "base", "likert7"): (0.0, 0.5), ("b", "base", "likert7"): (0.1, 0.5)}
    )
    pairs = pp.pair_needs(
        pp.pair_spreads(pilot, pp.RATING_DESIGN, "score_1to7"), "rating", 0.2, 0.2
    )
    (row,) = pairs.to_dicts()
    wide = pilot.pivot(on="judge", index="item_id", values="score_1to7")
    d = (wide["a"] - wide["b"]).to_numpy()
    assert (row["design_a"], row["design_b"]) == ("a·base·likert7", "b·base·likert7")
    assert row["sd_diff"] == pytest.approx(np.std(d, ddof=1))
    n = row["n_power"]
    assert n == pw.n_for_power(0.2, row["sd_diff"])
    rng = np.random.default_rng(11)
    shifted = d - d.mean() + 0.2  # the pilot's shape with the difference to detect
    low = t_test_power(rng.choice(shifted, (20_000, math.floor(0.9 * n))))
    high = t_test_power(rng.choice(shifted, (20_000, math.ceil(1.1 * n))))
    assert low < 0.8 < high
    assert t_test_power(rng.choice(shifted, (20_000, n))) == pytest.approx(0.8, abs=0.02)


def test_paired_power_is_statsmodels_and_n_is_the_least() -> None:
    from statsmodels.stats.power import TTestPower

    n = pw.n_for_power(0.25, 0.6)
    assert pw.paired_power(n, 0.25, 0.6) >= 0.8 > pw.paired_power(n - 1, 0.25, 0.6)
    assert n == math.ceil(TTestPower().solve_power(0.25 / 0.6, alpha=0.05, power=0.8))
    mdd = pw.detectable_diff(n, 0.6)
    assert pw.paired_power(n, mdd, 0.6) == pytest.approx(0.8, abs=1e-6)
    assert mdd <= 0.25  # n items detect the difference they were planned for


def test_mcnemar_n_matches_simulation_within_10_percent() -> None:
    """Accuracy differences are tested with McNemar (continuity-corrected; exact below 25
    discordant pairs): simulated with tasks.accuracy.verdict_impact.mcnemar itself."""
    n = pw.n_for_mcnemar(0.05, 0.2)
    assert pw.mcnemar_power(n, 0.05, 0.2) >= 0.8 > pw.mcnemar_power(n - 1, 0.05, 0.2)
    rng = np.random.default_rng(5)

    def simulated(m: int) -> float:
        u = rng.random((20_000, m))
        b, c = (u < 0.125).sum(axis=1), ((u >= 0.125) & (u < 0.2)).sum(axis=1)
        return float(np.mean(mcnemar(b, c)["p"] < 0.05))

    assert simulated(math.floor(0.9 * n)) < 0.8 < simulated(math.ceil(1.1 * n))
    assert simulated(n) == pytest.approx(0.8, abs=0.02)  # fails without the correction
    mdd = pw.detectable_accuracy_diff(n, 0.2)
    assert mdd == pytest.approx(0.05, abs=0.002)


@pytest.mark.parametrize("binary", [False, True])
def test_tost_n_matches_simulation_within_10_percent(binary: bool) -> None:
    """TOST at the margin with truly equal designs, simulated with tasks.equivalence.tost:
    ratings (normal differences, margin 0.2) and accuracy (0/±1 differences, margin 5 pp)."""
    rng = np.random.default_rng(13)
    sd, margin = (math.sqrt(0.2), 0.05) if binary else (0.6, 0.2)
    n = pw.n_for_tost(sd, margin)
    assert pw.tost_power(n, sd, margin) >= 0.8 > pw.tost_power(n - 1, sd, margin)

    def simulated(m: int) -> float:
        if binary:
            u = rng.random((20_000, m))
            d = (u < 0.1).astype(float) - ((u >= 0.1) & (u < 0.2))
        else:
            d = rng.normal(0, sd, (20_000, m))
        verdict = tost(np.full(len(d), m), d.sum(axis=1), (d**2).sum(axis=1), margin)["verdict"]
        return float(np.mean(verdict == "yes"))

    assert simulated(math.floor(0.9 * n)) < 0.8 < simulated(math.ceil(1.1 * n))
    assert simulated(n) == pytest.approx(0.8, abs=0.02)


def test_tost_p_matches_statsmodels() -> None:
    """tasks.equivalence.tost (used above) against statsmodels' ttost_paired."""
    rng = np.random.default_rng(2)
    for shift, margin in [(0.0, 0.2), (0.15, 0.2), (0.4, 0.2), (-0.1, 0.05)]:
        a = rng.normal(4, 1, 40)
        b = a - shift + rng.normal(0, 0.4, 40)
        d = a - b
        ours = tost(np.array([40]), np.array([d.sum()]), np.array([(d**2).sum()]), margin)
        p, _, _ = ttost_paired(a, b, -margin, margin)
        assert ours["p"][0] == pytest.approx(p, rel=1e-9)


def test_pair_spreads_use_shared_items_only() -> None:
    frame = pl.DataFrame(
        {
            "judge": ["a"] * 4 + ["b"] * 3 + ["c"] * 4,
            "prompt_level": "base",
            "scale": "likert7",
            "item_id": ["1", "2", "3", "4", "1", "2", "3", "1", "2", "3", "4"],
            "score_1to7": [3.0, 5.0, 2.0, 6.0, 4.0, 5.0, 4.5, 3.0, 5.0, 1.0, 6.5],
        }
    )
    pairs = pp.pair_spreads(frame, pp.RATING_DESIGN, "score_1to7").to_dicts()
    assert [(r["design_a"][0], r["design_b"][0], r["n_pilot"]) for r in pairs] == [
        ("a", "b", 3),
        ("a", "c", 4),
        ("b", "c", 3),
    ]
    d = np.array([3.0, 5.0, 2.0]) - np.array([4.0, 5.0, 4.5])
    assert pairs[0]["mean_diff"] == pytest.approx(d.mean())
    assert pairs[0]["sd_diff"] == pytest.approx(np.std(d, ddof=1))
    assert pairs[0]["discordant"] == pytest.approx(2 / 3)
    assert pairs[1]["discordant"] == pytest.approx(2 / 4)


def verdicts(correct: dict[tuple[str, str, str], list[int]]) -> pl.DataFrame:
    """Verdicts whose correctness per design × item is given (reference TRUE on even items)."""
    rows = []
    for (judge, level, effort), right in correct.items():
        for k, ok in enumerate(right):
            ref = k % 2 == 0
            rows.append(
                {
                    "study": "acc",
                    "judge": judge,
                    "model": f"fake/{judge}",
                    "prompt_level": level,
                    "reasoning_effort": effort,
                    "item_id": f"q{k}",
                    "repeat": 0,
                    "status": "ok",
                    "verdict": int(ref) if ok else int(not ref),
                    "reference": ref,
                }
            )
    return pl.DataFrame(rows)


def study(kind: str, **analysis: float) -> Study:
    fields = {
        "rating": {"benchmark": "vader", "scales": ["likert7"]},
        "accuracy": {"benchmark": "truthfulqa", "scales": ["verdict"]},
        "tone": {"benchmark": "ukpconvarg1", "scales": ["likert7"]},
    }[kind]
    return Study(
        name="s",
        type=kind,
        task="t",
        sample_size=10,
        prompt_levels=["base"],
        judges=[{"name": "a", "model": "fake/a"}],
        analysis=Analysis(**analysis),
        **fields,
    )


def test_accuracy_pilot_counts_right_verdicts_and_detects_the_margin() -> None:
    calls = verdicts(
        {
            ("a", "base", "n/a"): [1, 1, 1, 0, 1, 1, 0, 1, 1, 1],
            ("a", "long_icl", "n/a"): [1, 0, 1, 0, 1, 1, 1, 1, 0, 1],
        }
    )
    plan = pp.plan_study(study("accuracy"), calls, pw.Targets(acc_hw=0.1), pw.Assumptions())
    rows = plan.designs.sort("prompt_level").to_dicts()
    assert [r["accuracy"] for r in rows] == [pytest.approx(0.8), pytest.approx(0.7)]
    assert rows[0]["n_accuracy"] == math.ceil((Z * math.sqrt(0.8 * 0.2) / 0.1) ** 2)
    assert plan.diff == pytest.approx(0.05) and plan.margin == pytest.approx(0.05)
    (pair,) = plan.pairs.to_dicts()
    assert pair["discordant"] == pytest.approx(0.3)  # items 2, 7, 9
    assert pair["n_power"] == pw.n_for_mcnemar(0.05, 0.3)
    assert pair["n_tost"] == pw.n_for_tost(pair["sd_diff"], 0.05)


def test_rating_plan_uses_the_studys_difference_and_margin() -> None:
    plan = pp.plan_study(
        study("rating", meaningful_diff=0.3, equivalence_margin=0.25),
        None,
        pw.Targets(),
        pw.Assumptions(diff_sd=0.7),
        full=False,
    )
    assert (plan.diff, plan.margin) == (0.3, 0.25)
    line = pp.verdict_line(plan, 100)
    mdd = pw.detectable_diff(100, 0.7)
    assert line.startswith(f"n = 100 items: bias CI ±{Z * 0.8 / 10:.2f}, 80% power for a ")
    assert f"a {mdd:.2f} difference" in line and "±0.25" in line
    with pytest.raises(ValueError, match="covers rating"):
        pp.plan_study(study("tone"), None, pw.Targets(), pw.Assumptions())


def test_one_design_pilot_falls_back_to_the_assumed_difference_sd() -> None:
    pilot = item_scores({("a", "base", "likert7"): (0.0, 0.5)}, n_items=30)
    plan = pp.plan_rating(pilot, pw.Targets(), pw.Assumptions(diff_sd=0.9), 0.2, 0.2)
    (pair,) = plan.pairs.to_dicts()
    assert pair["sd_diff"] == 0.9 and pair["n_power"] == pw.n_for_power(0.2, 0.9)
    assert "pilot: 30 items, 1 designs" in plan.basis and "difference sd 0.9" in plan.basis


def test_designs_that_never_disagree_are_not_estimable_not_a_search_cap() -> None:
    """Two accuracy designs right on the same items: McNemar has no power at any n, so (b)'s
    n is None and printed "not estimable", never MAX_N as "worst 10,000,000 items"; TOST on
    no spread needs the rule's MIN_N_NO_SPREAD items, not 2. A pair with an n beside one
    without is named, not dropped from the line."""
    same = [1, 1, 1, 0, 1, 1, 0, 1, 1, 1]
    calls = verdicts({("a", "base", "n/a"): same, ("a", "long_icl", "n/a"): same})
    plan = pp.plan_study(study("accuracy"), calls, pw.Targets(acc_hw=0.1), pw.Assumptions())
    (pair,) = plan.pairs.to_dicts()
    assert (pair["discordant"], pair["n_power"], pair["n_tost"]) == (0.0, None, MIN_N_NO_SPREAD)
    lines = pp.question_lines(plan)
    assert lines[1].endswith("(McNemar, two-sided 5%): not estimable")
    assert "10,000,000" not in "\n".join(lines)
    assert pw.smallest_n(lambda n: 0.0, 0.8) is None
    assert pw.n_for_mcnemar(0.05, 0.0) is None and pw.n_for_power(1e-4, 1.0) is None

    other = [1, 0, 1, 0, 1, 1, 1, 1, 0, 1]
    three = {("a", "base", "n/a"): same, ("a", "long_icl", "n/a"): same}
    three[("a", "short_icl", "n/a")] = other
    plan = pp.plan_study(
        study("accuracy"), verdicts(three), pw.Targets(acc_hw=0.1), pw.Assumptions()
    )
    line = pp.question_lines(plan)[1]
    assert "; not estimable for a·base·n/a vs a·long_icl·n/a" in line and "median" in line
