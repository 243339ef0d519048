"""The drift canary end to end, against a real `prefect server`: a rating study with two
fake judges run "on" three days (JUDGELAB_NOW), plus a rerun on the first day.

  steady  run-to-run noise sd 1 on 1–7, no change          → never flagged
  shifty  noise sd 0.5, +0.5 on 1–7 from 2026-12-03 on     → flagged on 2026-12-03 only

Each bucket pays its canary batch once (the rerun makes 0 canary calls); `tbl_drift` holds
three batches per design; the third day's flow run ends in a Completed state named
"Drifted", with a warning naming the judge on its log, the CLI says it on stderr and exits 0
(on_alert = "warn"), and the webhook gets one POST, on that day only. A `[[rules]]` gate
added to the study then fails a fourth run on that day (no calls): exit 1, the run Failed,
and `judgelab check` says the same.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import polars as pl
import pytest
from conftest import mirror_dir
from mockstudy import cli_env
from prefect_api import Api

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.study import load_study
from tasks import benchmarks, warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow

STUDY = """
[study]
name = "watched"
task = "sentiment"
benchmark = "vader"
sample_size = 60
seed = 3
prompt_levels = ["base"]
scales = ["pct100"]

[study.analysis]
bootstrap = 0

[study.canary]
size = 50
repeats = 2
every = "1d"

[[judges]]
name = "steady"
model = "fake/planted"
concurrency = 16
extra = {{ truth = "{truth}", run_noise = 1.0 }}

