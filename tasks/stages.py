"""The study's stages as Prefect tasks: read tables, call a pure transform, write tables.

Tasks return small summaries or counts, never big frames. The judge stage runs in shards
(one Prefect task per shard of calls, never one per call).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

import polars as pl
from prefect import get_run_logger, task
from prefect.context import TaskRunContext

from judgelab import clock
from judgelab.settings import Settings
from judgelab.study import Study
from schemas.plan import DESIGN_COLUMNS
from tasks import (
    alerts,
    artifacts,
    canary,
    costs,
    drift,
    gate,
    planning,
    runs,
    warehouse,
)
from tasks.calibration import calibration_tables
from tasks.judging import store
from tasks.judging.cache import call_counts, missing_calls
from tasks.judging.reparse import reparse
from tasks.judging.scales import load_scales
from tasks.judging.shard import Lane, plan_rows, run_lanes, run_shard
from tasks.study_types import StudyType


@task(name="load-benchmark")
def load_benchmark(study: Study, settings: Settings) -> int:
    """Fetch (checksum-verified) and load what the study judges (tasks.planning)."""
    return planning.load_benchmark(study, settings)


@task(name="plan")
def make_plan(study: Study, settings: Settings) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Expand the study into its plan; report planned / stored / missing calls per judge and
    one line per judge whose stored answers came through another endpoint (logged as a
    warning on the run; the CLI prints them once). tasks.planning holds the work."""
    counts, notes = planning.make_plan(study, settings)
    _log_endpoint_lines(notes)
    return counts, notes


@task(name="canary-plan")
def plan_canary(study: Study, settings: Settings) -> tuple[str, dict[str, dict[str, int]]]:
    """This date bucket's canary calls (tasks/canary.py): the bucket and, per watched judge,
    planned / stored / missing calls. Inside a bucket a rerun finds them all stored."""
    bucket = clock.bucket(study.canary.every)
    items = StudyType.named(study.type).load("stages").plan_items(study, settings)
    plan = canary.canary_plan(study, items, load_scales(), bucket)
    warehouse.write_table(settings, plan, "canary_plan", canary.part(study, bucket))
    return bucket, call_counts(plan, store.done_keys(settings.store_dir))


@task(name="drift")
def drift_stage(study: Study, settings: Settings, bucket: str) -> list[str]:
    """Every canary batch of the study against its reference batch, against noise: `drift`.
    Returns one line per design flagged in this run's bucket."""
    columns = [*drift.DESIGN, "key", "bucket", "item_id", "repeat"]
    plan = warehouse.read_parts(settings, "canary_plan", f"{study.name}.canary.", columns)
    answers = plan.join(
        store.latest_rows(settings.store_dir, ["key", "status", "score"]), on="key", how="left"
    )
    answers = StudyType.named(study.type).load("canary")(study, settings, answers)
    statistic = StudyType.named(study.type).drift_statistic
    c = study.canary
    table = drift.drift_table(answers, statistic, c.level, c.compare)
    warehouse.write_table(settings, table, "drift", study.name)
    flagged = table.filter(pl.col("flagged") & (pl.col("bucket") == bucket))
    return [f"drift in {study.name}: {line}" for line in alerts.alert_lines(flagged)]


@task(name="gate")
def gate_stage(study: Study, settings: Settings) -> list[str]:
    """The study's `[[rules]]` over the views just published (tasks/gate.py, as `judgelab
    check` runs them): each rule's line on the run's log; returns the lines of failed rules
    and of rules that cannot be evaluated, which fail the run."""
    try:
        results = gate.run_gate(settings, study.name, study.rules)
    except gate.GateError as exc:
        get_run_logger().warning(f"gate: {exc}")
        return [f"gate: {exc}"]
    log = get_run_logger()
    for r in results:
        (log.info if r.passed else log.warning)(f"gate: {r.line}")
    return [f"gate: {r.line}" for r in results if not r.passed]


def endpoint_notes(study: Study, settings: Settings, plan: pl.DataFrame) -> list[str]:
    """One line per judge whose planned calls have answers from another endpoint
    (tasks.planning.endpoint_lines). Inside a Prefect run they are also logged as warnings,
    which the CLI's console filter hides: `judgelab run` prints them once, from the flow's
    result; `judgelab plan` (no run) prints what this returns."""
    lines = planning.endpoint_lines(study, settings, plan)
    _log_endpoint_lines(lines)
    return lines


def _log_endpoint_lines(lines: list[str]) -> None:
    if TaskRunContext.get() is not None:
        for line in lines:
            get_run_logger().warning(line, extra={"printed_by_cli": True})


