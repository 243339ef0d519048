"""The run summary the Prefect UI shows as a markdown artifact (pure: frames in, markdown out):
calls by outcome, failures by judge, the main numbers, changes since the last run, and where
the report file is."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from tasks.alerts import alert_lines
from tasks.report.page import fmt_value
from tasks.study_types import StudyType

MAX_ROWS = 20  # an artifact is a glance; the report and `judgelab show` hold the rest
# per study type: the view with its main numbers and the columns a person reads first
CHANGE_COLUMNS = ["study", "change", "row_key", "metric", "old_value", "new_value"]
STATUSES = ("ok", "unparseable", "out_of_range", "error")


def md_table(frame: pl.DataFrame, max_rows: int = MAX_ROWS) -> str:
    """A markdown table of the first `max_rows` rows, saying how many were left out."""
    if frame.is_empty():
        return "_none_\n"
    cell = lambda v: fmt_value(v).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = [
        "| " + " | ".join(frame.columns) + " |",
        "|" + "---|" * frame.width,
        *("| " + " | ".join(cell(v) for v in row) + " |" for row in frame.head(max_rows).rows()),
    ]
    more = frame.height - max_rows
    if more > 0:
        lines.append(f"\n_… {more} more rows in the report_")
    return "\n".join(lines) + "\n"


def calls_table(summaries: list[dict]) -> pl.DataFrame:
    """Per study and judge: calls planned, stored before this run, and made now by outcome."""
    rows = []
    for s in summaries:
        for judge, c in s.get("before", {}).items():
            made = s.get("made", {}).get(judge, {})
            rows.append(
                {
                    "study": s["study"],
                    "judge": judge,
                    "planned": c.get("planned"),
                    "stored_before": c.get("stored"),
                    "made_now": sum(made.values()),
                    **{status: made.get(status, 0) for status in STATUSES},
                }
            )
    return pl.DataFrame(rows)


def main_numbers(kind: str, frame: pl.DataFrame) -> pl.DataFrame:
    """The main view's columns a person reads first (those the view has)."""
    _, columns = StudyType.named(kind).load("report").MAIN_NUMBERS
    return frame.select([c for c in columns if c in frame.columns])


def changes_part(changes: pl.DataFrame) -> str:
    """What changed since the last run; a first run has no previous one to compare with."""
    if changes.is_empty():
        return "No change since the last run.\n"
    first = changes.filter(pl.col("previous_run_id").is_null())["study"].unique().sort()
    out = ""
    if first.len():
        out += f"First run of {', '.join(first)}: nothing to compare with yet.\n\n"
    rest = changes.filter(
        pl.col("previous_run_id").is_not_null() | (pl.col("change") == "new judge")
    )
    return out + (md_table(rest.select(CHANGE_COLUMNS)) if rest.height else "")


def drift_part(alerts: pl.DataFrame) -> str:
    """How many drift alerts (`tbl_drift_alerts`) and one line each."""
    lines = alert_lines(alerts)
    items = "".join(
        f"- {study}: {line}\n" for study, line in zip(alerts["study"], lines, strict=True)
    )
    return f"## Drift alerts: {alerts.height}\n\n{items}"


def run_markdown(
    title: str,
    summaries: list[dict],
    failures: list[str],
    numbers: dict[str, pl.DataFrame],
    changes: pl.DataFrame,
    report: Path,
    alerts: pl.DataFrame | None = None,
) -> str:
    """The artifact's text: a link to the report first (what the operator came for: its file://
    URL, which opens on the machine that ran the flow; some browsers will not follow a file
    link from a web page, so the URL and the path are also written out), then the run's calls,
    failures, drift alerts (when any), main numbers and changes."""
    url = report.resolve().as_uri()
    parts = [
        f"# {title}\n",
        f"**Report:** [{report.name}]({url}) (one offline HTML file)\n\n"
        f"Open `{url}` in a browser on this machine; its path: `{report}`.\n",
        "## Calls by outcome (this run)\n",
        md_table(calls_table(summaries)),
        "## Failures by judge\n",
        "".join(f"- {line}\n" for line in failures) or "No judge failed.\n",
    ]
    if alerts is not None and alerts.height:
        parts.append(drift_part(alerts))
    for kind, frame in numbers.items():
        parts += [
            f"## Main numbers: {StudyType.named(kind).load('report').MAIN_NUMBERS[0]}\n",
            md_table(main_numbers(kind, frame)),
        ]
    parts += ["## Since the last run\n", changes_part(changes)]
    return "\n".join(parts)
