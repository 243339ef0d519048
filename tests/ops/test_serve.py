"""`judgelab serve` against a real `prefect server`: with `--every N` the first run comes at
once, not one interval late; a kill -9 of `serve` takes its flow-run process along, lets no
more calls out than were in flight, and leaves no run of the study Running once the next run
has started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import pytest
from conftest import mirror_dir
from mockstudy import ENV, write_study
from prefect_api import Api
from test_shutdown import (
    alive,
    open_task_runs,
    requests,
    start_run,
    study_runs,
    tree_token,
    watchdog,
)

from judgelab import lifecycle, owners
from judgelab.settings import PROJECT_ROOT
from judgelab.testing import mock_provider

pytestmark = pytest.mark.slow

T = TypeVar("T")
OPEN = {"SCHEDULED", "PENDING", "RUNNING", "PAUSED", "CANCELLING"}


def wait_for(check: Callable[[], T], timeout: float, what: str, every: float = 0.5) -> T:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s waiting for {what}"
        time.sleep(every)
    return found


# `judgelab serve` whose deployments take REGISTER_S s each to register, as on a busy machine
# or with a distant server (the flow-run processes it starts are not slowed)
SLOW_REGISTRATION = """
import asyncio, sys
from judgelab.env import apply_defaults
apply_defaults()
from prefect.runner import Runner
register, delay = Runner.aadd_deployment, float(sys.argv.pop(1))
async def slowly(self, deployment):
    await asyncio.sleep(delay)
    return await register(self, deployment)
Runner.aadd_deployment = slowly
from judgelab.cli import console
console()
"""


def start_serve(
    tmp: Path, study: Path, prefect_api: str, *args: str, register_s: float = 0
) -> subprocess.Popen:
    """`judgelab serve` in a session of its own (a signal to it reaches nothing else), its
    output in a file; `register_s`: each deployment takes that long to register."""
    command = ["-c", SLOW_REGISTRATION, str(register_s)] if register_s else ["-m", "judgelab.cli"]
    env = {
        **os.environ,
        **ENV,
        "PREFECT_API_URL": prefect_api,
        "PREFECT_RUNNER_POLL_FREQUENCY": "2",
        "JUDGELAB_DATA_DIR": str(tmp / "data"),
        "JUDGELAB_DATA_MIRROR": str(mirror_dir()),
    }
    return subprocess.Popen(
        [sys.executable, *command, "serve", str(study), *args],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=(tmp / "serve.out").open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def deployment_runs(api: Api, name: str) -> list[dict]:
    try:
        deployment = api.get(f"/deployments/name/study-suite/{name}")
    except Exception:  # not registered yet
        return []
    return api.post("/flow_runs/filter", {"deployments": {"id": {"any_": [deployment["id"]]}}})


def once_started(api: Api, name: str) -> list[dict]:
    """The deployment's runs once one of them has started, else none."""
    runs = deployment_runs(api, name)
    return runs if any(r["start_time"] for r in runs) else []


def seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def flow_run_process(pid: int) -> int | None:
    """The `python -m prefect.engine` child of `serve` running a flow run."""
    for child in filter(str.isdigit, os.listdir("/proc")):
        try:
            ppid = int(Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if ppid == pid and b"prefect.engine" in cmdline:
            return int(child)
    return None


def test_every_runs_first_at_once(tmp_path: Path, prefect_api: str) -> None:
    """`serve --every 60`: the first run is due within 65 s of `serve` starting, and starts,
    even when the deployment takes 8 s to register. The old schedule anchor (start + 5 s) had
    passed by then, and the server makes no run for a past slot: the first run came one
    interval late. The schedule's own slots follow, every 60 s from `serve`'s start.
    (When it starts after it is due depends on the machine: the flow-run process imports
    Prefect and judgelab, 10-30 s on two busy cores.)"""
    api = Api(prefect_api)
    name = f"every-{uuid.uuid4().hex[:8]}"  # the file stem names the deployment
    with mock_provider.running(None, latency=0.0) as url:
        study = write_study(tmp_path / f"{name}.toml", url, ["mock-a"], name=name, sample_size=2)
        launched = time.time()
        serve = start_serve(tmp_path, study, prefect_api, "--every", "60", register_s=8)
        try:
            runs = wait_for(lambda: once_started(api, name), 240, "a run to start")
        finally:  # `serve` pauses its schedule on the way out: its slots are gone then
            serve.terminate()
            serve.wait(timeout=60)
    first = min((r for r in runs if r["start_time"]), key=lambda r: seconds(r["start_time"]))
    due = seconds(first["expected_start_time"]) - launched
    took = seconds(first["start_time"]) - launched
    print(f"first run due {due:.1f} s and started {took:.1f} s after serve was launched")
    assert due <= 60 + 5, (due, (tmp_path / "serve.out").read_text())
    # the schedule's slots: every 60 s from serve's start, none crowding the first run
    slots = [seconds(r["expected_start_time"]) for r in runs if "auto-scheduled" in r["tags"]]
    assert slots and min(slots) - launched >= 60


def test_kill_9_of_serve_leaves_no_run_running(tmp_path: Path, prefect_api: str) -> None:
    """kill -9 of `judgelab serve` (its pid only) while its run judges: its flow-run process
    (and that one's own processes) are gone within seconds, the provider receives no more
    requests after the kill than the judge has in flight (concurrency 4, over two engine
    processes as at paper scale), and once the next
    run of the study has started no run of it is Running: neither the suite run nor its
    `rating-study` subflow (which carries the owner tag, so the next run can find it)."""
    api = Api(prefect_api)
    log = tmp_path / "requests.jsonl"
    name = f"killserve-{uuid.uuid4().hex[:8]}"
    with mock_provider.running(log, latency=0.5) as url:
        study = write_study(tmp_path / f"{name}.toml", url, ["mock-a"], name=name, sample_size=60)
        text = study.read_text().replace("concurrency = 4", "concurrency = 4\nprocesses = 2")
        study.write_text(text)
        serve = start_serve(tmp_path, study, prefect_api, "--every", "3600")
        try:
            token = wait_for(lambda: tree_token(serve.pid), 120, "the watchdog")
            wait_for(lambda: requests(log) >= 8, 240, "judge calls")  # mid-judging: 240 planned
            engine = flow_run_process(serve.pid)
            assert engine, "no flow-run process of serve"
            engine_token = wait_for(lambda: tree_token(engine), 30, "the flow run's watchdog")
        finally:
            killed = time.time()
            serve.kill()
            serve.wait()
        wait_for(
            lambda: not lifecycle.tree(token) and not lifecycle.tree(engine_token),
            10,
            "serve's processes to end",
            every=0.1,
        )
        print(f"serve's processes gone {time.time() - killed:.1f} s after kill -9")
        assert not alive(engine)
        time.sleep(1)
        late = [r for r in mock_provider.read_log(log) if r["t"] > killed]
        print(f"{len(late)} requests after kill -9")
        assert len(late) <= 4, f"{len(late)} requests after kill -9 with 4 in flight at most"
        killed_runs = study_runs(api, name)
        subflows = [r for r in killed_runs if r["parent_task_run_id"]]
        assert subflows and all(owners.OWNER in " ".join(r["tags"]) for r in subflows)

        # the next run of the study: a small sample, its start is what counts
        again = start_run(tmp_path, study, "--sample-size", "2", PREFECT_API_URL=prefect_api)
        out, err = again.communicate(timeout=300)
        assert again.returncode == 0, out + err
    runs = study_runs(api, name)
    states = {r["id"]: r["state_type"] for r in runs}
    print("killed runs:", sorted(states[r["id"]] for r in killed_runs))
    assert len(runs) == 4, runs  # the killed suite run and its subflow, the next run's two
    assert not [r for r in runs if states[r["id"]] in OPEN], err
    assert {states[r["id"]] for r in killed_runs} <= {"CANCELLED", "CRASHED"}
    assert not open_task_runs(api, runs)


def test_next_run_marks_a_subflow_left_running_crashed(tmp_path: Path, prefect_api: str) -> None:
    """kill -9 of `serve` and its flow-run process at once (its process group) and of their
    watchdogs (as when the machine goes: nothing is left to record the runs), then the
    suite run is ended Crashed as a zombie detector would
    (a Prefect automation on missing heartbeats; the flow engine itself when its stop fails),
    its `rating-study` subflow still Running. The next run of the study finds the subflow by
    its owner tag and marks it Crashed, with its task runs; untagged, it stayed Running."""
    api = Api(prefect_api)
    log = tmp_path / "requests.jsonl"
    name = f"orphan-{uuid.uuid4().hex[:8]}"
    with mock_provider.running(log, latency=0.5) as url:
        study = write_study(tmp_path / f"{name}.toml", url, ["mock-a"], name=name, sample_size=60)
        serve = start_serve(tmp_path, study, prefect_api, "--every", "3600")
        try:
            wait_for(lambda: requests(log) >= 8, 240, "judge calls")  # mid-judging
            engine = flow_run_process(serve.pid)
            assert engine, "no flow-run process of serve"
            for pid in (serve.pid, engine):
                dog, _ = wait_for(lambda pid=pid: watchdog(pid), 30, "a watchdog")
                os.kill(dog, signal.SIGKILL)
        finally:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait()
        wait_for(lambda: not alive(engine), 10, "the flow-run process to end", every=0.1)
        killed = study_runs(api, name)
        (suite,) = [r for r in killed if not r["parent_task_run_id"]]
        (subflow,) = [r for r in killed if r["parent_task_run_id"]]
        assert {suite["state_type"], subflow["state_type"]} == {"RUNNING"}
        crashed = {"type": "CRASHED", "name": "Crashed", "message": "no heartbeat"}
        api.post(f"/flow_runs/{suite['id']}/set_state", {"state": crashed, "force": True})

        again = start_run(tmp_path, study, "--sample-size", "2", PREFECT_API_URL=prefect_api)
        out, err = again.communicate(timeout=300)
        assert again.returncode == 0, out + err
    (line,) = [x for x in err.splitlines() if "Crashed: its process" in x]
    assert f"({subflow['id']}) of study {name} Crashed" in line, err
    assert f"its process {engine} on " in line
    marked = api.get(f"/flow_runs/{subflow['id']}")
    assert marked["state_type"] == "CRASHED", marked["state"]
    assert not open_task_runs(api, [marked])  # the judge shard is not left running
