"""The pairwise study type: two answers to one context, judged in both orders
(tasks/study_types.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tasks.study_types import Round, StudyType, in_order

if TYPE_CHECKING:
    from judgelab.settings import Settings
    from judgelab.study import Study

STUDY_TYPE = StudyType(
    name="pairwise",
    flow_name="pairwise-study",
    rounds=(Round(plan=lambda study, settings, run_id: prepare(study, settings, run_id)),),
    after_judging=in_order("tasks.pairwise.stages"),
    main_view="tbl_pairwise_position",
    artifact_views=(
        "tbl_pairwise_position",
        "tbl_pairwise_agreement",
        "tbl_pairwise_order_accuracy",
    ),
    report_views=(
        "tbl_pairwise_position",
        "tbl_pairwise_agreement",
        "tbl_pairwise_order_accuracy",
        "tbl_calibration",
        "tbl_calibration_bins",
    ),
    metric_source="pairwise_position",
    snapshot=(
        ("judge", "prompt_level", "reasoning_effort"),
        ("n_pairs", "consistency", "position_bias", "tie_rate"),
    ),
    report="tasks.pairwise.report",
    data_table="pairs",
    checks="tasks.pairwise.study_type:check",
    stages="tasks.pairwise.study_type",
    imports="tasks.pairwise.imports",
    headline="tasks.pairwise.report:headlines",
    power_note=(
        "the power planner covers rating and accuracy studies; a pairwise study's power to find "
        "a position bias grows with its pairs (the sign test counts pairs, not calls)"
    ),
)
BENCHMARKS = ("hhrlhf", "llmbar", "file")


def check(study: Study) -> None:
    """A pairwise study asks for a winner on pairs (HH-RLHF, LLMBar or a user's file); no baselines
    (a rewriter and a canary are refused for every type without one)."""
    if study.benchmark not in BENCHMARKS:
        raise ValueError(
            f"a pairwise study cannot use benchmark {study.benchmark!r}; it takes "
            f"{' or '.join(repr(b) for b in BENCHMARKS)}"
        )
    if study.scales != ["winner"]:
        raise ValueError('a pairwise study has scales = ["winner"]')
    if study.baselines:
        raise ValueError("baselines are rating classifiers; a pairwise study has none")


def preview(study: Study, settings: Settings) -> tuple:
    """`judgelab plan`: load and plan (no calls); how many pairs carry a human label first."""
    import polars as pl

    from tasks import warehouse
    from tasks.imports.rows import PROMPT_VERSION as IMPORTED
    from tasks.pairwise import stages

    stages.load_pairs.fn(study, settings)
    pairs = warehouse.read_table(settings, "pairs", study.items_part)
    labelled = pairs["preferred"].is_not_null().sum()
    ties = (pairs["preferred"] == "tie").sum()
    of_them = f" ({ties} of them a tie)" if ties else ""
    said = f"{pairs.height} pairs, {labelled} with a human label{of_them}"
    said += "; each judged in both orders"
    counts, notes = stages.make_plan.fn(study, settings)
    plan = warehouse.read_table(settings, "plan", study.name)
    imported = plan.filter(pl.col("prompt_version") == IMPORTED)  # never called: not costed
    if imported.height:
        judges = imported["judge"].unique(maintain_order=True).to_list()
        said += f"; {imported.height} imported judgments ({', '.join(judges)}): no calls"
        counts = {j: c for j, c in counts.items() if j not in judges}
    return counts, notes, plan.filter(pl.col("prompt_version") != IMPORTED), [said]


def prepare(study: Study, settings: Settings, run_id: str) -> tuple[dict, list[str]]:
    """Load the pairs, store the imported judgments, plan both orders of every pair."""
    from tasks.imports.stage import import_stage
    from tasks.pairwise import stages

    stages.load_pairs(study, settings)
    import_stage(study, settings, run_id)
    return stages.make_plan(study, settings)