def shard_run_name(parameters: dict) -> str:
    """`judge smollm2-135m shard 2/3`: the UI's task list says whose calls a shard makes."""
    p = parameters
    return f"judge {p['judge_name']} shard {p['shard'] + 1}/{p['n_shards']}"


@task(name="judge-shard", task_run_name=shard_run_name)
def judge_shard(
    study: Study,
    settings: Settings,
    judge_name: str,
    shard: int,
    n_shards: int,
    run_id: str,
    part: str | None = None,
    table: str = "plan",
) -> dict:
    """Make this shard's missing calls; results reach the store in small atomic batches.
    `part` names the plan part (default: the study's; the tone test has two) and `table`
    the plan table (`canary_plan` for a canary batch). Returns the
    counts by status, the worker (host:pid) that made them, and halt records if the judge
    was stopped on a non-retryable provider error."""
    judge = next(j for j in [*study.judges, study.rewriter] if j and j.name == judge_name)
    plan = warehouse.read_table(settings, table, part or study.name)
    todo = missing_calls(plan, store.done_keys(settings.store_dir), judge_name, shard, n_shards)
    worker = f"{socket.gethostname()}:{os.getpid()}"
    if todo.is_empty():
        return {"counts": {}, "worker": worker, "halts": []}
    label = f"{study.name} · {judge_name} · shard {shard + 1}/{n_shards}"
    counts, halts = run_shard(
        *(judge, todo, settings.store_dir, settings.store_part_rows, run_id),
        label=label,
        interval=settings.progress_interval,
        on_part=partial(warehouse.refresh_store_view, settings),  # SQL sees calls arrive
    )
    return {"counts": dict(counts), "worker": worker, "halts": halts}


@task(name="error-causes")
def error_causes(
    settings: Settings, run_id: str, judges: list[str], part: str, table: str = "plan"
) -> dict[str, list[str]]:
    """The stored `error` of the calls of these judges in plan `part` that failed in this run,
    per judge, oldest first (failures.first_cause names the first cause in a judge's line)."""
    plan = warehouse.read_table(settings, table, part, ["key", "judge"])
    errors = store.run_errors(settings.store_dir, run_id).join(plan, on="key")
    errors = errors.filter(pl.col("judge").is_in(judges)).sort("created_at")
    return {
        judge: group["error"].fill_null("").to_list()
        for (judge,), group in errors.group_by("judge", maintain_order=True)
    }


@task(name="judge-together")
def judge_together(
    study: Study,
    settings: Settings,
    shards: list[tuple[str, int, int]],
    run_id: str,
    part: str | None = None,
    table: str = "plan",
) -> list[dict]:
    """Shards of different judges at once, each judge with its own limits (shard.run_lanes):
    a study of K hosted judges takes about as long as its slowest judge, not the sum.
    `shards` holds (judge, shard, of n shards); returns judge_shard's summary for each."""
    judges = {j.name: j for j in [*study.judges, study.rewriter] if j}
    plan = warehouse.read_table(settings, table, part or study.name)
    done = store.done_keys(settings.store_dir)
    worker = f"{socket.gethostname()}:{os.getpid()}"
    lanes, index = [], []
    for i, (name, shard, n) in enumerate(shards):
        todo = missing_calls(plan, done, name, shard, n)
        if not todo.is_empty():
            label = f"{study.name} · {name} · shard {shard + 1}/{n}"
            lanes.append(Lane(judges[name], plan_rows(todo), label))
            index.append(i)
    results = [{"counts": {}, "worker": worker, "halts": []} for _ in shards]
    ran = run_lanes(
        *(lanes, settings.store_dir, settings.store_part_rows, run_id),
        interval=settings.progress_interval,
        on_part=partial(warehouse.refresh_store_view, settings),  # SQL sees calls arrive
    )
    for i, (counts, halt) in zip(index, ran, strict=True):
        results[i] = {"counts": counts, "worker": worker, "halts": [halt] if halt else []}
    return results


# the store columns design_costs prices: tokens, cache use, and the batch (if any) that answered
COST_COLUMNS = [
    "key",
    "status",
    "attempts",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "cache_write_tokens",
    "batch_id",
]


