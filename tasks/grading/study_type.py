"""The grading study type: reference-guided grading, a candidate answer graded 1–5 against a
reference answer, and the grades compared with the candidates' labels (tasks/study_types.py)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tasks.rounds import load_and_plan
from tasks.study_types import Round, StudyType, in_order

if TYPE_CHECKING:
    import polars as pl

    from judgelab.settings import Settings
    from judgelab.study import Study

log = logging.getLogger(__name__)

STUDY_TYPE = StudyType(
    name="grading",
    flow_name="grading-study",
    rounds=(Round(plan=load_and_plan),),
    after_judging=in_order("tasks.grading.stages"),
    main_view="tbl_grading_by_design",
    artifact_views=("tbl_grading_by_design",),
    report_views=("tbl_grading_by_design",),
    metric_source="grading_metrics",
    snapshot=(
        ("judge", "prompt_level", "scale"),
        ("n_items", "bias", "mae", "kripp_alpha", "parse_failure_rate"),
    ),
    report="tasks.grading.report",
    data_table="qa_data",
    checks="tasks.grading.study_type:check",
    stages="tasks.grading.study_type",
    readouts=True,
    render_system="tasks.grading.prompts:render_system",
    headline="tasks.grading.report:headlines",
    power_note=(
        "the power planner covers rating and accuracy studies; a grading study's CIs come from "
        "its bootstrap over items"
    ),
)


def check(study: Study) -> None:
    """A grading study grades TruthfulQA candidates on the 1–5 grade; a judge's effort is part of
    the judge (as in a rating study, whose metrics it reuses); no classifier baselines."""
    if study.benchmark != "truthfulqa":
        raise ValueError(
            f'a grading study grades TruthfulQA candidates (benchmark = "truthfulqa"), not '
            f"{study.benchmark!r}: a user's QA file has no reference answers yet"
        )
    if study.scales != ["grade5"]:
        raise ValueError('a grading study has scales = ["grade5"]')
    if study.reasoning_efforts is not None:
        raise ValueError("reasoning_efforts: in a grading study set reasoning_effort on the judge")
    if study.baselines:
        raise ValueError("baselines are rating classifiers; a grading study has none")


def load_items(study: Study, settings: Settings) -> int:
    """The sampled candidates with their reference answers (`grading_items`), drawn while
    loading, as an accuracy study draws them."""
    from tasks import warehouse
    from tasks.benchmarks import builtin, truthfulqa
    from tasks.grading.items import grading_items, reference_pools
    from tasks.sources import fetch

    candidates = builtin(study, settings)
    (path,) = fetch([truthfulqa.BENCHMARK], settings)
    items, dropped = grading_items(candidates, reference_pools(truthfulqa.parse(path).questions))
    if dropped:
        log.warning(
            "%s: %d candidate(s) are their question's only correct answer: no "
            "reference to grade against, dropped",
            study.name,
            dropped,
        )
    warehouse.write_table(settings, items, "grading_items", study.items_part)
    return items.height


def plan_items(study: Study, settings: Settings) -> pl.DataFrame:
    """The items the plan grades: all of `grading_items` (sampled while loading), text rendered."""
    from tasks import warehouse

    return warehouse.read_table(settings, "grading_items", study.items_part)


def preview(study: Study, settings: Settings) -> tuple:
    """`judgelab plan`: load and plan (no calls); the split of right and wrong candidates first."""
    from tasks import planning, warehouse

    planning.load_benchmark(study, settings)
    items = warehouse.read_table(settings, "grading_items", study.items_part)
    right = int(items["correct"].sum())
    said = f"{items.height} candidates graded against a reference: {right} right, " + (
        f"{items.height - right} wrong (TruthfulQA's labels)"
    )
    counts, notes = planning.make_plan(study, settings)
    return counts, notes, warehouse.read_table(settings, "plan", study.name), [said]
