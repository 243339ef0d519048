"""The tone study type: the same facts in two wordings, each scored apart (tasks/study_types.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tasks.study_types import Round, StudyType, in_order

if TYPE_CHECKING:
    from judgelab.settings import Settings
    from judgelab.study import Study

STUDY_TYPE = StudyType(
    name="tone",
    flow_name="tone-study",
    rounds=(
        Round(
            plan=lambda study, settings, run_id: plan_rewrites(study, settings),
            part=lambda study: part(study, "rewrite"),
            then=lambda study, settings: check_rewrites(study, settings),
        ),
        Round(
            plan=lambda study, settings, run_id: plan_evaluations(study, settings),
            part=lambda study: part(study, "eval"),
        ),
    ),
    after_judging=in_order("tasks.tone.stages"),
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
    snapshot=(
        ("judge", "prompt_level", "rewriter", "axis"),
        ("n_texts", "gap", "noise_yardstick", "win_ratio"),
    ),
    report="tasks.tone.report",
    headline="tasks.tone.report:headlines",
    data_table="texts",
    checks="tasks.tone.study_type:check",
    stages="tasks.tone.study_type",
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
    """`judgelab plan`: the rewrite calls, and the evaluation calls of every version that
    exists before them — originals and rule-based rewrites (made by rules, checked here as the
    run checks them), LLM rewrites already stored; an LLM rewrite not made yet is counted in
    a line, its evaluations planned once it passes."""
    import polars as pl

    from tasks import stages as shared
    from tasks import warehouse
    from tasks.judging import store
    from tasks.judging.cache import call_counts
    from tasks.tone import stages as tone
    from tasks.tone.lexical import REWRITER
    from tasks.tone.versions import NONE, ORIGINAL

    tone.load_texts.fn(study, settings)
    counts, notes = tone.plan_rewrites.fn(study, settings)
    rewrites = warehouse.read_table(settings, "plan", tone.rewrite_part(study))
    evals, versions, scored = tone.evaluations_now(study, settings)
    evaluations = call_counts(evals, store.done_keys(settings.store_dir))
    counts |= evaluations
    notes += [n for n in shared.endpoint_notes(study, settings, evals) if n not in notes]
    rules = pl.col("rewriter") == REWRITER
    llm = ~rules & ~pl.col("model").is_in([NONE])  # as_written versions are the originals
    stored = scored.filter(llm).height
    waiting = versions.filter(pl.col("status") == "missing").height
    said = [
        f"Tone test: {rewrites.height} LLM rewrite calls; "
        f"{sum(c['planned'] for c in evaluations.values())} evaluation calls of the versions "
        f"that pass their checks (checked now, as the run checks them): "
        f"{scored.filter(pl.col('pole') == ORIGINAL).height} originals, "
        f"{scored.filter(rules).height} of {versions.filter(rules).height} rule-based rewrites"
        + (f", {stored} stored LLM rewrites" if stored else "")
        + "."
    ]
    if waiting:
        per_version = len(study.judges) * len(study.prompt_levels) * len(study.scales)
        said.append(
            f"{waiting} LLM rewrites not made yet: their evaluation calls (up to {waiting} × "
            f"{per_version * study.repeats} = {waiting * per_version * study.repeats}) are "
            "planned once they pass their checks."
        )
    return counts, notes, pl.concat([rewrites, evals]), said


def part(study: Study, which: str) -> str:
    """The plan part of the rewrites ("rewrite") or of the evaluations ("eval")."""
    from tasks.tone import stages

    return stages.rewrite_part(study) if which == "rewrite" else stages.eval_part(study)


def plan_rewrites(study: Study, settings: Settings) -> tuple[dict, list[str]]:
    """Load the texts and plan their rewrites (round 1)."""
    from tasks.tone import stages

    stages.load_texts(study, settings)
    return stages.plan_rewrites(study, settings)


def check_rewrites(study: Study, settings: Settings) -> dict:
    """Each text's versions and the checks of its rewrites (a re-parsed rewrite is checked
    again); the counts go into the run's summary as `checked`."""
    from tasks.tone import stages

    return {"checked": stages.versions_and_checks(study, settings)}


def plan_evaluations(study: Study, settings: Settings) -> tuple[dict, list[str]]:
    """The evaluation calls of the versions that passed their checks (round 2)."""
    from tasks.tone import stages

    return stages.plan_evaluations(study, settings)
