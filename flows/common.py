"""Wiring shared by the study flows: the task runner, the sharded judge stage, the ending."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime

from prefect import get_run_logger
from prefect.runtime import flow_run
from prefect.states import Completed, State
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from judgelab.settings import Settings
from judgelab.study import Study
from tasks import alerts, canary, stages
from tasks.judging import batches
from tasks.judging.cache import n_shards
from tasks.judging.failures import JudgeFailure, JudgeFailures, judge_failures
from tasks.judging.runlock import study_lock
from tasks.report.stage import report_stage
from tasks.runs import RunSummary


def task_runner(settings: Settings) -> TaskRunner:
    """Where judge shards run, from configuration: a Dask cluster (remote at `dask_address`,
    or local with `dask_workers` processes) or this process."""
    if settings.runner != "dask":
        return ThreadPoolTaskRunner()
    from prefect_dask import DaskTaskRunner

    if settings.dask_address:
        return DaskTaskRunner(address=settings.dask_address)
    return DaskTaskRunner(
        cluster_kwargs={
            "n_workers": settings.dask_workers,
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": None,
        }
    )


def judge_all(
    study: Study,
    settings: Settings,
    before: dict[str, dict[str, int]],
    run_id: str,
    part: str | None = None,
    table: str = "plan",
) -> tuple[dict[str, dict[str, int]], set[str], list[JudgeFailure]]:
    """Run each judge's missing calls in shards: counts by status per judge, the workers
    (host:pid) that ran shards, and the judges that failed loudly (logged as warnings on the
    flow run; `end_run` fails the run after publishing). Shards hold disjoint keys; on the
    Dask runner they all run at once, one task per shard and worker; here, the judges run at
    once in rounds (`_judge_locally`), and a judge stopped on a non-retryable error runs no
    further shard.
    `part` names the plan part (default: the study's), `table` its table. Imported judges
    (`[[imports]]`) are never called: the import stage stored their answers."""
    live = {j.name: j for j in [*study.judges, study.rewriter] if j}
    shards = [
        (judge, shard, n)
        for judge, counts in before.items()
        if judge in live
        # a batch judge's calls are one shard: its batches all go at once, not one shard's
        # per round of a provider's completion window
        for n in [
            1 if batches.enabled(live[judge]) else n_shards(counts["missing"], study.shard_size)
        ]
        for shard in range(n if counts["missing"] else 0)
    ]
    with study_lock(settings.data_dir / "locks", study.name):
        if settings.runner == "dask":
            futures = [
                stages.judge_shard.submit(study, settings, j, s, n, run_id, part, table)
                for j, s, n in shards
            ]
            results = [f.result() for f in futures]
        else:
            results = _judge_locally(study, settings, shards, run_id, part, table)
    made: dict[str, dict[str, int]] = {}
    halts: dict[str, list[dict]] = {}
    for (judge, _, _), result in zip(shards, results, strict=True):
        for status, n in result["counts"].items():
            made.setdefault(judge, {}).setdefault(status, 0)
            made[judge][status] += n
        halts.setdefault(judge, []).extend(result["halts"])
    judges = {j.name: j for j in [*study.judges, study.rewriter] if j and j.name in before}
    missing = {j: c["missing"] for j, c in before.items() if j in live}
    failed = [j for j, c in made.items() if c.get("error")]
    causes = (
        stages.error_causes(settings, run_id, failed, part or study.name, table) if failed else {}
    )
    failures = judge_failures(
        study.name, judges, made, halts, study.max_failure_share, missing, causes
    )
    for failure in failures:
        # on the flow run's log in the UI; the CLI prints it once, at the end
        get_run_logger().warning(failure.line, extra={"judge_failure": True})
    return made, {r["worker"] for r in results if r["worker"]}, failures


def _judge_locally(
    study: Study,
    settings: Settings,
    shards: list[tuple[str, int, int]],
    run_id: str,
    part: str | None,
    table: str,
) -> list[dict]:
    """Shard r of every judge runs in round r, the judges at once (stages.judge_together);
    judges that need the machine to themselves — in-process llama.cpp, `processes > 1` — run
    their shard alone. A judge stopped on a non-retryable error joins no further round."""
    judges = {j.name: j for j in [*study.judges, study.rewriter] if j}
    alone = {n for n, j in judges.items() if j.model.startswith("local/") or j.processes > 1}
    done: dict[tuple[str, int], dict] = {}
    stopped: set[str] = set()
    for r in range(max((n for _, _, n in shards), default=0)):
        now = [x for x in shards if x[1] == r and x[0] not in stopped]
        together = [x for x in now if x[0] not in alone]
        if len(together) > 1:
            name = f"judge {', '.join(j for j, _, _ in together)} · round {r + 1}"
            task = stages.judge_together.with_options(task_run_name=name)
            out = task(study, settings, together, run_id, part, table)
        else:
            out = [stages.judge_shard(study, settings, *x, run_id, part, table) for x in together]
        solo = [x for x in now if x[0] in alone]
        out += [stages.judge_shard(study, settings, *x, run_id, part, table) for x in solo]
        for (j, s, _), result in zip(together + solo, out, strict=True):
            done[(j, s)] = result
            stopped |= {j} if result["halts"] else set()
    skipped = {"counts": {}, "worker": None, "halts": []}
    return [done.get((j, s), skipped) for j, s, _ in shards]


@dataclass
class CanaryRun:
    """What a study's canary did in this run: its bucket, calls before and made, and one
    line per design whose drift was flagged in this bucket."""

    bucket: str | None = None
    before: dict[str, dict[str, int]] = field(default_factory=dict)
    made: dict[str, dict[str, int]] = field(default_factory=dict)
    alerts: list[str] = field(default_factory=list)


def run_canary(
    study: Study, settings: Settings, run_id: str
) -> tuple[CanaryRun, list[JudgeFailure]]:
    """The canary (tasks/canary.py), when the study has one: this bucket's batch (made once
    per bucket), then drift against noise (tasks/drift.py). An alert is a warning on the
    flow run's log and goes to JUDGELAB_ALERT_WEBHOOK when set; `end_run` sets the run state."""
    if study.canary is None:
        return CanaryRun(), []
    bucket, before = stages.plan_canary(study, settings)
    made, _, failures = judge_all(
        study, settings, before, run_id, canary.part(study, bucket), "canary_plan"
    )
    lines = stages.drift_stage(study, settings, bucket)
    for line in lines:
        get_run_logger().warning(line, extra={"drift_alert": True})
    if lines:
        alerts.post_alert(lines, study.name, flow_run.ui_url, settings.alert_webhook or "")
    return CanaryRun(bucket, before, made, lines), failures


