"""Against a real `prefect server`: the UI answers the operator — flow runs are named by study
and start minute (the suite's own run `suite-…`) and tagged with the study, judge shards by
judge and shard, and each shard's progress lines (a warning when calls failed) are on its
run's Logs tab while the terminal prints each line once."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

import pytest
from mockstudy import run_cli, write_study
from prefect_api import Api

from judgelab import owners
from judgelab.testing import mock_provider

pytestmark = pytest.mark.slow

# the closing line of each shard: calls done / planned of that shard
LAST_LINE = re.compile(r"uinames · mock-a · shard (\d)/2: (\d+)/(\d+) calls .*, (\d+) failed$")


def progress_logs(api: Api, run_id: str, timeout: float = 30) -> list[dict]:
    """The run's closing progress lines, once both shards' have reached the server."""
    deadline = time.monotonic() + timeout
    while True:
        logs = api.post("/logs/filter", {"logs": {"flow_run_id": {"any_": [run_id]}}})
        found = [g for g in logs if LAST_LINE.search(g["message"])]
        if len(found) >= 2 or time.monotonic() > deadline:
            return found
        time.sleep(1)


def test_runs_are_named_and_progress_reaches_the_logs(tmp_path: Path, prefect_api: str) -> None:
    api = Api(prefect_api)
    data = tmp_path / "data"
    with mock_provider.running(None, latency=0.0, fail_share=0.15) as url:
        # the study's name, not the file's stem, names the runs; 40 calls in 2 shards
        study = write_study(tmp_path / "some_file.toml", url, ["mock-a"], "uinames", 10, 20)
        proc = run_cli(data, prefect_api, "run", str(study))
    assert proc.returncode == 0, proc.stderr

    runs = api.post("/flow_runs/filter", {"flow_runs": {"name": {"like_": "uinames-"}}})
    assert len(runs) == 2  # the suite and its study subflow
    (study_run,) = [r for r in runs if r["parent_task_run_id"]]
    (suite_run,) = [r for r in runs if not r["parent_task_run_id"]]
    # two names, not one twice; and the study's tag on both, for filtering in the UI
    assert re.fullmatch(r"uinames-\d{8}-\d{4}", study_run["name"]), runs
    assert re.fullmatch(r"suite-uinames-\d{8}-\d{4}", suite_run["name"]), runs
    assert all(owners.STUDY + "uinames" in r["tags"] for r in runs), runs

    tasks = api.post(
        "/task_runs/filter", {"flow_runs": {"id": {"any_": [study_run["id"]]}}, "limit": 200}
    )
    shards = {t["id"]: t["name"] for t in tasks if t["name"].startswith("judge ")}
    assert sorted(shards.values()) == ["judge mock-a shard 1/2", "judge mock-a shard 2/2"]

    lines = progress_logs(api, study_run["id"])
    assert len(lines) == 2, [g["message"] for g in lines]
    done = failed = 0
    for log in lines:
        shard, made, planned, fails = LAST_LINE.search(log["message"]).groups()
        assert made == planned
        # on the Logs tab of the shard's own task run
        assert shards[log["task_run_id"]] == f"judge mock-a shard {shard}/2"
        assert log["level"] == (logging.WARNING if int(fails) else logging.INFO)
        assert proc.stderr.count(log["message"]) == 1  # printed once on the terminal
        done, failed = done + int(made), failed + int(fails)
    assert done == 40
    assert failed > 0  # the mock failed some calls: a shard's closing line is a warning
