"""Rating-study flow: load → plan → judge (sharded) → score → analyze → agreement → views."""

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
