"""Against a real `prefect server`: a study run shows in the Prefect API as the UI reads it
(flow run completed, every stage a named task, progress and table artifacts), and a scheduled
deployment picks up a judge added to the study and runs that judge's calls alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from conftest import mirror_dir
from mockstudy import ENV, request_digests, write_study
from prefect_api import Api
from test_flow_e2e import judgelab

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.testing import mock_provider
from tasks import warehouse

pytestmark = pytest.mark.slow

STAGES = {
    "load-benchmark",
    "plan",
    "judge mock-a shard 1/1",  # named by judge (tests/ops/test_ui_names.py)
    "score",
    "analyze",
    "agreement",
    "costs",
    "record-run",
    "publish-views",
    "publish-artifacts",
}


def wait_for(check: Callable[[], object], timeout: float, what: str) -> object:
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s waiting for {what}"
        time.sleep(1)
    return result


def test_study_run_shows_in_the_prefect_api(tmp_path: Path, prefect_api: str) -> None:
    api = Api(prefect_api)
    data = tmp_path / "data"
    with mock_provider.running(latency=0.02) as url:
        study = write_study(tmp_path / "ui.toml", url, ["mock-a"], name="ui")
        judgelab(data, "run", str(study), env={**ENV, "PREFECT_API_URL": prefect_api})
    settings = Settings(data_dir=data)
    (run_id,) = warehouse.query(settings, "select distinct run_id from tbl_runs")["run_id"]
    flow_run = api.get(f"/flow_runs/{run_id}")  # the ledger's run id is the Prefect flow run
    assert flow_run["state_type"] == "COMPLETED"
    tasks = api.post("/task_runs/filter", {"flow_runs": {"id": {"any_": [run_id]}}, "limit": 200})
    names = {t["name"].rsplit("-", 1)[0] if " " not in t["name"] else t["name"] for t in tasks}
    assert names >= STAGES, STAGES - names
    assert {t["state_type"] for t in tasks} == {"COMPLETED"}

    artifacts = api.post("/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": [run_id]}}})
    progress = [a for a in artifacts if a["type"] == "progress"]
    assert progress and all(a["data"] == 100.0 for a in progress)
    assert "40/40 calls" in progress[0]["description"]
    (table,) = api.post(
        "/artifacts/filter", {"artifacts": {"key": {"any_": ["ui-tbl-rating-performance"]}}}
    )
    assert table["type"] == "table" and table["flow_run_id"] == run_id
    shown = pl.DataFrame(json.loads(table["data"]))
    view = warehouse.query(settings, "select * from tbl_rating_performance where study = 'ui'")
    assert shown.height == view.height == 4  # 2 prompts × 2 scales
    assert shown.sort("prompt_level", "scale")["bias"].to_list() == pytest.approx(
        view.sort("prompt_level", "scale")["bias"].to_list()
    )


def _completed_runs(api: Api, deployment_id: str) -> list[dict]:
    return api.post(
        "/flow_runs/filter",
        {
            "deployments": {"id": {"any_": [deployment_id]}},
            "flow_runs": {"state": {"type": {"any_": ["COMPLETED"]}}},
        },
    )


def test_scheduled_run_makes_only_the_new_judges_calls(tmp_path: Path, prefect_api: str) -> None:
    api = Api(prefect_api)
    data, log = tmp_path / "data", tmp_path / "requests.jsonl"
    env = {
        **os.environ,
        **ENV,
        "PREFECT_API_URL": prefect_api,
        "PREFECT_RUNNER_POLL_FREQUENCY": "2",
        "JUDGELAB_DATA_DIR": str(data),
        "JUDGELAB_DATA_MIRROR": str(mirror_dir()),
    }
    with mock_provider.running(log, latency=0.02) as url:
        study = write_study(tmp_path / "sched.toml", url, ["mock-a"], name="sched")
        serve = subprocess.Popen(
            [sys.executable, "-m", "judgelab.cli", "serve", str(study), "--every", "10"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        try:
            deployment = wait_for(
                lambda: _deployment(api, "study-suite/sched"), 120, "the deployment"
            )
            (schedule,) = deployment["schedules"]
            assert schedule["schedule"]["interval"] == 10 and schedule["active"]
            wait_for(lambda: _completed_runs(api, deployment["id"]), 180, "the first run")
            n_first = len(mock_provider.read_log(log))
            # a new model appears: one line in the study file, no code change; the schedule
            # fires again on its own (SQL against the warehouse works while runs write)
            write_study(study, url, ["mock-a", "mock-b"], name="sched")
            wait_for(lambda: _new_judge_ran(data, "mock-b"), 180, "a run with the new judge")
            # that run's last stage: the report and its artifact
            wait_for(
                lambda: any("| sched | mock-b |" in t for t in _report_texts(api)),
                180,
                "the new judge's report",
            )
            # and that run's end (the artifact comes just before it): two runs completed
            wait_for(
                lambda: len(_completed_runs(api, deployment["id"])) >= 2, 120, "the second run"
            )
        finally:
            serve.terminate()
            serve.wait(timeout=60)
    settings = Settings(data_dir=data)
    runs = warehouse.query(settings, "select * from tbl_runs where study = 'sched'")
    order = runs.group_by("run_id").agg(pl.col("finished_at").max()).sort("finished_at")
    first, latest = order["run_id"].to_list()[-2:]
    made = dict(runs.filter(pl.col("run_id") == latest).select("judge", "calls_made").iter_rows())
    assert made == {"mock-a": 0, "mock-b": 40}  # the new judge alone
    assert runs.filter(pl.col("new_judge"))["judge"].to_list() == ["mock-b", "mock-a"]
    assert runs.filter(pl.col("judge") == "mock-a")["calls_made"].sum() == 40  # once in all
    # the provider saw mock-b's 40 requests after the first run, and nothing of mock-a
    later = mock_provider.read_log(log)[n_first:]
    assert {r["model"] for r in later} == {"mock-b"}
    plan = warehouse.read_table(settings, "plan", "sched")
    digests = request_digests(plan.filter(pl.col("judge") == "mock-b"))
    assert sorted(r["messages"] for r in later) == sorted(digests.values())
    # the refreshed views hold the new judge, and "what changed" lists it
    perf = warehouse.query(settings, "select judge from tbl_rating_performance")
    assert set(perf["judge"]) == {"mock-a", "mock-b"}
    changes = warehouse.query(settings, "select * from tbl_changes where study = 'sched'")
    assert changes["run_id"].unique().to_list() == [latest]
    assert changes["previous_run_id"].unique().to_list() == [first]
    new_judge = changes.filter(pl.col("change") == "new judge")
    assert new_judge.select("row_key", "new_value").rows() == [("judge=mock-b", 40.0)]
    new_rows = changes.filter(pl.col("change") == "new row")
    assert new_rows.height > 0 and new_rows["row_key"].str.contains("judge=mock-b").all()
    assert changes.filter(pl.col("change").is_in(["changed", "removed"])).is_empty()
    # every scheduled run ends with the report stage: the file and a markdown artifact per run
    report = data / "reports" / "sched.html"
    assert report.is_file() and "mock-b" in report.read_text(encoding="utf-8")
    texts = _report_texts(api)
    assert len(texts) >= 2
    elsewhere = [t[:400] for t in texts if str(report.resolve()) not in t]
    assert not elsewhere, (report.resolve(), elsewhere)
    assert sum("First run of sched" in t for t in texts) == 1
    assert any("## Calls by outcome" in t and "| sched | mock-b | 40 |" in t for t in texts)
    # suite runs are named by study; one at a time: a run due while another is going is cancelled
    flow_runs = api.post("/flow_runs/filter", {"deployments": {"id": {"any_": [deployment["id"]]}}})
    # a run is named when it starts: those that ran to the end (a run serve's stop cuts
    # short may have started before the engine named it)
    done = [r["name"] for r in flow_runs if r["state_type"] == "COMPLETED"]
    seen = [(r["name"], r["state_type"], r["start_time"]) for r in flow_runs]
    # (two runs ran: tbl_runs above; once serve stops, Prefect may list one of them otherwise)
    assert done and all(name.startswith("suite-sched-") for name in done), seen
    deployment = api.get(f"/deployments/{deployment['id']}")
    assert deployment["global_concurrency_limit"]["limit"] == 1
    assert deployment["concurrency_options"]["collision_strategy"] == "CANCEL_NEW"


def _report_texts(api: Api) -> list[str]:
    """The markdown artifacts the report stage published, one per run."""
    found = api.post("/artifacts/filter", {"artifacts": {"key": {"any_": ["report-sched"]}}})
    return [a["data"] for a in found if a["type"] == "markdown"]


def _deployment(api: Api, name: str) -> dict | None:
    try:
        return api.get(f"/deployments/name/{name}")
    except Exception:
        return None


def _new_judge_ran(data: Path, judge: str) -> bool:
    settings = Settings(data_dir=data)
    if not settings.duckdb_path.exists():
        return False
    sql = "select count(*) as n from tbl_runs where judge = ? and calls_made > 0"
    return warehouse.query(settings, sql, [judge])["n"][0] > 0
