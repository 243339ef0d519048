"""The drift rule (tasks/drift.py) on simulated canary batches, and the canary's keys.

A judge with noise only (sd 1 on 1–7, 2 repeats, 100 items) is never flagged over 10 buckets,
while a shift of 0.5 from bucket 4 on (noise sd 0.5) is flagged in bucket 4 and after and not
before (at sd 1 the same canary would catch it in about 86% of buckets: README); verdicts
flag a flip rate beyond the flips between repeats of one batch."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from judgelab import clock
from judgelab.settings import PROJECT_ROOT
from judgelab.study import Canary, Judge, Study, StudyError, load_study
from tasks import alerts, canary, canary_power, drift
from tasks.judging.scales import load_scales
from tasks.plan import build_plan

DESIGN = {
    "study": "s",
    "judge": "j",
    "model": "fake/planted",
    "prompt_level": "base",
    "scale": "likert7",
    "reasoning_effort": "n/a",
}
BUCKETS = [f"2026-12-{d:02d}" for d in range(1, 11)]


def batches(
    truth: np.ndarray,
    sd: float,
    shift_from: int | None,
    shift: float,
    seed: int,
    repeats: int = 2,
) -> pl.DataFrame:
    """Canary answers for 10 day buckets: truth + noise (+ shift from bucket `shift_from`)."""
    rng = np.random.default_rng(seed)
    rows = []
    for b, bucket in enumerate(BUCKETS, 1):
        moved = shift if shift_from is not None and b >= shift_from else 0.0
        for i, t in enumerate(truth):
            for r in range(repeats):
                rows.append(
                    DESIGN
                    | {
                        "bucket": bucket,
                        "item_id": f"i{i:03d}",
                        "repeat": r,
                        "status": "ok",
                        "value": float(t + moved + sd * rng.normal()),
                    }
                )
    return pl.DataFrame(rows)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_noise_only_is_never_flagged_and_a_planted_shift_is_flagged_from_its_bucket(
    seed: int,
) -> None:
    truth = np.random.default_rng(0).uniform(1, 7, 100)
    quiet = drift.drift_table(batches(truth, 1.0, None, 0.0, seed), "mean_shift")
    assert quiet.height == 10 and quiet["batch"].to_list() == list(range(1, 11))
    assert not quiet["flagged"].any()
    # the band is what noise alone explains: about z·sd·sqrt(2/(R·n)) = 1.96·sqrt(1/100)
    band = quiet.filter(pl.col("batch") > 1)["noise"]
    assert band.min() > 0.17 and band.max() < 0.23

    moved = drift.drift_table(batches(truth, 0.5, 4, 0.5, seed), "mean_shift")
    flagged = dict(moved.select("bucket", "flagged").iter_rows())
    assert [flagged[b] for b in BUCKETS] == [False] * 3 + [True] * 7
    late = moved.filter(pl.col("batch") >= 4)
    assert abs(late["shift"].mean() - 0.5) < 0.15  # the plant, give or take batch-1 noise
    assert late["reference"].unique().to_list() == [BUCKETS[0]]
    lines = alerts.alert_lines(moved.filter(pl.col("bucket") == BUCKETS[3]))
    assert len(lines) == 1 and lines[0].startswith("j · base · likert7")
    assert "bucket 2026-12-04 (vs 2026-12-01, n=100)" in lines[0]


def test_shift_inside_the_noise_band_is_not_flagged_even_when_its_ci_excludes_zero() -> None:
    """Noise sd 0.5, 100 items: a 0.12 shift is significant (CI excludes 0) but within about
    what two runs of this judge differ by; the rule asks the CI to clear the band."""
    truth = np.random.default_rng(0).uniform(1, 7, 100)
    answers = batches(truth, 0.5, 2, 0.12, seed=5).filter(pl.col("bucket") <= BUCKETS[1])
    row = drift.drift_table(answers, "mean_shift").filter(pl.col("batch") == 2).row(0, named=True)
    assert row["shift_lo"] > 0 and row["shift_lo"] < row["noise"] and not row["flagged"]


def test_compare_previous_flags_the_step_once() -> None:
    truth = np.random.default_rng(0).uniform(1, 7, 100)
    answers = batches(truth, 0.3, 4, 0.5, seed=9)
    step = drift.drift_table(answers, "mean_shift", compare="previous")
    assert step.filter(pl.col("flagged"))["bucket"].to_list() == [BUCKETS[3]]
    assert step.filter(pl.col("batch") == 5)["reference"].item() == BUCKETS[3]


def verdict_batches(flip_from: int | None, seed: int) -> pl.DataFrame:
    """Verdicts on 80 items: each call wrong with probability 0.1 (noise); from bucket
    `flip_from` on the judge turns around on a quarter of the items (drift)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, 80)
    rows = []
    for b, bucket in enumerate(BUCKETS[:5], 1):
        for i, t in enumerate(truth):
            turned = flip_from is not None and b >= flip_from and i % 4 == 0
            for r in range(3):
                v = (1 - t) if turned else t
                v = 1 - v if rng.random() < 0.1 else v
                rows.append(
                    DESIGN
                    | {"scale": "verdict", "bucket": bucket, "item_id": f"i{i:03d}", "repeat": r}
                    | {"status": "ok", "value": float(v), "reference": bool(t)}
                )
    return pl.DataFrame(rows)