def summed_counts(*counts: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """Calls by judge and status, summed over stages (the study's plan and its canary)."""
    out: dict[str, dict[str, int]] = {}
    for by_judge in counts:
        for judge, by_status in by_judge.items():
            for status, n in by_status.items():
                out.setdefault(judge, {}).setdefault(status, 0)
                out[judge][status] += n
    return out


def end_run(
    study: Study,
    settings: Settings,
    *,
    run_file: str | None,
    run_id: str,
    started_at: datetime,
    before: dict[str, dict[str, int]],
    made: dict[str, dict[str, int]],
    workers: set[str],
    failures: list[JudgeFailure] | None = None,
    notes: list[str] | None = None,
    canary_run: CanaryRun | None = None,
) -> RunSummary | State:
    """Every study run ends alike: the ledger entry, the views, the UI's table artifacts, the
    report (data/reports/<run_file stem>.html and its markdown artifact; None: the suite
    writes one for all its studies). Returns the run's summary (calls before and made,
    workers, views, the plan's notes for the CLI to print, the report's path), or raises
    `JudgeFailures` carrying it when judges failed loudly, so the flow run ends Failed.
    Drift alerts of the canary (`canary_run`) end the run Failed the same way when the
    canary says on_alert = "fail", else in a Completed state named "Drifted"; so does a
    failed `[[rules]]` gate rule of the study (stages.gate_stage)."""
    canary_run = canary_run or CanaryRun()
    stages.record_run(study, settings, run_id, started_at, summed_counts(made, canary_run.made))
    views = stages.publish_stage(settings)
    stages.publish_artifacts(study, settings)
    summary: RunSummary = {
        "study": study.name,
        "type": study.type,
        "run_id": run_id,
        "before": before,
        "made": made,
        "workers": sorted(workers),
        "views": views,
        "notes": notes or [],
        "canary": asdict(canary_run),
    }
    failures = list(failures or [])
    if canary_run.alerts and study.canary.on_alert == "fail":
        failures += [JudgeFailure(study.name, "canary", line) for line in canary_run.alerts]
    if study.rules:  # a failed gate rule fails the run, like a failed judge
        failed = stages.gate_stage(study, settings)
        failures += [JudgeFailure(study.name, "gate", line) for line in failed]
    lines = [f.line for f in failures]
    if run_file is not None:
        summary["report"] = report_stage(settings, run_file, [summary], lines)
    if failures:
        raise JudgeFailures(failures, [summary])
    if canary_run.alerts:
        return drifted_state([summary], summary)
    return summary


def drifted_state(summaries: list[RunSummary], data: object) -> State:
    """A Completed state named "Drifted" (the UI shows the name) carrying the summaries:
    the run did its work, and a canary moved beyond its judge's noise."""
    n = sum(len(s.get("canary", {}).get("alerts", [])) for s in summaries)
    return Completed(name="Drifted", message=f"{n} drift alert(s); see tbl_drift_alerts", data=data)
