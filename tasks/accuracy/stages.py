"""An accuracy study's stages after judging, as Prefect tasks: verdicts, consensus, accuracy and
leniency per design, switch rates and tests of each design choice's impact."""

from __future__ import annotations

import polars as pl
from prefect import task

from judgelab.settings import Settings
from judgelab.study import Study
from schemas.plan import DESIGN_COLUMNS
from tasks import corrected, stages, warehouse
from tasks.accuracy import calibration, consensus, verdict_impact
from tasks.accuracy import metrics as accuracy
from tasks.accuracy.verdicts import verdict_rows
from tasks.benchmarks.labelfile import study_labels
from tasks.judging import store


@task(name="verdicts")
def verdict_stage(study: Study, settings: Settings) -> int:
    """Stored answers of an accuracy study → `verdicts` (TRUE 1 / FALSE 0, with the reference)."""
    plan = warehouse.read_table(settings, "plan", study.name, DESIGN_COLUMNS)
    judgments = store.latest_rows(settings.store_dir, ["key", "status", "score"])
    items = warehouse.read_table(settings, "qa_items", study.items_part)
    table = verdict_rows(plan, judgments, items)
    warehouse.write_table(settings, table, "verdicts", study.name)
    return table.height


@task(name="accuracy-analysis")
def accuracy_stage(study: Study, settings: Settings) -> int:
    """Consensus subsets, accuracy and leniency per design, switch rates, tests of impact."""
    a = study.analysis
    verdicts = warehouse.read_table(settings, "verdicts", study.name)
    agreed = consensus.consensus(
        verdicts, near=a.near_agreement, min_designs=a.min_designs, votes=a.consensus_votes
    )
    metrics = accuracy.accuracy_metrics(verdicts, agreed, truth=a.truth)
    tables = {
        "consensus": agreed,
        "accuracy_metrics": metrics,
        "switch_rates": accuracy.switch_rates(verdicts, agreed, truth=a.truth),
        "verdict_tests": verdict_impact.verdict_tests(verdicts, agreed, truth=a.truth),
        "verdict_pairs": verdict_impact.verdict_pairs(
            verdicts, agreed, truth=a.truth, margin=a.margin(percent=True)
        ),
        "verdict_levels": verdict_impact.verdict_levels(metrics),
        "corrected": _corrected(study, verdicts),
    }
    for name, frame in tables.items():
        warehouse.write_table(settings, frame, name, study.name)
    return agreed.height


@task(name="accuracy-calibration")
def calibration_stage(study: Study, settings: Settings) -> int:
    """Each design's P(TRUE) against the truth its accuracy is graded by
    (stages.write_calibration)."""
    consensus_table = warehouse.read_table(settings, "consensus", study.name)
    truth = accuracy.truth_labels(consensus_table, study.analysis.truth)
    return stages.write_calibration(
        study, settings, "accuracy", truth, calibration.calibration_calls, calibration.EVENT
    )


def _corrected(study: Study, verdicts: pl.DataFrame) -> pl.DataFrame:
    """Judge-corrected TRUE-rates (tbl_corrected): each design's majority verdict per item
    against the labelled subset; under label_share the subset is drawn from the items' own
    reference labels (never the judges' consensus). No rows without a labelled subset."""
    a = study.analysis
    values = (
        consensus.design_verdicts(verdicts)
        .filter(pl.col("verdict").is_not_null())
        .select(
            "study",
            pl.lit("judge").alias("kind"),
            "judge",
            "model",
            "prompt_level",
            pl.lit("verdict").alias("scale"),
            "reasoning_effort",
            "item_id",
            pl.col("verdict").cast(pl.Float64).alias("value"),
        )
    )
    items = verdicts.select("item_id", pl.col("reference").cast(pl.Float64).alias("human"))
    items = items.unique("item_id", keep="first")
    key = items.filter(pl.col("human").is_not_null())
    given = study_labels(a.human_labels, a.label_share, a.seed, key, items["item_id"], "verdict")
    if given is None:
        values, key = values.clear(), key.clear()
        return corrected.corrected(values, key.rename({"human": "label"}), "share", True)
    labels, source, answer_key = given
    return corrected.corrected(
        values, labels, source, binary=True, n_boot=a.bootstrap, seed=a.seed, answer_key=answer_key
    )


AFTER_JUDGING = (verdict_stage, accuracy_stage, calibration_stage)
