"""The pairwise study's stages as Prefect tasks: read tables, call a pure transform, write."""

from __future__ import annotations

import polars as pl
from prefect import task

from judgelab.settings import Settings
from judgelab.study import Study
from schemas.pairs import Pairs
from schemas.plan import DESIGN_COLUMNS
from schemas.validate import validate
from tasks import benchmarks, stages, warehouse
from tasks.benchmarks import hhrlhf, pairfile
from tasks.imports import stage as imports
from tasks.judging import store
from tasks.judging.cache import call_counts
from tasks.judging.scales import load_scales
from tasks.pairwise import analysis, calibration, verdict_tests
from tasks.pairwise.order_accuracy import order_accuracy_table
from tasks.pairwise.plan import build_plan
from tasks.plan import sample_items


def pairs_table(study: Study, settings: Settings) -> pl.DataFrame:
    """The study's sampled pairs: a user's file, or a built-in set (HH-RLHF, LLMBar) fetched
    (checksum-verified) from data/raw, the mirror or its origin; seeded, stratified by domain."""
    if study.pairs is not None:
        frame = pairfile.load(study.pairs)
    else:
        frame = benchmarks.builtin(study, settings)
    frame = sample_items(frame, study.sample_size, study.seed, id_column="pair_id")
    return validate(frame.select(pl.lit(study.name).alias("study"), *hhrlhf.COLUMNS), Pairs)


@task(name="load-pairs")
def load_pairs(study: Study, settings: Settings) -> int:
    """The sampled pairs → `pairs` (one part per study)."""
    table = pairs_table(study, settings)
    warehouse.write_table(settings, table, "pairs", study.items_part)
    return table.height


@task(name="plan")
def make_plan(study: Study, settings: Settings) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Every pair in both orders, and the imported judgments (tasks/imports/) → `plan`;
    planned / stored / missing calls per judge and the endpoint notes, as the other study
    types' plan stage."""
    pairs = warehouse.read_table(settings, "pairs", study.items_part)
    plan = pl.concat([build_plan(study, pairs, load_scales()), imports.plan_rows(study, settings)])
    warehouse.write_table(settings, plan, "plan", study.name)
    store.ensure_store(settings.store_dir)
    notes = stages.endpoint_notes(study, settings, plan)
    return call_counts(plan, store.done_keys(settings.store_dir)), notes


@task(name="pairwise-analysis")
def analysis_stage(study: Study, settings: Settings) -> int:
    """Stored answers → `pairwise_verdicts`, then `pairwise_position`, `pairwise_agreement`,
    `pairwise_order_accuracy`, `verdict_tests`, `verdict_pairs`, `variance_components` (type I and
    the G-study's) and `d_study`."""
    a = study.analysis
    plan = warehouse.read_table(settings, "plan", study.name, DESIGN_COLUMNS)
    judgments = store.latest_rows(settings.store_dir, ["key", "status", "score"])
    pairs = warehouse.read_table(settings, "pairs", study.items_part)
    verdicts = analysis.verdict_rows(plan, judgments, pairs)
    tables = {
        "pairwise_verdicts": verdicts,
        "pairwise_position": analysis.position_table(verdicts, n_boot=a.bootstrap, seed=a.seed),
        "pairwise_agreement": analysis.agreement_table(verdicts),
        "pairwise_order_accuracy": order_accuracy_table(verdicts),
        # the accuracy study's paired tests, on right-or-wrong against the human choice
        "verdict_tests": verdict_tests.verdict_tests(verdicts),
        "verdict_pairs": verdict_tests.verdict_pairs(verdicts, margin=a.margin(percent=True)),
        **verdict_tests.variance_tables(verdicts),  # variance_components and d_study
    }
    for name, frame in tables.items():
        warehouse.write_table(settings, frame, name, study.name)
    return verdicts.height


@task(name="pairwise-calibration")
def calibration_stage(study: Study, settings: Settings) -> int:
    """Each design's P(A) against the human preference (stages.write_calibration)."""
    pairs = warehouse.read_table(settings, "pairs", study.items_part)
    return stages.write_calibration(
        study, settings, "pairwise", pairs, calibration.calibration_calls, calibration.EVENT
    )


# position, agreement, order accuracy, tests, variance, D-study; then calibration
AFTER_JUDGING = (analysis_stage, calibration_stage)
