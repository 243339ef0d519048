"""An accuracy study's stages after judging, as Prefect tasks: verdicts, consensus, accuracy and
leniency per design, switch rates and tests of each design choice's impact."""

from __future__ import annotations

from prefect import task

from judgelab.settings import Settings
from judgelab.study import Study
from schemas.plan import DESIGN_COLUMNS
from tasks import warehouse
from tasks.accuracy import calibration, consensus, verdict_impact
from tasks.accuracy import metrics as accuracy
from tasks.accuracy.verdicts import verdict_rows
from tasks.calibration import calibration_tables
from tasks.judging import store
from tasks.judging.scales import load_scales


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
    }
    for name, frame in tables.items():
        warehouse.write_table(settings, frame, name, study.name)
    return agreed.height


@task(name="accuracy-calibration")
def calibration_stage(study: Study, settings: Settings) -> int:
    """Each design's P(TRUE) against the truth its accuracy is graded by → `calibration` and
    `calibration_bins` (tasks/calibration.py); calls without a distribution are counted. Returns
    the calls scored (0 while the judges store no distributions)."""
    a = study.analysis
    plan = warehouse.read_table(settings, "plan", study.name, DESIGN_COLUMNS)
    judgments = store.latest_rows(settings.store_dir, ["key", "status", "probs"])
    truth = accuracy.truth_labels(warehouse.read_table(settings, "consensus", study.name), a.truth)
    categories = load_scales()[study.scales[0]].categories
    calls = calibration.calibration_calls(plan, judgments, truth, categories)
    table, bins = calibration_tables(
        calls, "accuracy", calibration.EVENT, n_boot=a.bootstrap, seed=a.seed
    )
    warehouse.write_table(settings, table, "calibration", study.name)
    warehouse.write_table(settings, bins, "calibration_bins", study.name)
    return int(table["n_scored"].sum())


AFTER_JUDGING = (verdict_stage, accuracy_stage, calibration_stage)
