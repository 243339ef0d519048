"""Scale-out on Dask: a 3-process local cluster judges one study; every planned call is stored
exactly once and the provider receives each request once."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from mockstudy import ENV, request_digests, write_study
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from judgelab.testing import mock_provider
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow


def test_three_dask_workers_make_each_call_once(tmp_path: Path, prefect_api: str) -> None:
    data, log = tmp_path / "data", tmp_path / "requests.jsonl"
    with mock_provider.running(log, latency=0.05) as url:
        study = write_study(tmp_path / "ops.toml", url, ["mock-a", "mock-b"], shard_size=10)
        env = {
            **ENV,
            "JUDGELAB_RUNNER": "dask",
            "JUDGELAB_DASK_WORKERS": "3",
            "PREFECT_API_URL": prefect_api,
        }
        out = judgelab(data, "run", str(study), env=env)
        rerun = judgelab(data, "run", str(study), env=env)
    assert re.search(r"shards ran on 3 workers", out), out
    plan = warehouse.read_table(Settings(data_dir=data), "plan", "ops")
    assert plan["key"].n_unique() == 80  # 10 items × 2 prompts × 2 scales × 2 judges
    rows = store.read_store(Settings(data_dir=data).store_dir, ["key", "status"])
    rows = rows.filter(rows["key"].is_in(plan["key"].implode()))
    assert rows.height == rows["key"].n_unique() == 80  # stored exactly once
    assert set(rows["status"]) == {"ok"}
    # a request is its model and messages (both judges get the same prompts)
    sent = Counter((r["model"], r["messages"]) for r in mock_provider.read_log(log))
    digests = request_digests(plan)
    assert set(sent) == {(m, digests[k]) for k, m in plan.select("key", "judge").iter_rows()}
    assert max(sent.values()) == 1  # no request reached the provider twice
    assert "0 judge calls made" in rerun and "shards ran" not in rerun