def test_verdict_flips_beyond_repeat_flips_are_flagged() -> None:
    quiet = drift.drift_table(verdict_batches(None, 1), "flip_rate")
    assert not quiet["flagged"].any()
    moved = drift.drift_table(verdict_batches(3, 1), "flip_rate")
    assert moved.filter(pl.col("flagged"))["bucket"].to_list() == BUCKETS[2:5]
    late = moved.filter(pl.col("batch") == 3).row(0, named=True)
    # a quarter of the items turned: accuracy drops by about 0.25 × (1 − 2·0.1)
    assert -0.3 < late["accuracy_change"] < -0.1
    assert late["noise_sd"] == pytest.approx(2 * 0.1 * 0.9, abs=0.07)  # 2p(1−p) between repeats


def test_failed_calls_are_left_out_and_counted_in_n_items() -> None:
    truth = np.random.default_rng(0).uniform(1, 7, 20)
    answers = batches(truth, 0.5, None, 0.0, seed=2).filter(pl.col("bucket") <= BUCKETS[1])
    failed = (pl.col("item_id") == "i000") & (pl.col("bucket") == BUCKETS[1])
    answers = answers.with_columns(
        pl.when(failed).then(pl.lit("unparseable")).otherwise("status").alias("status"),
        pl.when(failed).then(None).otherwise("value").alias("value"),
    )
    table = drift.drift_table(answers, "mean_shift")
    assert table.filter(pl.col("batch") == 2)["n_items"].item() == 19


def test_buckets_follow_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    at = datetime(2026, 12, 3, 13, 30, tzinfo=UTC)
    assert clock.bucket("1d", at) == "2026-12-03"
    assert clock.bucket("12h", at) == "2026-12-03T12"
    week = clock.bucket("7d", at)  # weeks counted from 1970-01-01 (a Thursday)
    assert week == "2026-12-03" and clock.bucket("7d", datetime(2026, 12, 9, tzinfo=UTC)) == week
    assert clock.bucket("7d", datetime(2026, 12, 10, tzinfo=UTC)) == "2026-12-10"
    monkeypatch.setenv("JUDGELAB_NOW", "2026-12-05")
    assert clock.bucket("1d") == "2026-12-05"


def study(**canary_args) -> Study:
    judge = Judge(name="j", model="fake/hash")
    return Study(
        name="s",
        task="sentiment",
        benchmark="vader",
        sample_size=30,
        prompt_levels=["base"],
        scales=["likert7", "unit"],
        judges=[judge, Judge(name="k", model="fake/hash")],
        canary=Canary(**canary_args),
    )


def test_canary_keys_carry_the_bucket_and_leave_the_study_keys_alone() -> None:
    items = pl.DataFrame({"item_id": [f"t{i:02d}" for i in range(30)]}).with_columns(
        ("text " + pl.col("item_id")).alias("text")
    )
    s, scales = study(size=10, judges=["j"], repeats=3), load_scales()
    day1 = canary.canary_plan(s, items, scales, "2026-12-01")
    again = canary.canary_plan(s, items, scales, "2026-12-01")
    day2 = canary.canary_plan(s, items, scales, "2026-12-02")
    assert day1.height == 10 * 3 * 2  # items × repeats × designs of the watched judge
    assert set(day1["judge"]) == {"j"} and day1["item_id"].n_unique() == 10
    assert day1["key"].to_list() == again["key"].to_list()  # once per bucket
    assert not set(day1["key"]) & set(day2["key"])  # again in the next
    assert day1["item_id"].to_list() == day2["item_id"].to_list()  # the same items
    study_keys = set(build_plan(s, items, scales)["key"])
    assert not set(day1["key"]) & study_keys
    without = s.model_copy(update={"canary": None})
    assert set(build_plan(without, items, scales)["key"]) == study_keys


