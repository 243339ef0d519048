"""One study pointed at another server: its stored answers are not reused unnoticed.

Against three mock providers (A, B, C) and a real Prefect server, one judge `openai/mock-a`:
A answers the first run; pointed at B, `run` says in one line that the answers came through
A and that they are made again, and B receives every call; with
reuse_across_endpoints = true at C, the calls go under their base keys (A's and B's rows
are keyed with their endpoints, so C answers them all, and says so); then any other server
reuses C's answers, and `plan` tells a study without the flag that it would reuse them.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from mockstudy import request_digests, run_cli, write_study
from prefect_api import Api

from judgelab.settings import Settings
from judgelab.testing import mock_provider
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow
CALLS = 40  # 10 items × 2 prompt levels × 2 scales


def judgelab(data: Path, *args: str, prefect_api: str) -> subprocess.CompletedProcess:
    proc = run_cli(data, prefect_api, *args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def notes(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if x.startswith("judgelab: note: ")]


def others(line: str) -> set[str]:
    """The endpoints a note says the stored answers came through."""
    return set(line.split("another endpoint (", 1)[1].split(")", 1)[0].split(", "))


def requests(log: Path) -> list[str]:
    return [r["messages"] for r in mock_provider.read_log(log)] if log.exists() else []


def warnings(api: Api, run_id: str) -> list[str]:
    """The flow run's warnings as the UI shows them (logs are sent in the background)."""
    for _ in range(30):
        found = api.post("/logs/filter", {"logs": {"flow_run_id": {"any_": [run_id]}}})
        said = [e["message"] for e in found if e["level"] == 30]
        if said:
            return said
        time.sleep(1)
    return []


def write(folder: Path, url: str, reuse: bool = False) -> str:
    """The one-judge study pointed at `url`, with or without reuse_across_endpoints."""
    path = write_study(folder / "ep.toml", url, ["mock-a"], name="ep")
    if reuse:
        text = path.read_text()
        path.write_text(text.replace("shard_size", "reuse_across_endpoints = true\nshard_size"))
    return str(path)


def test_another_endpoint_makes_its_calls_again_and_says_so(
    tmp_path: Path, prefect_api: str
) -> None:
    data, logs = tmp_path / "data", {s: tmp_path / f"{s}.jsonl" for s in "ABC"}
    with (
        mock_provider.running(logs["A"], latency=0.0) as url_a,
        mock_provider.running(logs["B"], latency=0.0) as url_b,
        mock_provider.running(logs["C"], latency=0.0) as url_c,
    ):
        first = judgelab(data, "run", write(tmp_path, url_a), prefect_api=prefect_api)
        assert notes(first.stderr) == [] and len(requests(logs["A"])) == CALLS

        second = judgelab(data, "run", write(tmp_path, url_b), prefect_api=prefect_api)
        (line,) = notes(second.stderr)
        assert sum("another endpoint" in x for x in second.stderr.splitlines()) == 1  # once
        assert f"{CALLS} planned calls have stored answers made through another endpoint" in line
        assert f"({url_a}); they are made again through {url_b} (" in line
        assert "cannot reuse them" in line  # A's rows are keyed with A's endpoint
        assert f"mock-a: {CALLS} planned, 0 already stored" in second.stdout
        settings = Settings(data_dir=data)
        # and on the study's flow run in the UI, as a warning
        sql = "select run_id from tbl_runs order by started_at desc limit 1"
        (run_id,) = warehouse.query(settings, sql)["run_id"]
        assert line.removeprefix("judgelab: note: ") in warnings(Api(prefect_api), run_id)
        plan = warehouse.read_table(settings, "plan", "ep")
        # every call reached B, once; A got nothing more
        assert sorted(requests(logs["B"])) == sorted(request_digests(plan).values())
        assert len(requests(logs["A"])) == CALLS

        third = judgelab(data, "run", write(tmp_path, url_c, reuse=True), prefect_api=prefect_api)
        (line,) = notes(third.stderr)
        assert others(line) == {url_a, url_b} and f"made again through {url_c} (" in line
        assert len(requests(logs["C"])) == CALLS
        plan = warehouse.read_table(settings, "plan", "ep")
        assert plan["key"].to_list() == plan["base_key"].to_list()
        rows = warehouse.query(
            settings, "select endpoint, count(*) as n from stg_judgments group by 1"
        )
        assert dict(rows.iter_rows()) == {url_a: CALLS, url_b: CALLS, url_c: CALLS}

    # C's answers are under the base keys: with the flag, any server reuses them (nothing
    # missing, no line); without it, the line says the flag would reuse every one
    reused = judgelab(
        data, "plan", write(tmp_path, "http://127.0.0.1:9/v1", reuse=True), prefect_api=prefect_api
    )
    assert notes(reused.stderr) == []
    done = set(store.done_keys(settings.store_dir)["key"])
    assert set(warehouse.read_table(settings, "plan", "ep")["key"]) <= done
    elsewhere = judgelab(
        data, "plan", write(tmp_path, "http://127.0.0.1:9/v1"), prefect_api=prefect_api
    )
    (line,) = notes(elsewhere.stderr)
    assert others(line) == {url_a, url_b, url_c}
    assert line.endswith("set reuse_across_endpoints = true in [study] to reuse them")
