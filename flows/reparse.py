"""Re-parse a study's stored answers and rebuild every table after the judge stage, for every
study type through its record (tasks/study_types.py); no model calls."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prefect import flow
from prefect.runtime import flow_run

from flows.common import end_run
from flows.run_names import run_name
from flows.study import parts
from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import stages
from tasks.study_types import StudyType


@flow(name="reparse-study", flow_run_name=run_name)
def reparse_study(study_file: str) -> dict:
    """Recorded as a run with 0 calls, so `tbl_changes` shows what the parser fix moved."""
    settings = Settings()
    study = load_study(Path(study_file))
    run_id = str(flow_run.get_id() or "local")
    started_at = datetime.now(UTC)
    record = StudyType.named(study.type)
    named = parts(record, study)
    result = stages.reparse_stage(study, settings, named)
    for round_ in record.rounds:  # the same stages after judging as a run's
        if round_.then:
            round_.then(study, settings)
    record.after_judging(study, settings)
    stages.cost_stage(study, settings, named)
    end_run(
        study,
        settings,
        run_file=study_file,
        run_id=run_id,
        started_at=started_at,
        before={},
        made={},
        workers=set(),
    )
    return result
