"""kill -9 at random moments, then resume: the store ends equal to the plan, nothing twice."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import mirror_dir

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.testing import mock_provider
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow

SECRET = "sk-crash-0123456789abcdefghijklmnopqrstuvwxyz"
STUDY = """
[study]
name = "crash"
task = "sentiment"
benchmark = "vader"
sample_size = 20
seed = 11
prompt_levels = ["base", "short_icl", "long_icl"]
scales = ["likert7", "bipolar3", "unit", "pct100"]

[[judges]]
name = "mock"
model = "openai/mock-judge"
api_base = "{url}"
api_key_env = "MOCK_JUDGE_KEY"
concurrency = 4
timeout = 2.0
backoff_base = 0.05
"""


def _start(study: Path, data: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "JUDGELAB_DATA_DIR": str(data),
        "JUDGELAB_STORE_BATCH_ROWS": "5",
        "JUDGELAB_DATA_MIRROR": str(mirror_dir()),
        "MOCK_JUDGE_KEY": SECRET,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "judgelab.cli", "run", str(study)],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def test_kill_nine_at_ten_random_moments_then_resume(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    data, log = tmp_path / "data", tmp_path / "requests.jsonl"
    settings = Settings(data_dir=data)
    outputs = []
    with mock_provider.running(
        log, latency=0.3, fault_rate=0.1, retry_after=0.05, hang=5, seed=5
    ) as url:
        study = tmp_path / "crash.toml"
        study.write_text(STUDY.format(url=url))
        kills = []  # (keys stored when killed, mock log length when killed)
        plan_file = warehouse.table_file(settings, "plan", "crash")
        for _ in range(10):
            started = time.time()
            proc = _start(study, data)
            # aim at the judge stage: wait until this run has written its plan (Prefect's
            # first start-up in a fresh PREFECT_HOME alone can take half a minute)
            deadline = started + 180
            while not (plan_file.exists() and plan_file.stat().st_mtime > started):
                assert time.time() < deadline and proc.poll() is None, "plan stage never ran"
                time.sleep(0.05)
            time.sleep(rng.uniform(0.0, 4.0))
            os.killpg(proc.pid, signal.SIGKILL)
            outputs.append(proc.communicate()[0])
            rows = store.read_store(settings.store_dir, ["key"])
            assert rows["key"].n_unique() == rows.height  # no call stored twice
            n_log = len(mock_provider.read_log(log)) if log.exists() else 0
            kills.append((set(rows["key"]), n_log))
        proc = _start(study, data)
        out = proc.communicate(timeout=600)[0]
        outputs.append(out)
        assert proc.returncode == 0, out
    plan = warehouse.read_table(settings, "plan", "crash")
    rows = store.read_store(settings.store_dir)
    assert rows["key"].n_unique() == rows.height == plan["key"].n_unique()
    assert set(rows["key"]) == set(plan["key"])
    partial = {len(stored) for stored, _ in kills if 0 < len(stored) < plan["key"].n_unique()}
    assert len(partial) >= 3, "too few kills landed inside the judge stage to mean anything"
    # the mock saw no request for a call whose result was stored before a kill
    digest = {
        k: mock_provider.messages_hash(json.loads(m))
        for k, m in plan.select("key", "messages").iter_rows()
    }
    requests = mock_provider.read_log(log)
    assert set(digest.values()) <= {r["messages"] for r in requests}  # hashes line up
    for stored, n_log in kills:
        stored_digests = {digest[k] for k in stored}
        resent = [r for r in requests[n_log:] if r["messages"] in stored_digests]
        assert resent == [], f"{len(resent)} stored calls were sent again"
    # the key never reached a file, a log line or a call key
    for path in data.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert all(SECRET not in o for o in outputs)
    assert all(SECRET not in k for k in plan["key"])
    assert SECRET not in log.read_text()