def test_canary_configuration_is_checked_at_load(tmp_path) -> None:
    base = (
        '[study]\nname = "s"\ntask = "sentiment"\nbenchmark = "vader"\nsample_size = 10\n'
        'prompt_levels = ["base"]\nscales = ["likert7"]\n\n[study.canary]\n{canary}\n\n'
        '[[judges]]\nname = "j"\nmodel = "fake/hash"\n'
    )
    cases = {
        "repeats = 1": "at least 2 repeats",
        'judges = ["jj"]': "did you mean 'j'",
        'every = "1w"': '"1d", "7d" or "12h"',
    }
    for line, message in cases.items():
        path = tmp_path / "s.toml"
        path.write_text(base.format(canary=line))
        with pytest.raises(StudyError, match=message) as info:
            load_study(path)
        assert "line " in str(info.value)


def test_canary_size_from_the_power_planner_gives_its_power_in_simulation() -> None:
    """`judgelab power` sizes a canary with canary_size; the drift rule run on simulated
    batches of that size flags a shift of 0.5 (noise sd 1, 2 repeats) about 80% of the time."""

    n = canary_power.canary_size(0.5, 1.0, 2)
    assert 85 <= n <= 95  # about 2·1/2·((t + 1.96 + 0.84)/0.5)², t = 1.99 at 91 df: 92
    rng = np.random.default_rng(7)
    sims, truth = 150, rng.uniform(2, 6, n)
    # 150 simulated judges (one design each), two day batches, the second shifted by 0.5
    shape = (sims, 2, n, 2)  # judge × batch × item × repeat
    values = truth[None, None, :, None] + rng.normal(size=shape)
    values[:, 1] += 0.5
    j, b, i, r = np.indices(shape).reshape(4, -1)
    answers = pl.DataFrame(
        {
            **{k: [v] * j.size for k, v in DESIGN.items() if k != "judge"},
            "judge": [f"sim{x:03d}" for x in j],
            "bucket": np.array(BUCKETS[:2])[b],
            "item_id": [f"i{x:03d}" for x in i],
            "repeat": r,
            "status": "ok",
            "value": values.ravel(),
        }
    )
    hits = drift.drift_table(answers, "mean_shift")["flagged"].sum()
    assert 0.68 < hits / 150 < 0.92
    assert canary_power.canary_false_alarm(0.95) == pytest.approx(8.9e-5, rel=0.05)


def docs_canary_rows() -> list[tuple[float, int, float, int]]:
    """(repeat noise sd, repeats, shift, items) of each cell of the docs' canary table
    (docs/how-to/canary.md)."""
    page = (PROJECT_ROOT / "docs" / "how-to" / "canary.md").read_text()
    table = page.split("\n| repeat noise sd s (1–7) |", 1)[1].split("\n\n", 1)[0]
    header, _, *rows = table.splitlines()
    shifts = [float(x) for x in re.findall(r"δ = ([0-9.]+)", header)]
    cells = []
    for row in rows:
        label, *counts = [c.strip() for c in row.strip().strip("|").split("|")]
        sd, repeats = re.fullmatch(r"([0-9.]+), (\d+) repeats", label).groups()
        for shift, count in zip(shifts, counts, strict=True):
            cells.append((float(sd), int(repeats), shift, int(count.removesuffix(" items"))))
    return cells


def flag_rule(now: np.ndarray, ref: np.ndarray, level: float = 0.95) -> np.ndarray:
    """drift's mean-shift rule on complete batches (runs × items × repeats), vectorised over
    the runs; checked flag for flag against drift._within_sd and drift._flagged below."""
    _, n, repeats = now.shape
    ss = sum(((m - m.mean(axis=2, keepdims=True)) ** 2).sum(axis=(1, 2)) for m in (now, ref))
    noise = sps.norm.ppf((1 + level) / 2) * np.sqrt(ss / (2 * n * (repeats - 1)))
    noise = noise * np.sqrt(2 * n / repeats) / n  # z·s·√(Σ 1/k)/n, k = R everywhere
    d = now.mean(axis=2) - ref.mean(axis=2)
    half = sps.t.ppf((1 + level) / 2, n - 1) * d.std(axis=1, ddof=1) / np.sqrt(n)
    shift = d.mean(axis=1)
    return (shift - half > noise) | (shift + half < -noise)


def simulated_power(
    n: int, sd: float, repeats: int, shift: float, runs: int, seed: int
) -> tuple[float, float]:
    """Share of `runs` canaries (a reference batch, then one `shift` higher) the rule flags,
    and its standard error. The first 100 runs also go through drift's own functions, which
    must flag exactly the same ones."""
    from tasks import drift

    rng = np.random.default_rng(seed)
    truth = rng.uniform(2, 6, n)[None, :, None]
    hits, checked = 0, 0
    for start in range(0, runs, 1000):
        size = min(1000, runs - start)
        ref = truth + sd * rng.normal(size=(size, n, repeats))
        now = truth + shift + sd * rng.normal(size=(size, n, repeats))
        flags = flag_rule(now, ref)
        hits += int(flags.sum())
        for r in range(min(size, 100 - checked)):
            row = {"d": now[r].mean(axis=1) - ref[r].mean(axis=1), "n_items": n}
            row |= {"repeats": repeats, "noise_sd": drift._within_sd([now[r], ref[r]])[0]}
            row |= {"k": np.full((2, n), repeats)}
            assert drift._flagged(row, "mean_shift", 0.95)["flagged"] == flags[r]
            checked += 1
    p = hits / runs
    return p, float(np.sqrt(p * (1 - p) / runs))


