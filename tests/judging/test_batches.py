"""A batch judge (tasks/judging/batches.py) on the mock OpenAI batch provider: the rows an
online run stores, each call paid once through lost replies and shared calls, failed
requests sent again, waiting without CPU."""

from __future__ import annotations

import asyncio
import multiprocessing
import resource
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import polars as pl
import pytest

from judgelab.study import Judge
from judgelab.testing import batch_kills, mock_batches
from judgelab.testing.kill_driver import MOCK_KEY
from judgelab.testing.plan_rows import plan_rows, user_turns
from tasks.judging import batches, journal, store
from tasks.judging.scales import load_scales
from tasks.judging.shard import Lane, run_lanes
from tasks.judging.shard import _calls as shard_calls

SCALE = load_scales()["likert7"]
# what an online and a batch run of the same calls agree on (the rest is provenance)
ANSWER = ["key", "base_key", "model", "endpoint", "status", "score", "raw", "answers"]
ANSWER += ["error", "prompt_tokens", "completion_tokens", "source"]


def judge(url: str, batch: bool = True, **extra: object) -> Judge:
    options = {"timeout": 5, "batch": batch, "batch_poll_s": 0.05} | extra
    return Judge(
        name="mock-judge",
        model="openai/mock-judge",
        api_base=url,
        api_key_env="MOCK_JUDGE_KEY",
        **options,
    )


def rows_for(j: Judge, n: int, prefix: str = "text") -> list[dict]:
    return plan_rows(j, user_turns([f"{prefix} {i}" for i in range(n)]), SCALE)


def run(j: Judge, rows: list[dict], store_dir: Path, run_id: str = "r") -> dict:
    [(counts, halt)] = run_lanes([Lane(j, rows, "test · mock-judge")], store_dir, 100, run_id)
    assert halt is None
    return counts


def in_journal(store_dir: Path) -> list[dict]:
    con = journal.connect(store_dir)
    try:
        return batches.listed(con, only_open=False)
    finally:
        con.close()


def paid(log: Path) -> Counter:
    """Answers per call key in batches (custom_id), and online (None)."""
    return Counter(r["custom_id"] for r in mock_batches.read_log(log) if r["outcome"] == "ok")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOCK_JUDGE_KEY", MOCK_KEY)


