"""Re-parse a study's stored answers and rebuild every table after the judge stage, for every
study type through its record (tasks/kinds.py); no model calls."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prefect import flow
from prefect.runtime import flow_run

from flows.common import finish
from flows.names import run_name
from judgelab.settings import Settings
from judgelab.study import load_study
from tasks.kinds import kind


@flow(name="reparse-study", flow_run_name=run_name)
def reparse_study(study_file: str) -> dict:
    """Recorded as a run with 0 calls, so `tbl_changes` shows what the parser fix moved."""
    settings = Settings()
    study = load_study(Path(study_file))
    run_id = str(flow_run.get_id() or "local")
    started_at = datetime.now(UTC)
    result = kind(study.type).load("reparse")(study, settings)
    finish(study, settings, study_file, run_id, started_at, {}, {}, set())
    return result
