"""The report stage that ends every study and suite run: the HTML report at
data/reports/<study or suite file stem>.html and a Prefect markdown artifact that summarises the
run and links the report's file (its file:// URL), so `serve` and the compose stack always have
a current one."""

from __future__ import annotations

from pathlib import Path

from prefect import task

from judgelab.settings import Settings
from tasks import warehouse
from tasks.artifacts import artifact_key
from tasks.report.build import report_path, write_report
from tasks.report.summary import run_markdown
from tasks.study_types import StudyType


def _numbers(settings: Settings, summaries: list[dict]) -> dict:
    out = {}
    for kind in StudyType.every():
        studies = [s["study"] for s in summaries if s.get("type") == kind.name]
        if studies:
            view, _ = kind.load("report").MAIN_NUMBERS
            sql = f"select * from {view} where list_contains(?, study)"
            out[kind.name] = warehouse.query(settings, sql, [studies])
    return out


@task(name="report")
def report_stage(
    settings: Settings, run_file: str, summaries: list[dict], failures: list[str]
) -> str:
    """Write the report of the studies these run summaries name and publish the run's
    summary as a markdown artifact (key `report-<stem>`, so the UI keeps its history);
    returns the report's path."""
    from prefect.artifacts import create_markdown_artifact

    studies = list(dict.fromkeys(s["study"] for s in summaries))
    out = write_report(settings, studies, report_path(settings, run_file)).resolve()
    changes = warehouse.query(
        settings, "select * from tbl_changes where list_contains(?, study)", [studies]
    )
    alerts = warehouse.query(
        settings, "select * from tbl_drift_alerts where list_contains(?, study)", [studies]
    )
    stem = Path(run_file).stem
    text = run_markdown(
        f"judgelab run: {', '.join(studies)}",
        summaries,
        failures,
        _numbers(settings, summaries),
        changes,
        out,
        alerts,
    )
    create_markdown_artifact(
        text, key=artifact_key("report", stem), description=f"report: {out.as_uri()}", _sync=True
    )
    return str(out)
