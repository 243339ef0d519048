"""Simulation: fake judges with planted properties run through the whole rating flow; the tables
must recover every planted effect, and must not report them when the plants are removed.

Judges (all `fake/planted`, answering the human truth plus planted errors, see providers.py):
  planted-scale  +0.5 on the −3..3 scale only      → bias CI holds 0.5 there; scale flagged
  planted-noisy  normal noise, sd 1.0 on 1–7       → lower α than the others
  planted-shift  −0.4 on every scale (model shift) → bias ≈ −0.4; model explains most variance
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from conftest import mirror_dir
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import benchmarks, warehouse

pytestmark = pytest.mark.slow

STUDY = """
[study]
name = "planted"
task = "sentiment"
benchmark = "vader"
sample_size = 120
seed = 11
prompt_levels = ["base", "short_icl", "long_icl"]
scales = ["likert7", "bipolar3", "unit", "pct100"]
baselines = ["vader"]

[study.analysis]
bootstrap = 500
outlier_scale = "bipolar3"

[[judges]]
name = "planted-scale"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", scale_shift = {scale_shift}, shift_on = [-3, 3] }}

[[judges]]
name = "planted-noisy"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", noise = {noise} }}

[[judges]]
name = "planted-shift"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", shift = {shift} }}
"""
PLANTS = {"scale_shift": 0.5, "noise": 1.0, "shift": -0.4}
REMOVED = {"scale_shift": 0.0, "noise": 0.0, "shift": 0.0}


def run_study(tmp_path: Path, plants: dict[str, float]) -> Settings:
    """Write the truth file and the study, run it through the CLI; return its settings."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = tmp_path / "data"
    settings = Settings(data_dir=data, data_mirror=mirror_dir())
    truth_file = tmp_path / "truth.json"
    study_file = tmp_path / "planted.toml"
    study_file.write_text(STUDY.format(truth=truth_file, **REMOVED))
    items, _ = benchmarks.load(load_study(study_file), settings)
    # the truth a planted judge starts from: the human mean as a fraction of the human scale
    # (duplicate texts get their mean, as one request answers them all)
    truth = items.group_by("text").agg(
        ((pl.col("human_mean") - pl.col("human_min")) / (pl.col("human_max") - pl.col("human_min")))
        .mean()
        .alias("fraction")
    )
    truth_file.write_text(json.dumps(dict(truth.iter_rows())))
    study_file.write_text(STUDY.format(truth=truth_file, **plants))
    judgelab(data, "run", str(study_file))
    return settings


def q(settings: Settings, sql: str) -> pl.DataFrame:
    return warehouse.query(settings, sql)


def recovered(settings: Settings) -> dict[str, bool]:
    """For each planted effect, whether the tables show it."""
    m = q(settings, "select * from fct_rating_metrics where study = 'planted'")
    on_scale = m.filter((pl.col("judge") == "planted-scale") & (pl.col("scale") == "bipolar3"))
    outlier = q(
        settings,
        "select \"group\", flagged from tbl_outlier_scale where study = 'planted' "
        "and grouping = 'model'",
    )
    alpha = m.filter(pl.col("kind") == "judge").group_by("judge").agg(pl.col("kripp_alpha").mean())
    alpha = dict(alpha.iter_rows())
    shift_bias = m.filter(pl.col("judge") == "planted-shift")["bias"].mean()
    variance = dict(
        q(
            settings,
            "select component, eta_sq from stg_variance_components where study = 'planted'",
        ).iter_rows()
    )
    return {
        "scale bias inside its CI, away from 0": on_scale.height == 3
        and all(
            lo <= 0.5 <= hi and lo > 0
            for lo, hi in on_scale.select("bias_lo", "bias_hi").iter_rows()
        ),
        "outlier scale flagged for the judge it affects": dict(outlier.iter_rows())[
            "planted-scale"
        ],
        "noisy judge has the lowest alpha": alpha["planted-noisy"]
        < min(alpha["planted-scale"], alpha["planted-shift"]) - 0.1,
        "model shift recovered": -0.5 < shift_bias < -0.3
        and variance["judge"] > max(variance["prompt_level"], variance["scale"]),
    }


def test_planted_effects_are_recovered_and_vanish_without_plants(tmp_path: Path) -> None:
    planted = run_study(tmp_path / "planted", PLANTS)
    assert recovered(planted) == dict.fromkeys(recovered(planted), True)

    # controls that hold whatever is planted: a judge without a scale plant is not flagged,
    # the baseline sits in the same tables, Model (Free) ensembles cut the planted biases
    outlier = dict(
        q(
            planted,
            "select \"group\", flagged from tbl_outlier_scale where study = 'planted' "
            "and grouping = 'model'",
        ).iter_rows()
    )
    assert outlier["planted-shift"] is False and outlier["planted-noisy"] is False
    kinds = q(planted, "select distinct kind from tbl_rating_performance where study = 'planted'")
    assert set(kinds["kind"]) == {"judge", "baseline"}
    free = q(
        planted,
        "select * from stg_ensembles where study = 'planted' and strategy = 'model_free' "
        "and size = 3",
    ).row(0, named=True)
    assert free["n_evaluated"] > 0 and free["bias_reduction_pct"] > 20

    removed = run_study(tmp_path / "removed", REMOVED)
    assert recovered(removed) == dict.fromkeys(recovered(removed), False)
