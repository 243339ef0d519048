"""Which process owns a Prefect flow run. A run whose process died is marked Crashed by that
process's watchdog within seconds (lifecycle.watch_runs), or, when the watchdog died too (the
machine or container went), by the next run of its study (Prefect itself would show it
Running forever); a stopped one is recorded Cancelled by its own process on the way out."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import partial
from typing import TYPE_CHECKING
from uuid import UUID

from judgelab.lifecycle import say, watch_runs

if TYPE_CHECKING:
    from prefect.client.orchestration import SyncPrefectClient
    from prefect.client.schemas.objects import FlowRun
    from prefect.states import State

OWNER = "judgelab-owner:"  # + host:pid:start — the process that runs the flow run
STUDY = "judgelab-study:"  # + study name, one tag per study the run covers
OPEN = ("RUNNING", "PENDING", "PAUSED", "CANCELLING")  # state types a run can still leave


def _stat(pid: int) -> tuple[str, str]:
    """(state, start time) of a process from /proc/PID/stat (fields 3 and 22): "Z" is a
    zombie, dead but not yet waited for; the start time (clock ticks after boot) tells a
    pid used again — in a restarted container the same small pid comes back — from the
    owner. ("?", "-") where /proc cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return fields[0], fields[19]
    except (OSError, IndexError):
        return "?", "-"


def owner_tag() -> str:
    return f"{OWNER}{socket.gethostname()}:{os.getpid()}:{_stat(os.getpid())[1]}"


def process_start(pid: int) -> str:
    """When process `pid` started (clock ticks after boot; "-" if unknown): with the pid it
    names one process, even after the pid is used again."""
    return _stat(pid)[1]


def ended(pid: int, started: str) -> bool:
    """Whether the process `pid` that started at `started` (on this host) is gone: no such
    pid, a zombie, or the pid now names a later process."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    state, now = _stat(pid)
    return state == "Z" or ("-" not in (started, now) and now != started)


def gone(tag: str) -> tuple[str, int] | None:
    """(host, pid) of an owner tag whose process has ended on this host; None while it may
    live (another host cannot be checked from here)."""
    host, pid, started = tag.removeprefix(OWNER).rsplit(":", 2)
    if host != socket.gethostname():
        return None
    return (host, int(pid)) if ended(int(pid), started) else None


def _client() -> SyncPrefectClient:
    """A client of its own (not the flow run's), with short timeouts."""
    from prefect.client.orchestration import get_client

    return get_client(sync_client=True, httpx_settings={"timeout": 5.0})


def _open(client: SyncPrefectClient, **where: object) -> list[FlowRun]:
    """Flow runs not yet in a final state that match `where` (FlowRunFilter fields)."""
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )

    state = FlowRunFilterState(type=FlowRunFilterStateType(any_=list(OPEN)))
    return client.read_flow_runs(flow_run_filter=FlowRunFilter(state=state, **where), limit=200)


def _with_subflows(client: SyncPrefectClient, runs: list[FlowRun]) -> list[FlowRun]:
    """These runs and their unfinished subflow runs, each once (a subflow carries our tags
    too, so a query by tag may already have found it)."""
    from prefect.client.schemas.filters import FlowRunFilterParentFlowRunId

    found = {r.id: r for r in runs}
    parents = list(found)
    while parents:
        children = _open(client, parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=parents))
        new = [c for c in children if c.id not in found]
        found |= {c.id: c for c in new}
        parents = [c.id for c in new]
    return list(found.values())


def _end(client: SyncPrefectClient, runs: list[FlowRun], state: Callable[[], State]) -> None:
    """Put these flow runs in `state()`, and their unfinished task runs too (else the UI
    shows a judge shard running for ever, its progress frozen)."""
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterId,
        TaskRunFilter,
        TaskRunFilterState,
        TaskRunFilterStateType,
    )

    for run in runs:
        client.set_flow_run_state(run.id, state(), force=True)
    if not runs:
        return
    tasks = client.read_task_runs(
        flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[r.id for r in runs])),
        task_run_filter=TaskRunFilter(
            state=TaskRunFilterState(type=TaskRunFilterStateType(any_=list(OPEN)))
        ),
    )
    for task in tasks:
        client.set_task_run_state(task.id, state(), force=True)


