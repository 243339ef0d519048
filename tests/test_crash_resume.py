"""kill -9 at random moments, then resume: the store ends equal to the plan, nothing twice,
and a kill costs at most the calls in flight."""

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
from judgelab.testing.kill_driver import accounting
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow

SECRET = "sk-crash-0123456789abcdefghijklmnopqrstuvwxyz"
STUDY = """
[study]
name = "crash"
task = "sentiment"
benchmark = "vader"
sample_size = 30
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


def _env(data: Path) -> dict[str, str]:
    return {
        **os.environ,
        "JUDGELAB_DATA_DIR": str(data),
        "JUDGELAB_STORE_PART_ROWS": "5",
        "JUDGELAB_DATA_MIRROR": str(mirror_dir()),
        "MOCK_JUDGE_KEY": SECRET,
    }


def _start(args: list[str], data: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", *args],
        cwd=PROJECT_ROOT,
        env=_env(data),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _lines(log: Path) -> int:
    return len(mock_provider.read_log(log)) if log.exists() else 0


def test_kill_nine_at_ten_random_moments_then_resume(tmp_path: Path) -> None:
    """10 kills in the judge stage, 3 while views are published, then `judgelab run`."""
    rng = random.Random(20261201)
    data, log = tmp_path / "data", tmp_path / "requests.jsonl"
    settings = Settings(data_dir=data)
    outputs = []
    with mock_provider.running(
        log, latency=0.3, fault_rate=0.1, retry_after=0.05, hang=5, seed=5
    ) as url:
        study = tmp_path / "crash.toml"
        study.write_text(STUDY.format(url=url))
        planned = _start(["judgelab.cli", "plan", str(study)], data)
        outputs.append(planned.communicate(timeout=300)[0])
        assert planned.returncode == 0, outputs[-1]
        kills = []  # (keys done when killed, mock log length when killed)
        for _ in range(10):
            n_before = _lines(log)
            proc = _start(["judgelab.testing.kill_driver", "judge", str(study)], data)
            deadline = time.time() + 120
            # aim at the judge stage: wait for its first request (or its end)
            while _lines(log) == n_before and proc.poll() is None:
                assert time.time() < deadline, "the judge stage never started"
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 2.0))
            os.killpg(proc.pid, signal.SIGKILL)
            outputs.append(proc.communicate()[0])
            rows = store.read_store(settings.store_dir, ["key"])
            assert rows["key"].n_unique() == rows.height  # no call stored twice
            kills.append((set(store.done_keys(settings.store_dir)["key"]), _lines(log)))
        published = _start(["judgelab.testing.kill_driver", "publish"], data)
        outputs.append(published.communicate(timeout=300)[0])
        for _ in range(3):  # kills while the views are rebuilt: the old ones still answer
            proc = _start(["judgelab.testing.kill_driver", "publish"], data)
            time.sleep(rng.uniform(0.5, 4.0))
            os.killpg(proc.pid, signal.SIGKILL)
            outputs.append(proc.communicate()[0])
            n = warehouse.query(settings, "select count(*) as n from stg_judgments")["n"][0]
            assert n == store.read_store(settings.store_dir, ["key"]).height
        proc = _start(["judgelab.cli", "run", str(study)], data)
        out = proc.communicate(timeout=600)[0]
        outputs.append(out)
        assert proc.returncode == 0, out
    plan = warehouse.read_table(settings, "plan", "crash")
    rows = store.read_store(settings.store_dir)
    assert rows["key"].n_unique() == rows.height == plan["key"].n_unique()
    assert set(rows["key"]) == set(plan["key"])
    partial = [len(done) for done, _ in kills if 0 < len(done) < plan["key"].n_unique()]
    assert len(partial) >= 7, "too few kills landed inside the judge stage to mean anything"
    requests = mock_provider.read_log(log)
    figures = accounting(plan, requests, set(rows["key"]))
    assert figures["lost"] == 0
    # a kill throws away at most the calls in flight (concurrency 4), never finished ones
    assert figures["paid_twice"] <= 4 * len(kills), figures
    # the mock saw no request for a call whose result was durable before a kill
    digest = {
        k: mock_provider.messages_hash(json.loads(m))
        for k, m in plan.select("key", "messages").iter_rows()
    }
    assert set(digest.values()) <= {r["messages"] for r in requests}  # hashes line up
    for done, n_log in kills:
        done_digests = {digest[k] for k in done}
        resent = [r for r in requests[n_log:] if r["messages"] in done_digests]
        assert resent == [], f"{len(resent)} stored calls were sent again"
    # the key never reached a file, a log line or a call key
    for path in data.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert all(SECRET not in o for o in outputs)
    assert all(SECRET not in k for k in plan["key"])
    assert SECRET not in log.read_text()