def write_calibration(
    study: Study,
    settings: Settings,
    study_type: str,
    truth: pl.DataFrame,
    calls_of: Callable[..., pl.DataFrame],
    event: str,
) -> int:
    """The calibration tables of a type whose calls have a truth (`calls_of`: the type's
    `calibration_calls(plan, judgments, truth, categories)`) → `calibration` and
    `calibration_bins` (tasks/calibration.py); calls without a distribution are counted.
    Returns the calls scored (0 while the judges store no distributions)."""
    a = study.analysis
    plan = warehouse.read_table(settings, "plan", study.name, DESIGN_COLUMNS)
    judgments = store.latest_rows(settings.store_dir, ["key", "status", "probs"])
    categories = load_scales()[study.scales[0]].categories
    calls = calls_of(plan, judgments, truth, categories)
    table, bins = calibration_tables(calls, study_type, event, n_boot=a.bootstrap, seed=a.seed)
    warehouse.write_table(settings, table, "calibration", study.name)
    warehouse.write_table(settings, bins, "calibration_bins", study.name)
    return int(table["n_scored"].sum())


@task(name="costs")
def cost_stage(study: Study, settings: Settings, parts: list[str] | None = None) -> int:
    """Requests, tokens and cost per design cell (litellm's offline price table), batch and
    online calls apart, cached prompt tokens at the cache's price."""
    plan = pl.concat(
        warehouse.read_table(settings, "plan", p, DESIGN_COLUMNS) for p in parts or [study.name]
    )
    judgments = store.latest_rows(settings.store_dir, COST_COLUMNS)
    table = costs.design_costs(plan.join(judgments, on="key", how="left"))
    warehouse.write_table(settings, table, "design_costs", study.name)
    return table.height


@task(name="reparse")
def reparse_stage(
    study: Study, settings: Settings, parts: list[str] | None = None
) -> dict[str, int]:
    """Re-parse this study's stored answers; changed rows are rewritten, no call is made."""
    plan = pl.concat(
        warehouse.read_table(settings, "plan", p, ["key", "scale"]) for p in parts or [study.name]
    ).unique("key")
    # imported answers are re-read from their files by the import stage, not re-parsed here
    # (a labelled answer's raw text is the judge's own, not what the scale's parser reads)
    rows = store.latest_rows(settings.store_dir).join(plan, on="key")
    rows = rows.filter(pl.col("source") == "call")
    changed = reparse(rows, load_scales())
    if not changed.is_empty():
        stamp = datetime.now(UTC)
        store.write_part(
            settings.store_dir,
            # run_id stays: it names the run that made the call; created_at makes it newest
            changed.drop("scale").with_columns(
                pl.lit(stamp).dt.cast_time_unit("us").alias("created_at")
            ),
        )
        store.compact(settings.store_dir)
    return {"checked": rows.height, "changed": changed.height}


@task(name="publish-views")
def publish_stage(settings: Settings) -> list[str]:
    return warehouse.publish_views(settings)


@task(name="record-run")
def record_run(
    study: Study,
    settings: Settings,
    run_id: str,
    started_at: datetime,
    made: dict[str, dict[str, int]],
) -> str:
    """Append this run to the ledger (`runs`) with a snapshot of its main numbers
    (`metric_history`): the two tables behind `tbl_runs` and `tbl_changes`."""
    finished = datetime.now(UTC)
    judges = [j.name for j in study.judges] + ([study.rewriter.name] if study.rewriter else [])
    if study.imports:  # imported judges are named by their files: the plan has them
        planned = warehouse.read_table(settings, "plan", study.name, ["judge"])["judge"]
        judges += [j for j in planned.unique(maintain_order=True) if j not in judges]
    part = f"{study.name}-{finished:%Y%m%dT%H%M%S%f}"
    ledger = runs.run_rows(study.name, study.type, run_id, started_at, finished, judges, made)
    warehouse.write_table(settings, ledger, "runs", part)
    source = StudyType.named(study.type).metric_source
    table = warehouse.read_table(settings, source, study.name)
    snapshot = runs.metric_snapshot(study.name, run_id, finished, source, table)
    warehouse.write_table(settings, snapshot, "metric_history", part)
    return part


@task(name="publish-artifacts")
def publish_artifacts(study: Study, settings: Settings) -> list[str]:
    """The study's main tables (and what changed since its last run) as Prefect table
    artifacts, readable in the UI without SQL."""
    from prefect.artifacts import create_table_artifact

    keys = []
    for view in [*StudyType.named(study.type).artifact_views, "tbl_changes"]:
        frame = warehouse.query(settings, f"select * from {view} where study = ?", [study.name])
        key = artifacts.artifact_key(study.name, view)
        create_table_artifact(
            artifacts.table_rows(frame),
            key=key,
            description=f"**{view}** · {warehouse.view_meaning(view)}",
            _sync=True,
        )
        keys.append(key)
    return keys
