"""Against a real `prefect server`: a scheduled run (`judgelab serve --every 60`) ends with its
report stage, so the report file exists without any `judgelab run`, and a markdown artifact
on the run names that file and summarises the run; the flow run's name carries the study."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from mockstudy import cli_env, write_study
from prefect_api import Api

from judgelab.settings import PROJECT_ROOT
from judgelab.testing import mock_provider

pytestmark = pytest.mark.slow


def wait_for(check: Callable[[], object], timeout: float, what: str) -> object:
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s waiting for {what}"
        time.sleep(1)
    return result


def finished_runs(api: Api, name: str) -> list[dict]:
    """The deployment's flow runs in a final state (a failed one fails the test below)."""
    try:
        deployment = api.get(f"/deployments/name/{name}")
    except Exception:  # not registered yet
        return []
    return api.post(
        "/flow_runs/filter",
        {
            "deployments": {"id": {"any_": [deployment["id"]]}},
            "flow_runs": {"state": {"type": {"any_": ["COMPLETED", "FAILED", "CRASHED"]}}},
        },
    )


def test_a_scheduled_run_writes_its_report(tmp_path: Path, prefect_api: str) -> None:
    api = Api(prefect_api)
    data = tmp_path / "data"
    env = cli_env(data, prefect_api, PREFECT_RUNNER_POLL_FREQUENCY="2")
    with mock_provider.running(None, latency=0.0) as url:
        # the file's stem names the report and the deployment, the study's name the runs
        study = write_study(tmp_path / "nightly.toml", url, ["mock-a"], "schedrep", 8)
        serve = subprocess.Popen(
            [sys.executable, "-m", "judgelab.cli", "serve", str(study), "--every", "60"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            runs = wait_for(
                lambda: finished_runs(api, "study-suite/nightly"), 240, "a scheduled run"
            )
        finally:
            serve.terminate()
            serve.wait(timeout=60)
    (run,) = runs
    assert run["state_type"] == "COMPLETED", run["state"]
    # one run at a time: a run due while another is going is cancelled, not queued up late
    deployment = api.get("/deployments/name/study-suite/nightly")
    assert deployment["global_concurrency_limit"]["limit"] == 1
    assert deployment["concurrency_options"]["collision_strategy"] == "CANCEL_NEW"
    assert run["name"].startswith("suite-schedrep-")  # the suite run; its subflow: schedrep-

    report = data / "reports" / "nightly.html"
    assert report.is_file() and "schedrep" in report.read_text(encoding="utf-8")
    # the study subflow wrote it; its markdown artifact names the file and sums up the run
    subflows = api.post(
        "/flow_runs/filter", {"flow_runs": {"parent_flow_run_id": {"any_": [run["id"]]}}}
    )
    run_ids = [run["id"], *(r["id"] for r in subflows)]
    found = api.post("/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": run_ids}}})
    (artifact,) = [a for a in found if a["type"] == "markdown"]
    assert artifact["key"] == "report-nightly"
    text = artifact["data"]
    assert str(report.resolve()) in text
    assert "## Calls by outcome" in text and "| schedrep | mock-a | 32 | 0 | 32 | 32 |" in text
    assert "No judge failed." in text
    assert "tbl_rating_performance" in text and "First run of schedrep" in text