def crash_orphans(client: SyncPrefectClient, studies: list[str], exclude: UUID) -> list[str]:
    """Mark Crashed the unfinished runs of these studies whose owner process is gone (with
    their subflow and task runs); one line per flow run marked."""
    from prefect.client.schemas.filters import FlowRunFilterTags
    from prefect.states import Crashed

    lines, marked = [], {exclude}
    for run in _open(client, tags=FlowRunFilterTags(any_=[STUDY + s for s in studies])):
        owner = next((gone(t) for t in run.tags if t.startswith(OWNER)), None)
        if run.id in marked or owner is None:
            continue
        why = f"its process {owner[1]} on {owner[0]} is gone"
        names = ", ".join(t.removeprefix(STUDY) for t in run.tags if t.startswith(STUDY))
        runs = [r for r in _with_subflows(client, [run]) if r.id not in marked]
        marked |= {r.id for r in runs}
        _end(client, runs, partial(Crashed, message=f"judgelab: {why}"))
        lines += [
            f"marked the earlier run {r.name} ({r.id}) of study {names} Crashed: {why}"
            for r in runs
        ]
    return lines


def crash_owned(api_url: str, tag: str) -> list[str]:
    """Mark Crashed the unfinished flow runs of the dead owner `tag` on the server at
    `api_url`, with their subflow and task runs: the watchdog's work when its process died
    (lifecycle.watch_runs). One line per flow run marked."""
    from prefect.client.schemas.filters import FlowRunFilterTags
    from prefect.settings import PREFECT_API_URL, temporary_settings
    from prefect.states import Crashed

    _, pid, _ = tag.removeprefix(OWNER).rsplit(":", 2)
    why = f"its process {pid} on {socket.gethostname()} died (judgelab's watchdog saw it)"
    with temporary_settings(updates={PREFECT_API_URL: api_url}), _client() as client:
        runs = _with_subflows(client, _open(client, tags=FlowRunFilterTags(all_=[tag])))
        _end(client, runs, partial(Crashed, message=f"judgelab: {why}"))
    return [f"marked the run {r.name} ({r.id}) Crashed: {why}" for r in runs]


def owned(studies: list[str]) -> AbstractContextManager[set[str]]:
    """Inside a flow: the subflow runs (and their task runs) started within carry this
    process's owner tag and these studies' tags, as the suite run does. When the suite run
    has ended (Prefect records it Crashed when its process fails) but a subflow was left
    Running, the next run still finds that subflow by its tags and marks it Crashed."""
    from prefect import tags

    return tags(owner_tag(), *(STUDY + s for s in studies))


def own_run(studies: list[str]) -> None:
    """Inside a flow: tag its run with this process as owner and with the studies, after
    marking Crashed the earlier runs of these studies whose owner died (said on stderr and
    in the run's log)."""
    from prefect import get_run_logger
    from prefect.context import FlowRunContext

    run = FlowRunContext.get().flow_run
    mine = {owner_tag(), *(STUDY + s for s in studies)}
    with _client() as client:
        if not mine <= set(run.tags):
            client.update_flow_run(run.id, tags=sorted({*run.tags, *mine}))
        watch_runs(owner_tag(), str(client.api_url).rstrip("/"))  # if we die: Crashed
        try:
            lines = crash_orphans(client, studies, exclude=run.id)
        except Exception as exc:  # bookkeeping of earlier runs must not fail this one
            lines = [f"could not check earlier runs of {', '.join(studies)}: {exc}"]
    for line in lines:
        print(f"judgelab: {line}", file=sys.stderr)
        get_run_logger().warning(line, extra={"printed_by_cli": True})


def cancel_own_runs(why: str) -> None:
    """Record every unfinished flow run of this process, with its subflow and task runs,
    Cancelled; say which."""
    from prefect.client.schemas.filters import FlowRunFilterTags
    from prefect.states import Cancelled

    message = f"judgelab stopped on {why}; calls in flight were dropped"
    with _client() as client:
        runs = _with_subflows(client, _open(client, tags=FlowRunFilterTags(all_=[owner_tag()])))
        _end(client, runs, partial(Cancelled, message=message))
    say("recorded Cancelled: " + (", ".join(f"{r.name} ({r.id})" for r in runs) or "no run"))


def _crash_main(args: list[str]) -> None:
    """`python -m judgelab.owners crash URL TAG [URL TAG …]`: what a watchdog becomes when the
    process it watched died owning flow runs (lifecycle._crash_runs)."""
    for api_url, tag in zip(args[::2], args[1::2], strict=True):
        try:
            lines = crash_owned(api_url, tag)
        except Exception as exc:  # the next run of the study marks them instead
            lines = [f"could not mark the runs of {tag} Crashed: {exc}"]
        for line in lines:
            say(line)


if __name__ == "__main__" and sys.argv[1:2] == ["crash"]:
    _crash_main(sys.argv[2:])
