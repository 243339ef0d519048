"""Against a real `prefect server`: a judge the provider refuses (401) or that fails too many
calls turns the run red: exit code 1, one line naming the judge, the status and the fix, the
flow run Failed with a warning naming the judge, and the other judges' results published."""

from __future__ import annotations

import time
from pathlib import Path

import polars as pl
import pytest
from mockstudy import run_cli, write_study
from prefect_api import Api

from judgelab.settings import Settings
from judgelab.testing import mock_provider
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow


def judgelab_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("judgelab: ")]


def flow_logs(api: Api, run_id: str) -> list[dict]:
    """The flow run's logs, as the UI's log tab reads them (sent in the background: wait)."""
    for _ in range(30):
        logs = api.post("/logs/filter", {"logs": {"flow_run_id": {"any_": [run_id]}}})
        if logs:
            return logs
        time.sleep(1)
    return []


def test_all_401_judge_fails_the_run_loudly(tmp_path: Path, prefect_api: str) -> None:
    api = Api(prefect_api)
    data, log = tmp_path / "data", tmp_path / "requests.jsonl"
    with mock_provider.running(log, latency=0.01, refuse="mock-bad=401") as url:
        study = write_study(tmp_path / "loud.toml", url, ["mock-a", "mock-bad"], name="loud")
        proc = run_cli(data, prefect_api, "run", str(study))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (line,) = judgelab_lines(proc.stderr)
    assert "'mock-bad'" in line and "401" in line and "$MOCK_JUDGE_KEY" in line, line
    assert "Traceback" not in proc.stderr
    assert sum("'mock-bad'" in x for x in proc.stderr.splitlines()) == 1  # said once
    # the bad key cost three requests, not one per call; its 40 calls stay missing
    refused = [r for r in mock_provider.read_log(log) if r["model"] == "mock-bad"]
    assert len(refused) == 3 and {r["outcome"] for r in refused} == {"refused_401"}
    settings = Settings(data_dir=data)
    assert store.done_keys(settings.store_dir).height == 40  # mock-a's calls only
    # the good judge's results are published all the same
    sql = "select * from tbl_rating_performance where judge = 'mock-a'"
    perf = warehouse.query(settings, sql)
    assert perf.height == 4 and perf["bias"].is_not_null().all()  # 2 prompts × 2 scales
    assert "mock-a: 40 planned" in proc.stdout
    # the Prefect UI: the study's flow run (the ledger's run id) and the suite run Failed,
    # with a warning on the study run naming judge and status
    (run_id,) = warehouse.query(settings, "select distinct run_id from tbl_runs")["run_id"]
    flow_run = api.get(f"/flow_runs/{run_id}")
    assert flow_run["state_type"] == "FAILED"
    suite_id = api.get(f"/task_runs/{flow_run['parent_task_run_id']}")["flow_run_id"]
    assert api.get(f"/flow_runs/{suite_id}")["state_type"] == "FAILED"
    warnings = [
        entry["message"]
        for entry in flow_logs(api, run_id)
        if entry["level"] == 30 and "'mock-bad'" in entry["message"]
    ]
    assert warnings and "401" in warnings[0]
    ledger = warehouse.query(settings, "select judge, calls_made, calls_failed from tbl_runs")
    assert dict(ledger.select("judge", "calls_failed").iter_rows()) == {"mock-a": 0, "mock-bad": 3}


def test_failure_share_decides_the_exit_code(tmp_path: Path, prefect_api: str) -> None:
    """About 30% of calls fail on every attempt: red at the default max_failure_share 0.2,
    green at 0.5 (the failed calls are stored as errors either way)."""
    codes, shares = {}, {}
    with mock_provider.running(None, latency=0.0, fail_share=0.3) as url:
        for limit in (None, 0.5):
            study = write_study(tmp_path / f"share{limit}.toml", url, ["mock-a"], name="share")
            text = study.read_text().replace("timeout", "max_attempts = 2\ntimeout")
            if limit is not None:
                text = text.replace("shard_size", f"max_failure_share = {limit}\nshard_size")
            study.write_text(text)
            data = tmp_path / f"data{limit}"
            proc = run_cli(data, prefect_api, "run", str(study))
            codes[limit] = proc.returncode
            rows = store.read_store(Settings(data_dir=data).store_dir)
            shares[limit] = rows.filter(pl.col("status") == "error").height / rows.height
            if limit is None:
                (line,) = judgelab_lines(proc.stderr)
                assert "'mock-a'" in line and "max_failure_share 20%" in line, line
    assert all(0.2 < s < 0.5 for s in shares.values()), shares
    assert codes == {None: 1, 0.5: 0}, codes


def test_unreachable_api_base_names_its_cause_everywhere(tmp_path: Path, prefect_api: str) -> None:
    """A judge whose api_base nothing listens on: the cause and its count are in the CLI's
    line, the warning on the study's flow run, the run's summary artifact; fail% counts the
    unanswered calls; and no log entry of either run is a repr or a traceback."""
    api = Api(prefect_api)
    dead = "http://127.0.0.1:9/v1"  # the discard port: connection refused
    study = write_study(tmp_path / "deadbase.toml", dead, ["mock-dead"], name="deadbase")
    study.write_text(study.read_text().replace("timeout", "max_attempts = 2\ntimeout"))
    proc = run_cli(tmp_path / "data", prefect_api, "run", str(study))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    cause = f"Connection error to {dead} ×40"  # 10 items × 2 prompts × 2 scales
    (line,) = judgelab_lines(proc.stderr)
    assert "'mock-dead'" in line and "40 of 40 calls failed" in line and cause in line, line
    fail_pct = [x for x in proc.stdout.splitlines() if "mock-dead" in x and "┆" in x]
    assert len(fail_pct) == 4 and all("┆ 100.0 ┆" in x for x in fail_pct), proc.stdout

    settings = Settings(data_dir=tmp_path / "data")
    (run_id,) = warehouse.query(settings, "select distinct run_id from tbl_runs")["run_id"]
    suite_id = api.get(f"/task_runs/{api.get(f'/flow_runs/{run_id}')['parent_task_run_id']}")
    warnings = [g["message"] for g in flow_logs(api, run_id) if g["level"] == 30]
    assert any(cause in m and "'mock-dead'" in m for m in warnings), warnings
    for flow_run_id in (run_id, suite_id["flow_run_id"]):
        logs = flow_logs(api, flow_run_id)
        assert any(g["level"] == 40 for g in logs)  # the run's exception, logged
        for entry in logs:
            message = entry["message"]
            assert "\n" not in message and "JudgeFailure(" not in message, message
            assert "{'study'" not in message and "Traceback" not in message, message

    (artifact,) = api.post(
        "/artifacts/filter",
        {"artifacts": {"key": {"any_": ["report-deadbase"]}, "flow_run_id": {"any_": [run_id]}}},
    )
    assert f"): {cause} — " in artifact["data"], artifact["data"]