def test_every_docs_canary_size_flags_its_shift_in_80_percent_of_simulated_buckets() -> None:
    """Each cell of the docs' table is canary_power.canary_size's answer, the least n whose exact
    power (canary_power.canary_power) reaches 80%; 10,000 simulated canaries through the flag rule
    agree with that power within Monte Carlo error. The z-based size it replaced (23 items
    for 0.5 at sd 0.5, 2 repeats) flags clearly less than 80%."""

    cells = docs_canary_rows()
    assert len(cells) == 6
    for k, (sd, repeats, shift, n) in enumerate(cells):
        assert n == canary_power.canary_size(shift, sd, repeats), (sd, repeats, shift)
        exact = canary_power.canary_power(n, shift, sd, repeats)
        assert exact >= 0.80 > canary_power.canary_power(n - 1, shift, sd, repeats)
        p, se = simulated_power(n, sd, repeats, shift, runs=10_000, seed=k)
        assert abs(p - exact) < 3 * se, (sd, repeats, shift, p, exact)
        assert p > 0.80 - 3 * se
    z = sps.norm.ppf(0.975)
    old = math.ceil(2 * 0.5**2 / 2 * ((2 * z + sps.norm.ppf(0.8)) / 0.5) ** 2)
    p, se = simulated_power(old, 0.5, 2, 0.5, runs=10_000, seed=99)
    assert old == 23 and p + 3 * se < 0.80  # 77%
    # `judgelab power` prints the same sizes: the first row at 24 items and at 0.25
    line = canary_power.canary_lines(study(size=24), {"j": 1}, 0.5, 0)[1]
    assert "flags a mean shift ≥ 0.50 on 1–7" in line and "92 items would catch 0.25" in line


def test_planted_fake_judges_over_ten_day_buckets(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """Through the fake provider itself (no flow): each day's canary plan answered by
    `fake/planted` with the clock set to that day. Noise only (sd 1): never flagged in 10
    buckets; +0.5 from the 6th day (noise sd 0.5): flagged from that bucket on, not before."""
    import json

    from judgelab.testing.fake_provider import FakeJudge
    from tasks.judging.parse import parse_score

    items = pl.DataFrame({"item_id": [f"t{i:03d}" for i in range(60)]}).with_columns(
        ("sentence number " + pl.col("item_id")).alias("text")
    )
    truth = tmp_path / "truth.json"
    rng = np.random.default_rng(3)
    truth.write_text(json.dumps({t: rng.uniform(0.1, 0.9) for t in items["text"]}))
    extra = {"truth": str(truth)}
    judges = [
        Judge(name="steady", model="fake/planted", extra=extra | {"run_noise": 1.0}),
        Judge(
            name="shifty",
            model="fake/planted",
            extra=extra | {"run_noise": 0.5, "drift": 0.5, "drift_from": "2026-12-06"},
        ),
    ]
    s = study(size=50, repeats=2).model_copy(update={"judges": judges, "scales": ["pct100"]})
    scales, fake, rows = load_scales(), FakeJudge(), []
    schema = {"json_schema": {"schema": scales["pct100"].json_schema()}}
    for bucket in BUCKETS:
        monkeypatch.setenv("JUDGELAB_NOW", bucket)
        plan = canary.canary_plan(s, items, scales, clock.bucket("1d"))
        for r in plan.iter_rows(named=True):
            params = json.loads(r["params"])
            params |= params.pop("extra") | {"response_format": schema}
            answer = fake.completion("planted", json.loads(r["messages"]), params)
            status, score = parse_score(answer.choices[0].message.content, scales["pct100"])
            design = {c: r[c] for c in [*drift.DESIGN, "bucket", "item_id", "repeat"]}
            rows.append(design | {"status": status, "value": 1 + 6 * score / 100})
    table = drift.drift_table(pl.DataFrame(rows), "mean_shift")
    flagged = {
        j: table.filter(pl.col("judge") == j)["flagged"].to_list() for j in ["steady", "shifty"]
    }
    assert flagged["steady"] == [False] * 10
    assert flagged["shifty"] == [False] * 5 + [True] * 5
