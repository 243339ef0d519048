"""The run ledger: what each study run made, and a snapshot of its main numbers, so that
"what changed since the last run" is a query (sql/reports/tbl_changes.sql)."""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired, TypedDict

import polars as pl

from schemas.metric_history import MetricHistory
from schemas.runs import Runs
from schemas.validate import validate
from tasks.study_types import StudyType

UTC_US = pl.Datetime("us", "UTC")
Counts = dict[str, dict[str, int]]  # per judge: calls by status (or planned / stored / missing)


class RunSummary(TypedDict):
    """What one study run returns to the suite, the report stage and `judgelab run`: calls
    planned before it and made by it, where they ran, the views published, the plan's notes,
    the canary's batch (tasks/canary.py), and, when the run wrote one, the report's path. A
    plain dict on the wire, so Prefect can keep it as the flow run's result."""

    study: str
    type: str  # the study type (tasks/study_types.py)
    run_id: str
    before: Counts  # per judge: planned / stored / missing calls when the run began
    made: Counts  # per judge: calls made by this run, by status
    workers: list[str]  # hosts and processes that made them
    views: list[str]  # the views published
    notes: list[str]  # one-line warnings of the plan (foreign endpoints, …)
    canary: dict  # CanaryRun as a dict: bucket, before, made, alerts
    report: NotRequired[str]  # the report's path, when this run wrote it
    checked: NotRequired[dict]  # tone: the rewrites' checks (its round's `then`)


def run_rows(
    study: str,
    study_type: str,
    run_id: str,
    started_at: datetime,
    finished_at: datetime,
    judges: list[str],
    made: dict[str, dict[str, int]],
) -> pl.DataFrame:
    """One ledger row per judge of the study (judges with nothing to do made 0 calls)."""
    rows = [
        {
            "study": study,
            "study_type": study_type,
            "run_id": run_id,
            "started_at": started_at,
            "finished_at": finished_at,
            "judge": judge,
            "calls_made": sum(made.get(judge, {}).values()),
            "calls_failed": sum(n for s, n in made.get(judge, {}).items() if s != "ok"),
        }
        for judge in judges
    ]
    schema = {name: col.dtype.type for name, col in Runs.to_schema().columns.items()}
    return validate(pl.DataFrame(rows, schema=schema), Runs)


def snapshot_columns(source: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The row-naming columns and the numbers of a type's `metric_source` table."""
    (record,) = [t for t in StudyType.every() if t.metric_source == source]
    return record.snapshot


def metric_snapshot(
    study: str, run_id: str, finished_at: datetime, source: str, table: pl.DataFrame
) -> pl.DataFrame:
    """`table`'s main numbers in long format (its study type's `snapshot` columns), tagged
    with the run."""
    keys, metrics = snapshot_columns(source)
    row_key = pl.concat_str(
        [pl.format(f"{k}={{}}", pl.col(k).cast(pl.String).fill_null("∅")) for k in keys],
        separator=" · ",
    )
    if "readout" in table.columns:  # a second readout's rows are named apart; the parsed
        # answer's keep the key they had before readouts existed, so runs compare across
        other = pl.col("readout").fill_null("answer") != "answer"
        named = row_key + pl.format(" · readout={}", "readout")
        row_key = pl.when(other).then(named).otherwise(row_key)
    long = (
        table.select(row_key.alias("row_key"), *[pl.col(m).cast(pl.Float64) for m in metrics])
        .unpivot(index="row_key", variable_name="metric", value_name="value")
        .with_columns(pl.col("value").fill_nan(None))
    )
    snapshot = long.select(
        pl.lit(study).alias("study"),
        pl.lit(run_id).alias("run_id"),
        pl.lit(finished_at).cast(UTC_US).alias("finished_at"),
        pl.lit(source).alias("source"),
        "row_key",
        "metric",
        "value",
    )
    return validate(snapshot, MetricHistory)