[[judges]]
name = "shifty"
model = "fake/planted"
concurrency = 16
extra = {{ truth = "{truth}", run_noise = 0.5, drift = 0.5, drift_from = "2026-12-03" }}
"""


class Hook(BaseHTTPRequestHandler):
    bodies: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        Hook.bodies.append(json.loads(self.rfile.read(length)))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def write_study(tmp_path: Path, settings: Settings) -> Path:
    """The study, with the truth file its planted judges start from (human means on 0..1)."""
    path, truth_file = tmp_path / "watched.toml", tmp_path / "truth.json"
    path.write_text(STUDY.format(truth=truth_file))
    items, _ = benchmarks.load(load_study(path), settings)
    span = pl.col("human_max") - pl.col("human_min")
    truth = items.group_by("text").agg(((pl.col("human_mean") - pl.col("human_min")) / span).mean())
    truth_file.write_text(json.dumps(dict(truth.iter_rows())))
    return path


GATE = """
[[rules]]
name = "shifty stays within 0.2 of its first batch"
view = "tbl_drift"
where = "judge = 'shifty' and batch > 1"
column = "shift"
op = "<="
value = 0.2
"""


def run_on(
    day: str, study: Path, data: Path, api_url: str, hook: str, command: str = "run"
) -> subprocess.CompletedProcess:
    env = cli_env(data, api_url, JUDGELAB_NOW=day, JUDGELAB_ALERT_WEBHOOK=hook)
    return subprocess.run(
        [sys.executable, "-m", "judgelab.cli", command, str(study)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def canary_made(stdout: str, judge: str) -> int:
    (line,) = [x for x in stdout.splitlines() if "canary" in x and f"judge {judge}:" in x]
    return int(line.rsplit(",", 1)[1].split()[0])


def test_canary_pays_once_per_bucket_and_flags_the_planted_shift(
    tmp_path: Path, prefect_api: str
) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data, data_mirror=mirror_dir())
    study = write_study(tmp_path, settings)
    server = HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hook = f"http://127.0.0.1:{server.server_port}/hook"
    posts = []
    try:
        runs = {}
        for day in ["2026-12-01", "2026-12-01", "2026-12-02", "2026-12-03"]:
            proc = run_on(day, study, data, prefect_api, hook)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            first = day not in runs
            runs.setdefault(day, proc)
            # 50 items × 2 repeats × 1 design per judge, paid once per day
            assert canary_made(proc.stdout, "steady") == (100 if first else 0)
            assert canary_made(proc.stdout, "shifty") == (100 if first else 0)
            posts.append(len(Hook.bodies))
    finally:
        server.shutdown()

    assert posts == [0, 0, 0, 1]  # the webhook heard of day 3 only
    assert "shifty" in Hook.bodies[0]["text"] and "steady" not in Hook.bodies[0]["text"]
    alerts = [x for x in runs["2026-12-03"].stderr.splitlines() if x.startswith("judgelab: drift")]
    assert len(alerts) == 1 and "drift in watched: shifty · base · pct100" in alerts[0]
    assert not [x for x in runs["2026-12-02"].stderr.splitlines() if "drift" in x]

    drift = warehouse.query(settings, "select * from tbl_drift where study = 'watched'")
    assert drift.group_by("judge").agg(pl.col("bucket").n_unique())["bucket"].to_list() == [3, 3]
    flagged = drift.filter(pl.col("flagged")).select("judge", "bucket").rows()
    assert flagged == [("shifty", "2026-12-03")]
    shift = drift.filter(pl.col("flagged"))["shift"].item()
    assert 0.3 < shift < 0.6  # +0.5, less where 7 clips it
    alerts_view = warehouse.query(settings, "select judge, bucket from tbl_drift_alerts")
    assert alerts_view.rows() == [("shifty", "2026-12-03")]
    report = (data / "reports" / "watched.html").read_text()
    assert '<section id="drift"' in report and "1 drift alert," in report
    # the store holds each bucket's batch once: 2 judges × 100 calls × 3 days
    canary_keys = warehouse.query(settings, "select key from stg_canary_plan")["key"]
    done = store.done_keys(settings.store_dir)
    assert canary_keys.n_unique() == 600
    assert done.join(canary_keys.to_frame(), on="key", how="semi").height == 600
    # the study's own calls were made on day 1 only
    ledger = warehouse.query(settings, "select run_id, sum(calls_made) n from tbl_runs group by 1")
    assert sorted(ledger["n"].to_list()) == [0, 200, 200, 320]

    # the Prefect UI: day 3's study run is Completed, named "Drifted", with the warning
    api = Api(prefect_api)
    study_runs = api.post(
        "/flow_runs/filter",
        {"flows": {"name": {"any_": ["rating-study"]}}, "sort": "START_TIME_ASC"},
    )
    mine = [r for r in study_runs if r["id"] in set(ledger["run_id"])]
    assert [r["state_name"] for r in mine] == ["Completed", "Completed", "Completed", "Drifted"]
    assert mine[-1]["state_type"] == "COMPLETED"
    for _ in range(30):  # logs are sent in the background
        logs = api.post("/logs/filter", {"logs": {"flow_run_id": {"any_": [mine[-1]["id"]]}}})
        warnings = [x["message"] for x in logs if x["level"] == 30 and "drift" in x["message"]]
        if warnings:
            break
        time.sleep(1)
    assert len(warnings) == 1 and "shifty · base" in warnings[0]

    # the gate: the same rules `judgelab check` runs, at the end of the flow
    study.write_text(study.read_text() + GATE)
    gated = run_on("2026-12-03", study, data, prefect_api, "")
    assert gated.returncode == 1, gated.stdout + gated.stderr
    assert canary_made(gated.stdout, "shifty") == 0
    (failed,) = [x for x in gated.stderr.splitlines() if x.startswith("judgelab: gate: FAIL")]
    assert "shifty stays within 0.2" in failed
    # the gated run is found by its ledger id: other test workers share this server and may
    # have started a later rating-study run
    ledger_after = warehouse.query(settings, "select distinct run_id from tbl_runs")["run_id"]
    (gated_id,) = set(ledger_after) - set(ledger["run_id"])
    (gated_run,) = api.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": [gated_id]}}})
    assert gated_run["state_type"] == "FAILED"
    check = run_on("2026-12-03", study, data, prefect_api, "", command="check")
    assert check.returncode == 1 and check.stdout.startswith("FAIL watched · shifty stays")
