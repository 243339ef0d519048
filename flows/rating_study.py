"""Rating-study flows: load → plan → judge (sharded) → score → analyze → agreement → views;
and re-parsing stored answers without calls."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prefect import flow
from prefect.runtime import flow_run
from prefect.states import State

from flows.common import finish, judge_all, watch
from flows.names import run_name
from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import stages


@flow(name="rating-study", flow_run_name=run_name)
def rating_study(
    study_file: str, sample_size: int | None = None, report: bool = True
) -> dict | State:
    """Run one rating study end to end; returns call counts before and calls made now.
    `report`: end with the report stage (a suite of several studies writes one for all)."""
    settings = Settings()
    study = load_study(Path(study_file), sample_size=sample_size)
    run_id = str(flow_run.get_id() or "local")
    started_at = datetime.now(UTC)
    stages.load_benchmark(study, settings)
    before, notes = stages.make_plan(study, settings)
    made, workers, failures = judge_all(study, settings, before, run_id)
    canary_run, canary_failures = watch(study, settings, run_id)
    stages.rescale_stage(study, settings)
    stages.analyze_stage(study, settings)
    stages.agreement_stage(study, settings)
    stages.cost_stage(study, settings)
    report_of = study_file if report else None
    failures += canary_failures
    return finish(
        *(study, settings, report_of, run_id, started_at, before, made, workers, failures),
        notes,
        canary_run,
    )


@flow(name="reparse-study", flow_run_name=run_name)
def reparse_study(study_file: str) -> dict:
    """Re-parse stored answers and rebuild every table after the judge stage; no model calls.
    Recorded as a run with 0 calls, so `tbl_changes` shows what the parser fix moved."""
    settings = Settings()
    study = load_study(Path(study_file))
    run_id = str(flow_run.get_id() or "local")
    started_at = datetime.now(UTC)
    if study.type == "tone":
        from tasks.tone import stages as tone

        parts = [tone.rewrite_part(study), tone.eval_part(study)]
        result = stages.reparse_stage(study, settings, parts)
        tone.versions_and_checks(study, settings)  # a re-parsed rewrite is checked again
        tone.tone_analysis(study, settings)
        stages.cost_stage(study, settings, parts)
    else:
        result = stages.reparse_stage(study, settings)
        if study.type == "accuracy":
            stages.verdict_stage(study, settings)
            stages.accuracy_stage(study, settings)
        else:
            stages.rescale_stage(study, settings)
            stages.analyze_stage(study, settings)
            stages.agreement_stage(study, settings)
        stages.cost_stage(study, settings)
    finish(study, settings, study_file, run_id, started_at, {}, {}, set())
    return result
