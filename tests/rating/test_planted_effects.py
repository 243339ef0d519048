"""Simulation: fake judges with planted properties run through the whole rating flow; the tables
must recover every planted effect, and must not report them when the plants are removed (slow).
Fast ones plant judge-vs-judge effects straight into item scores for the design-pair tests:
a difference of exactly 0 is "equivalent" with enough items and "inconclusive" with few, and a
0.5 scale shift stays significant after Holm over every pair of the study while no unplanted
pair does.

Judges (all `fake/planted`, answering the human truth plus planted errors, see providers.py):
  planted-scale  +0.5 on the −3..3 scale only      → bias CI holds 0.5 there; scale flagged
  planted-noisy  normal noise, sd 1.0 on 1–7       → lower α than the others
  planted-shift  −0.4 on every scale (model shift) → bias ≈ −0.4; model explains most variance
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from conftest import mirror_dir
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import benchmarks, warehouse
from tasks.cuts import SIG_P, below_expr
from tasks.rating.agreement import design_pairs

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
ensemble_distinct = "judge"  # the three judges are all `fake/planted`: three models here

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
            "select component, eta_sq from stg_variance_components where study = 'planted' "
            "and method = 'type1_anova'",
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


@pytest.mark.slow
def test_planted_effects_are_recovered_and_vanish_without_plants(tmp_path: Path) -> None:
    planted = run_study(tmp_path / "planted", PLANTS)
    assert recovered(planted) == dict.fromkeys(recovered(planted), True)

    # controls that hold whatever is planted: a judge without a scale plant is not flagged,
    # the baseline sits in the same tables but not in ensembles (judges only, P1 D.3), Model
    # (Free) ensembles cut the planted biases
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
    singles = q(
        planted,
        "select pool, n_possible from stg_ensembles where study = 'planted' "
        "and strategy = 'model_free' and size = 1",
    )
    assert singles.rows() == [("judges", 3 * 3 * 4)]  # 3 judges × 3 prompts × 4 scales, no VADER

    removed = run_study(tmp_path / "removed", REMOVED)
    assert recovered(removed) == dict.fromkeys(recovered(removed), False)


# --- fast: planted design pairs, straight into design_pairs


def _item_scores(designs: dict[tuple[str, str, str], np.ndarray]) -> pl.DataFrame:
    """{(judge, prompt level, scale): scores per item} → an item_scores frame of study "p"."""
    rows = [
        ("p", "judge", j, f"fake/{j}", level, scale, f"i{i:03d}", 1, float(y), None, 4.0)
        for (j, level, scale), ys in designs.items()
        for i, y in enumerate(ys)
    ]
    columns = ["study", "kind", "judge", "model", "prompt_level", "scale", "item_id"]
    columns += ["n_ok", "score_1to7", "score_sd", "human_1to7"]
    return pl.DataFrame(rows, schema=columns, orient="row").with_columns(
        pl.col("score_sd").cast(pl.Float64)
    )


@pytest.mark.parametrize(("n_items", "verdict"), [(300, "yes"), (6, "inconclusive")])
def test_a_planted_zero_difference_is_equivalent_only_with_enough_items(
    n_items: int, verdict: str
) -> None:
    """Two judges that differ by exactly 0 (the same truth, each with its own noise, sd 0.3)
    beside one planted 0.5 higher: margin 0.2."""
    rng = np.random.default_rng(n_items)
    truth = rng.uniform(2, 6, n_items)
    designs = {
        (judge, "base", "likert7"): truth + shift + rng.normal(0, 0.3, n_items)
        for judge, shift in (("same-a", 0.0), ("same-b", 0.0), ("shifted", 0.5))
    }
    pairs = design_pairs(_item_scores(designs), margin=0.2)
    got = {(r["judge_a"], r["judge_b"]): r["equivalent"] for r in pairs.iter_rows(named=True)}
    assert got[("same-a", "same-b")] == verdict
    if n_items >= 100:  # with enough items the planted shift is shown to exceed the margin
        assert got[("same-a", "shifted")] == got[("same-b", "shifted")] == "no"
    else:
        assert "yes" not in got.values()


def test_a_planted_scale_shift_survives_holm(settings: Settings) -> None:
    """3 judges × 3 prompt levels × 4 scales (36 designs, 630 pairs) on 120 items, scores
    rounded to whole points; one judge is 0.5 higher on bipolar3 only. Each of its 9 pairs
    that change only that scale, and every other pair with one side planted, stays significant
    after Holm over all 630; no pair without the plant does, although some do at p < 0.05
    unadjusted."""
    rng = np.random.default_rng(5)
    truth = rng.uniform(1.5, 6.5, 120)
    designs = {}
    for judge in ("plain-a", "plain-b", "planted-scale"):
        for level in ("base", "short_icl", "long_icl"):
            for scale in ("likert7", "bipolar3", "unit", "pct100"):
                shift = 0.5 if (judge, scale) == ("planted-scale", "bipolar3") else 0.0
                noisy = truth + shift + rng.normal(0, 0.5, 120)
                designs[(judge, level, scale)] = np.clip(np.round(noisy), 1, 7)
    pairs = design_pairs(_item_scores(designs)).with_columns(
        below_expr(pl.col("p_holm"), SIG_P).alias("holm"),
        (
            ((pl.col("judge_a") == "planted-scale") & (pl.col("scale_a") == "bipolar3"))
            != ((pl.col("judge_b") == "planted-scale") & (pl.col("scale_b") == "bipolar3"))
        ).alias("planted"),  # one side carries the shift, the other not
    )
    assert pairs.height == 36 * 35 // 2
    scale_only = pairs.filter(pl.col("planted") & (pl.col("differs") == "scale"))
    assert scale_only.height == 9 and scale_only["holm"].all()
    assert (scale_only["mean_diff"].abs() > 0.3).all()
    assert pairs.filter("planted").height == 3 * 33 and pairs.filter("planted")["holm"].all()
    unplanted = pairs.filter(~pl.col("planted"))
    assert not unplanted["holm"].any()
    assert unplanted["sig"].sum() > 0  # unadjusted, noise alone passes p < 0.05 somewhere

    # the Table 11 view: of the one-choice pairs, the planted ones change the scale (9 of 54)
    # or, on bipolar3, the model (6 of 36); changing the prompt level keeps the plant on both
    warehouse.write_table(settings, pairs.drop("holm", "planted"), "design_pairs", "p")
    con = duckdb.connect()
    warehouse.ensure_tables(settings)  # the view counts unscored designs in stg_rating_metrics
    for name in (
        "staging/stg_rating_metrics",
        "staging/stg_design_pairs",
        "reports/tbl_design_impact_single",
    ):
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    holm = dict(
        con.sql("select choice, sig_holm_pct from tbl_design_impact_single").pl().iter_rows()
    )
    assert holm["scale"] == pytest.approx(round(100 * 9 / 54, 1))
    assert holm["model"] == pytest.approx(round(100 * 6 / 36, 1))
    assert holm["prompt_level"] == 0.0
