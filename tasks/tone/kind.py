"""The tone study type: the same facts in two wordings, each scored apart (tasks/kinds.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tasks.kinds import Kind

if TYPE_CHECKING:
    from judgelab.settings import Settings
    from judgelab.study import Study

KIND = Kind(
    name="tone",
    flow="flows.tone_study:tone_study",
    reparse="tasks.tone.kind:reparse",
    main_view="tbl_rewrite_pass_rates",
    artifact_views=("tbl_rewrite_pass_rates", "tbl_tone_gaps", "tbl_tone_flips"),
    report_views=(
        "tbl_rewrite_pass_rates",
        "tbl_tone_gaps",
        "tbl_tone_by_variant",
        "tbl_tone_criteria",
        "tbl_tone_flips",
        "tbl_tone_human",
        "tbl_tone_per_text",
    ),
    metric_source="tone_gaps",
    report="tasks.tone.report",
    data_table="texts",
    checks="tasks.tone.kind:check",
    stages="tasks.tone.kind",
    rewrites=True,
    power_note=(
        "the power planner covers rating and accuracy studies; a tone study's question (does a "
        "rewrite move the score beyond run-to-run noise?) depends on rewrites that pass the "
        "checks, which no pilot can size in advance"
    ),
)


def check(study: Study) -> None:
    """A tone study rewrites texts (one LLM rewriter beside the rule-based one) and scores
    each version; its repeats default to 3, to tell run-to-run noise from the effect."""
    if study.benchmark not in ("ukpconvarg1", "file"):
        raise ValueError(f"a tone study cannot use benchmark {study.benchmark!r}")
    if study.rewriter and study.rewriter.name in {j.name for j in study.judges}:
        raise ValueError("the rewriter needs a name of its own (not an evaluator's)")
    if "repeats" not in study.model_fields_set:
        study.repeats = 3
    if study.baselines or study.reasoning_efforts is not None:
        raise ValueError("a tone study has neither baselines nor reasoning_efforts")


def preview(study: Study, settings: Settings) -> tuple:
    """`judgelab plan`: the rewrite calls only (evaluations are planned once rewrites pass)."""
    from tasks import warehouse
    from tasks.tone import stages as tone

    tone.load_texts.fn(study, settings)
    counts, notes = tone.plan_rewrites.fn(study, settings)
    plan = warehouse.read_table(settings, "plan", tone.rewrite_part(study))
    said = "Tone test: rewrite calls only; evaluation calls are planned once rewrites pass."
    return counts, notes, plan, [said]


def reparse(study: Study, settings: Settings) -> dict:
    """Re-parse both parts' stored answers; a re-parsed rewrite is checked again."""
    from tasks import stages
    from tasks.tone import stages as tone

    parts = [tone.rewrite_part(study), tone.eval_part(study)]
    result = stages.reparse_stage(study, settings, parts)
    tone.versions_and_checks(study, settings)
    tone.tone_analysis(study, settings)
    stages.cost_stage(study, settings, parts)
    return result
