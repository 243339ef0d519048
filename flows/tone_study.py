"""Tone stress-test flow: texts → rewrites (LLM + rules) → checks → evaluations → analysis."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prefect import flow
from prefect.runtime import flow_run

from flows.common import finish, judge_all
from flows.names import run_name
from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import stages
from tasks.judging.failures import JudgeFailures
from tasks.tone import stages as tone


@flow(name="tone-study", flow_run_name=run_name)
def tone_study(study_file: str, sample_size: int | None = None, report: bool = True) -> dict:
    """Run one tone stress test end to end; returns call counts before and calls made now.
    `report`: end with the report stage (a suite of several studies writes one for all)."""
    settings = Settings()
    study = load_study(Path(study_file), sample_size=sample_size)
    run_id = str(flow_run.get_id() or "local")
    started_at = datetime.now(UTC)
    tone.load_texts(study, settings)
    rewrites, notes = tone.plan_rewrites(study, settings)
    made, workers, failures = judge_all(study, settings, rewrites, run_id, tone.rewrite_part(study))
    checked = tone.versions_and_checks(study, settings)
    evaluations, eval_notes = tone.plan_evaluations(study, settings)
    made_evals, eval_workers, eval_failures = judge_all(
        study, settings, evaluations, run_id, tone.eval_part(study)
    )
    made |= made_evals
    tone.tone_analysis(study, settings)
    stages.cost_stage(study, settings, [tone.rewrite_part(study), tone.eval_part(study)])
    before = rewrites | evaluations
    workers |= eval_workers
    try:
        result = finish(
            *(study, settings, study_file if report else None, run_id, started_at),
            *(before, made, workers),
            failures + eval_failures,
            notes + eval_notes,
        )
    except JudgeFailures as exc:
        exc.results[0] |= {"checked": checked}
        raise
    return result | {"checked": checked}
