"""An accuracy study's calibration stage on a planted warehouse and store: P(TRUE) read from the
stored distributions, graded against the truth the accuracy tables use, published as
tbl_calibration and tbl_calibration_bins; with no distribution stored the rows say so; and
`judgelab check` gates on ECE, exiting 1 when the rule fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from judgelab.cli import main
from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.study import load_study
from schemas.consensus import Consensus
from schemas.plan import Plan
from schemas.validate import validate
from tasks import calibration as cal
from tasks import gate, warehouse
from tasks.accuracy import stages
from tasks.judging import store

N_ITEMS = 300
STUDY = """[study]
name = "calib"
type = "accuracy"
task = "accuracy"
benchmark = "truthfulqa"
sample_size = 300
prompt_levels = ["base"]
scales = ["verdict"]
reasoning_efforts = ["n/a"]

[study.analysis]
bootstrap = 300
seed = 3

[[judges]]
name = "honest"
model = "fake/honest"

[[judges]]
name = "sure"
model = "fake/sure"
"""
RULE = """
[[rules]]
name = "calibrated"
view = "tbl_calibration"
column = "ece"
op = "<="
value = 0.1
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def planted(seed: int = 0) -> tuple[pl.DataFrame, dict[str, np.ndarray], np.ndarray]:
    """Items with a reference label drawn as Bernoulli(q); judge "honest" says P(TRUE) = q,
    judge "sure" says q pushed to 0.02 / 0.98 (overconfident). Two repeats per item."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(0.05, 0.95, N_ITEMS)
    truth = rng.random(N_ITEMS) < q
    said = {"honest": q, "sure": np.where(q > 0.5, 0.98, 0.02)}
    plan = pl.DataFrame(
        [
            {
                "key": f"{j}{i:03d}{r}".rjust(64, "0"),
                "study": "calib",
                "judge": j,
                "model": f"fake/{j}",
                "task": "accuracy",
                "prompt_level": "base",
                "prompt_version": "v1",
                "scale": "verdict",
                "reasoning_effort": "n/a",
                "item_id": f"q{i:03d}",
                "repeat": r,
                "messages": "[]",
                "params": "{}",
            }
            for j in ("honest", "sure")
            for i in range(N_ITEMS)
            for r in (0, 1)
        ]
    )
    return (
        plan.with_columns(base_key=pl.col("key")).select(list(Plan.to_schema().columns)),
        said,
        truth,
    )


def store_rows(plan: pl.DataFrame, said: dict[str, np.ndarray] | None) -> pl.DataFrame:
    """A stored answer per planned call; with `said`, its distribution as the grid writes the
    verdict's values ('"TRUE"', quoted), else none (probs null, as hosted judges today)."""
    rows = []
    for key, judge, item in plan.select("key", "judge", "item_id").iter_rows():
        p = None if said is None else float(said[judge][int(item[1:])])
        probs = None if p is None else json.dumps({'"FALSE"': 1 - p, '"TRUE"': p})
        rows.append(
            {
                "key": key,
                "model": f"fake/{judge}",
                "status": "ok",
                "score": float(p is not None and p > 0.5),
                "answers": "[]",
                "attempts": 1,
                "latency_s": 0.1,
                "run_id": "r",
                "created_at": datetime(2026, 1, 1, tzinfo=UTC),
                "probs": probs,
            }
        )
    return store.rows_to_frame(rows)


def plant(settings: Settings, with_probs: bool) -> np.ndarray:
    plan, said, truth = planted()
    warehouse.write_table(settings, plan, "plan", "calib")
    # the two judges split on every item: no consensus, so the truth is the reference
    none = pl.Series([None] * N_ITEMS, dtype=pl.Boolean)
    consensus = pl.DataFrame(
        {
            "study": "calib",
            "item_id": [f"q{i:03d}" for i in range(N_ITEMS)],
            "votes": "model",
            **{"n_designs": 2, "n_voters": 2, "n_true": 1, "share_true": 0.5, "agreement": 0.5},
            "subset": "ambiguous",
            "consensus_label": none,
            "reference": truth,
            "consensus_matches_reference": none,
        }
    )
    consensus = validate(
        consensus.cast({c: pl.Int64 for c in ("n_designs", "n_voters", "n_true")}), Consensus
    )
    warehouse.write_table(settings, consensus, "consensus", "calib")
    store.write_part(settings.store_dir, store_rows(plan, said if with_probs else None))
    return truth