def test_a_batch_run_stores_the_rows_an_online_run_stores(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"
    with mock_batches.running(log, delay=0.3) as url:
        online, batch = judge(url, batch=False), judge(url, batch_size=120)
        rows = rows_for(online, 300)
        assert run(online, rows, tmp_path / "online") == {"ok": 300}
        assert run(batch, rows, tmp_path / "batch") == {"ok": 300}
    a, b = store.latest_rows(tmp_path / "online"), store.latest_rows(tmp_path / "batch")
    assert a.select(ANSWER).sort("key").equals(b.select(ANSWER).sort("key"))
    assert a["batch_id"].null_count() == 300 and b["batch_id"].null_count() == 0
    ended = in_journal(tmp_path / "batch")
    assert [(e["n"], e["phase"], e["status"]) for e in ended] == [
        (120, "stored", "completed"),
        (120, "stored", "completed"),
        (60, "stored", "completed"),
    ]
    answers = paid(log)
    assert answers[None] == 300  # the online run
    assert {k: n for k, n in answers.items() if k is not None} == {r["key"]: 1 for r in rows}


def test_a_rerun_makes_no_batch_and_failed_requests_go_in_the_next_one(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"
    with mock_batches.running(log, delay=0.2, fail_share=0.3) as url:
        j = judge(url, max_attempts=2)
        rows_all = rows_for(j, 60)
        counts = run(j, rows_all, tmp_path / "s")
        before = len(in_journal(tmp_path / "s"))
        again = run(j, rows_all, tmp_path / "s")
    # the mock fails the same requests every time: sent twice (max_attempts), then errors
    failing = {r["key"] for r in rows_all} - set(paid(log))
    assert counts["ok"] == 60 - len(failing) and counts["error"] == 2 * len(failing) > 0
    assert before == 2  # one batch, then one of the failed requests
    rows = store.latest_rows(tmp_path / "s")
    assert set(rows.filter(pl.col("status") == "error")["key"]) == failing
    assert rows.filter(pl.col("status") == "error")["error"].str.contains("HTTP 500").all()
    # the rerun sends only the errors, in one new batch each round
    assert again == {"error": 2 * len(failing)}
    assert len(in_journal(tmp_path / "s")) == before + 2
    assert max(paid(log).values()) == 1  # an answered call is never sent again


def test_an_expired_batch_sends_only_the_unanswered_calls_again(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"
    with mock_batches.running(log, delay=0.3, expire_after=0.5) as url:
        j = judge(url, max_attempts=1)
        rows = rows_for(j, 40)
        first = run(j, rows, tmp_path / "s")
        assert first == {"ok": 20}  # the other 20 expired: no row, not an error
        second = run(j, rows, tmp_path / "s")
    assert second == {"ok": 10}
    assert [e["n"] for e in in_journal(tmp_path / "s")] == [40, 20]
    assert max(paid(log).values()) == 1
    assert store.latest_rows(tmp_path / "s").height == 30


def test_a_lost_create_reply_finds_the_batch_instead_of_paying_twice(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"
    with mock_batches.running(log, delay=0.2, lose_create_replies=1) as url:
        j = judge(url)
        rows = rows_for(j, 30)
        assert run(j, rows, tmp_path / "s") == {"ok": 30}
    assert sorted(paid(log).values()) == [1] * 30
    [entry] = in_journal(tmp_path / "s")
    assert entry["batch_id"].startswith("batch_") and entry["phase"] == "stored"


@pytest.mark.parametrize("phase", ["written", "uploaded", "created", "ended"])
def test_a_run_resumes_a_journaled_batch_at_each_phase(tmp_path: Path, phase: str) -> None:
    """The journal as a killed run leaves it at `phase`: the next run goes on from there."""
    log = tmp_path / "answers.jsonl"
    store_dir = tmp_path / "s"
    with mock_batches.running(log, delay=0.2) as url:
        j = judge(url)
        rows = rows_for(j, 25)
        calls = list(shard_calls(rows).values())
        con = journal.connect(store_dir)
        client = batches.Client.of(j)
        [chunk] = batches.chunks(j, calls, client.model)
        entry = batches.write(con, store_dir, j, "killed", chunk)

        async def upto() -> None:
            nonlocal entry
            if phase == "written":
                return
            path = batches.input_file(store_dir, entry["ref"])
            entry = batches.update(
                con, entry["ref"], phase="uploaded", file_id=await client.upload(path)
            )
            batch_id = await client.create(entry["file_id"], entry["ref"])
            if phase == "uploaded":
                return  # created at the provider, its reply never journaled
            entry = batches.update(con, entry["ref"], phase="created", batch_id=batch_id)
            if phase == "ended":
                driver = batches.Driver(con, store_dir, client, "k", 0.05, print, print)
                await driver._poll(entry)

        asyncio.run(upto())
        con.close()
        assert run(j, rows, store_dir) == {"ok": 25}
    assert sorted(paid(log).values()) == [1] * 25
    [entry] = in_journal(store_dir)
    assert entry["phase"] == "stored" and entry["status"] == "completed"


def test_two_runs_sharing_calls_share_one_batch(tmp_path: Path) -> None:
    """Two processes (two studies, say) plan 30 calls in common: one batch carries them."""
    log = tmp_path / "answers.jsonl"
    store_dir = tmp_path / "s"
    store.ensure_store(store_dir)
    with mock_batches.running(log, delay=1.0) as url:
        j = judge(url)
        shared, own = rows_for(j, 30), rows_for(j, 10, "own")
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(2, spawn) as pool:
            runs = [
                pool.submit(batch_kills.judge_rows, j.model_dump_json(), r, str(store_dir), name)
                for r, name in ((shared, "first"), (shared + own, "second"))
            ]
            results = [r.result() for r in runs]
    assert sorted(paid(log).values()) == [1] * 40
    sizes = sorted(e["n"] for e in in_journal(store_dir))
    assert sizes in ([10, 30], [40])  # whoever came first batched the shared calls, once
    assert sum(sum(r.values()) for r in results) == 40


def test_waiting_for_a_batch_holds_no_cpu(tmp_path: Path) -> None:
    """Five more seconds of waiting, polled twice a second, cost little CPU: the wait is a
    sleep between polls (bench/bench_batches.py prints the CPU per poll)."""

    def cpu_s(delay: float, name: str) -> float:
        with mock_batches.running(delay=delay) as url:
            j = judge(url, batch_poll_s=0.5)
            before = resource.getrusage(resource.RUSAGE_SELF)
            assert run(j, rows_for(j, 10, name), tmp_path / name) == {"ok": 10}
            after = resource.getrusage(resource.RUSAGE_SELF)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    cpu_s(1.0, "warm-up")  # imports and first-use costs
    short, long = cpu_s(1.0, "short"), cpu_s(6.0, "long")
    assert long - short < 1.5, f"{long - short:.2f} s of CPU for 5 s more of waiting"


def test_a_provider_without_batches_goes_online_and_says_so(tmp_path: Path, caplog) -> None:
    log = tmp_path / "answers.jsonl"
    with mock_batches.running(log) as url:
        j = judge(url).model_copy(update={"model": "hosted_vllm/mock-judge"})
        with caplog.at_level("WARNING", logger="judgelab.progress"):
            assert run(j, rows_for(j, 5), tmp_path / "s") == {"ok": 5}
    said = [r.getMessage() for r in caplog.records if "batch" in r.getMessage()]
    assert said == [
        "test · mock-judge: litellm has no batch API for hosted_vllm/mock-judge here; "
        "its calls go online"
    ]
    assert paid(log) == {None: 5} and in_journal(tmp_path / "s") == []
    assert batches.provider(judge(url)) == ("openai", "mock-judge")
