"""The accuracy study type: TRUE/FALSE verdicts on question–answer pairs (tasks/study_types.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tasks.rounds import load_and_plan
from tasks.study_types import Round, StudyType, in_order

if TYPE_CHECKING:
    import polars as pl

    from judgelab.settings import Settings
    from judgelab.study import Study

STUDY_TYPE = StudyType(
    name="accuracy",
    flow_name="accuracy-study",
    rounds=(Round(plan=load_and_plan),),
    after_judging=in_order("tasks.accuracy.stages"),
    main_view="tbl_accuracy_by_design",
    artifact_views=("tbl_accuracy_by_design", "tbl_switch_rates"),
    report_views=(
        "tbl_accuracy_by_design",
        "tbl_accuracy_by_model",
        "tbl_accuracy_by_prompt",
        "tbl_accuracy_by_effort",
        "tbl_corrected",
        "tbl_switch_rates",
        "tbl_consensus_subsets",
        "tbl_consensus_disagreements",
        "tbl_verdict_tests",
        "tbl_verdict_impact",
        "tbl_verdict_impact_levels",
        "tbl_verdict_impact_pairs",
        # pairwise studies fill these too (P(A) against the human preference)
        "tbl_calibration",
        "tbl_calibration_bins",
    ),
    metric_source="accuracy_metrics",
    snapshot=(
        ("judge", "prompt_level", "reasoning_effort", "subset"),
        ("n_scored", "accuracy", "leniency", "unparseable_rate"),
    ),
    report="tasks.accuracy.report",
    headline="tasks.accuracy.report:headlines",
    data_table="qa_data",
    checks="tasks.accuracy.study_type:check",
    stages="tasks.accuracy.study_type",
    canary="tasks.accuracy.study_type:canary_values",
    drift_statistic="flip_rate",
    power="tasks.accuracy.power:ACCURACY",
    percent=True,
)


def check(study: Study) -> None:
    """An accuracy study labels question–answer pairs TRUE/FALSE; no classifier baselines."""
    if study.benchmark not in ("truthfulqa", "file"):
        raise ValueError(f"an accuracy study cannot use benchmark {study.benchmark!r}")
    if study.scales != ["verdict"]:
        raise ValueError('an accuracy study has scales = ["verdict"]')
    if study.baselines:
        raise ValueError("baselines are rating classifiers; an accuracy study has none")


def load_items(study: Study, settings: Settings) -> int:
    """The sampled question–answer pairs (`qa_items`), drawn while loading."""
    from tasks import benchmarks, warehouse

    qa = benchmarks.load_qa(study, settings)
    warehouse.write_table(settings, qa, "qa_items", study.items_part)
    return qa.height


def plan_items(study: Study, settings: Settings) -> pl.DataFrame:
    """The pairs the plan judges: all of `qa_items` (sampled while loading), text rendered."""
    from tasks import warehouse

    return warehouse.read_table(settings, "qa_items", study.items_part)


def preview(study: Study, settings: Settings) -> tuple:
    """`judgelab plan`: load and plan (no calls); the split of right and wrong candidates and
    what the labels mean come first, so an inverted label shows before anything is spent."""
    from tasks import planning, warehouse
    from tasks.benchmarks.qafile import meaning, split

    planning.load_benchmark(study, settings)
    qa = warehouse.read_table(settings, "qa_items", study.items_part)
    said = f"{split(qa)} ({meaning(study.qa_data)})"
    counts, notes = planning.make_plan(study, settings)
    return counts, notes, warehouse.read_table(settings, "plan", study.name), [said]


def canary_values(study: Study, settings: Settings, answers: pl.DataFrame) -> pl.DataFrame:
    """Canary answers with `value`, the verdict 1/0, and the item's label (flip rates and
    the accuracy change, tasks/drift.py)."""
    import polars as pl

    from tasks import warehouse

    labels = warehouse.read_table(settings, "qa_items", study.items_part)
    values = answers.join(
        labels.select("item_id", pl.col("reference").cast(pl.Boolean)), on="item_id", how="left"
    ).with_columns(pl.col("score").alias("value"))
    return values