def test_the_stage_scores_each_design_against_the_reference(
    tmp_path: Path, settings: Settings
) -> None:
    (path := tmp_path / "calib.toml").write_text(STUDY)
    study = load_study(path)
    truth = plant(settings, with_probs=True)
    assert stages.calibration_stage.fn(study, settings) == 2 * 2 * N_ITEMS
    warehouse.publish_views(settings)
    table = warehouse.query(settings, "select * from tbl_calibration order by judge")
    honest, sure = table.rows(named=True)
    _, said, _ = planted()
    for row, judge in ((honest, "honest"), (sure, "sure")):
        p = np.repeat(said[judge], 2)  # two repeats per item
        y = np.repeat(truth, 2).astype(float)
        assert (row["n_ok"], row["n_scored"], row["n_no_probs"]) == (2 * N_ITEMS, 2 * N_ITEMS, 0)
        assert row["n_units"] == N_ITEMS and row["event"] == "TRUE"
        assert row["brier"] == pytest.approx(cal.brier(p, y), abs=5e-5)
        assert row["ece"] == pytest.approx(cal.ece(p, y), abs=5e-5)
        assert row["study_type"] == "accuracy" and row["note"] is None
    assert honest["miscalibrated"] is False and sure["miscalibrated"] is True
    assert sure["ece"] > 0.1 > honest["ece"]
    bins = warehouse.query(settings, "select * from tbl_calibration_bins where judge = 'sure'")
    assert bins["bin"].to_list() == [0, 9] and bins["n"].sum() == 2 * N_ITEMS


def test_without_distributions_the_rows_count_the_calls_and_say_why(
    tmp_path: Path, settings: Settings
) -> None:
    (path := tmp_path / "calib.toml").write_text(STUDY)
    plant(settings, with_probs=False)
    assert stages.calibration_stage.fn(load_study(path), settings) == 0
    warehouse.publish_views(settings)
    table = warehouse.query(settings, "select * from tbl_calibration")
    assert table["n_no_probs"].to_list() == [2 * N_ITEMS] * 2
    assert table["ece"].is_null().all() and table["brier"].is_null().all()
    assert set(table["note"]) == {
        "no probabilities: the judge stored no distribution over the scale"
    }
    assert warehouse.query(settings, "select * from tbl_calibration_bins").is_empty()
    (rule,) = gate.load_rules(write(tmp_path / "rules.toml", RULE))
    (result,) = gate.run_gate(settings, "calib", [rule])
    assert not result.passed and result.value is None  # no ECE is no pass


def test_check_gates_on_ece_and_exits_1_when_it_fails(
    tmp_path: Path,
    settings: Settings,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (study := tmp_path / "calib.toml").write_text(STUDY + RULE)
    plant(settings, with_probs=True)
    stages.calibration_stage.fn(load_study(study), settings)
    warehouse.publish_views(settings)
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(settings.data_dir))
    honest_only = RULE.replace('op = "<="', 'where = "judge = \'honest\'"\nop = "<="')
    (rules := tmp_path / "honest.toml").write_text(honest_only)
    assert main(["check", str(study), "--rules", str(rules)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("PASS calib · calibrated: 0.0") and line.endswith(", 1 row")
    proc = subprocess.run(
        [sys.executable, "-m", "judgelab.cli", "check", str(study)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "JUDGELAB_DATA_DIR": str(settings.data_dir)},
    )
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stdout.splitlines()  # the worst design decides: the overconfident judge
    sure = warehouse.query(settings, "select * from tbl_calibration where judge = 'sure'")
    lo, hi = sure["ece_lo"][0], sure["ece_hi"][0]
    assert line == f"FAIL calib · calibrated: {sure['ece'][0]:.4g} [{lo:.4g}, {hi:.4g}], 2 rows"
