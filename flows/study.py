"""The study flow: one for every study type, run from its record (tasks/study_types.py). Each judge
round is planned, its missing calls judged and its `then` run; then the canary (types that
have one), the stages after judging, the costs and the ending. Named per type
(`rating-study`, …) with `with_options`, so runs and deployments keep their names."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prefect import Flow, flow
from prefect.runtime import flow_run
from prefect.states import State

from flows.common import end_run, judge_all, run_canary
from flows.run_names import run_name
from judgelab.settings import Settings
from judgelab.study import Study, load_study
from tasks import stages
from tasks.judging.failures import JudgeFailures, failures_in_one_line
from tasks.runs import RunSummary
from tasks.study_types import StudyType


@flow(name="study", flow_run_name=run_name)
def study_flow(
    study_file: str,
    sample_size: int | None = None,
    report: bool = True,
    study: Study | None = None,
) -> RunSummary | State:
    """Run one study end to end; returns its summary (calls before and made now, …).
    `report`: end with the report stage (a suite of several studies writes one for all).
    `study`: the study file as the suite parsed it (None: parse `study_file` here), so a
    run parses each study file once."""
    failures_in_one_line()  # its log entry, if it fails: the lines, no traceback
    settings = Settings()
    study = study or load_study(Path(study_file), sample_size=sample_size)
    record = StudyType.named(study.type)
    run_id = str(flow_run.get_id() or "local")
    started_at = datetime.now(UTC)
    before, made, workers, failures, notes, extra = {}, {}, set(), [], [], {}
    for round_ in record.rounds:
        counts, round_notes = round_.plan(study, settings, run_id)
        part = round_.part(study) if round_.part else None
        round_made, round_workers, round_failures = judge_all(study, settings, counts, run_id, part)
        before |= counts
        made |= round_made
        workers |= round_workers
        failures += round_failures
        notes += round_notes
        extra |= (round_.then(study, settings) or {}) if round_.then else {}
    canary_run, canary_failures = run_canary(study, settings, run_id)  # none: no [study.canary]
    failures += canary_failures
    record.after_judging(study, settings)
    stages.cost_stage(study, settings, parts(record, study))
    try:
        result = end_run(
            study,
            settings,
            run_file=study_file if report else None,
            run_id=run_id,
            started_at=started_at,
            before=before,
            made=made,
            workers=workers,
            failures=failures,
            notes=notes,
            canary_run=canary_run,
        )
    except JudgeFailures as exc:
        exc.results[0] |= extra
        raise
    return result | extra if isinstance(result, dict) else result


def parts(record: StudyType, study: Study) -> list[str] | None:
    """The plan parts of a study's rounds; None: the study's own (one round without a part)."""
    named = [r.part(study) for r in record.rounds if r.part]
    return named or None


def for_type(name: str) -> Flow:
    """The study flow as the UI and deployments name it for study type `name`."""
    return study_flow.with_options(name=StudyType.named(name).flow_name)
