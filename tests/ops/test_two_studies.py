"""Two differently named studies that plan the same calls, started together, pay each call
once: the first to claim a key makes it, the other waits and finds it done."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from mockstudy import cli_env, request_digests, write_study

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.testing import mock_provider
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow


def _start(data: Path, study: Path, prefect_api: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "judgelab.cli", "run", str(study)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=cli_env(data, prefect_api, JUDGELAB_STORE_PART_ROWS="10"),
    )


def test_two_studies_with_the_same_calls_pay_each_call_once(
    tmp_path: Path, prefect_api: str
) -> None:
    data, log = tmp_path / "data", tmp_path / "requests.jsonl"
    with mock_provider.running(log, latency=0.25) as url:
        studies = [
            write_study(tmp_path / f"{n}.toml", url, ["mock-a"], name=n, sample_size=30)
            for n in ("first", "second")
        ]
        procs = [_start(data, s, prefect_api) for s in studies]
        outs = [p.communicate(timeout=600)[0] for p in procs]
    for p, out in zip(procs, outs, strict=True):
        assert p.returncode == 0, out
    settings = Settings(data_dir=data)
    plans = [warehouse.read_table(settings, "plan", n) for n in ("first", "second")]
    assert set(plans[0]["key"]) == set(plans[1]["key"])  # the same 120 calls
    digests = request_digests(plans[0])
    sent = Counter(r["messages"] for r in mock_provider.read_log(log))
    assert set(sent) == set(digests.values())
    assert max(sent.values()) == 1, "a call reached the provider twice"
    rows = store.read_store(settings.store_dir, ["key"])
    assert rows.height == rows["key"].n_unique() == len(digests)
    # both studies' tables hold every call's score
    sql = (
        "select study, count(*) as n from stg_scores where kind = 'judge' and status = 'ok' "
        "group by study order by study"
    )
    scored = warehouse.query(settings, sql)
    assert scored["study"].to_list() == ["first", "second"]
    assert scored["n"].to_list() == [len(digests), len(digests)]
