"""Pairwise-study flow: load pairs → import → plan (both orders) → judge (sharded) → analysis
→ views."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prefect import flow
from prefect.runtime import flow_run
from prefect.states import State

from flows.common import finish, judge_all
from flows.names import run_name
from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import stages
from tasks.imports.stage import import_stage
from tasks.pairwise import stages as pairwise


@flow(name="pairwise-study", flow_run_name=run_name)
def pairwise_study(
    study_file: str, sample_size: int | None = None, report: bool = True
) -> dict | State:
    """Run one pairwise study end to end; returns call counts before and calls made now.
    `report`: end with the report stage (a suite of several studies writes one for all)."""
    settings = Settings()
    study = load_study(Path(study_file), sample_size=sample_size)
    run_id = str(flow_run.get_id() or "local")
    started_at = datetime.now(UTC)
    pairwise.load_pairs(study, settings)
    import_stage(study, settings, run_id)
    before, notes = pairwise.make_plan(study, settings)
    made, workers, failures = judge_all(study, settings, before, run_id)
    pairwise.analysis_stage(study, settings)
    stages.cost_stage(study, settings)
    report_of = study_file if report else None
    return finish(
        *(study, settings, report_of, run_id, started_at, before, made, workers, failures),
        notes,
    )
