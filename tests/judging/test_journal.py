"""Journal and claims: rows durable at once, compacted once, keys made by one run only."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from judgelab.study import Judge
from judgelab.testing.plan_rows import plan_rows, user_turns
from tasks.judging import claims, journal, store
from tasks.judging.scales import load_scales
from tasks.judging.shard import _run_slice

SCALE = load_scales()["likert7"]


def _row(key: str, status: str = "ok") -> dict:
    return {
        "key": key,
        "model": "fake/hash",
        "status": status,
        "score": 3.0 if status == "ok" else None,
        "raw": '{"score": 3}',
        "answers": "[]",
        "error": None if status == "ok" else "Timeout: slow",
        "attempts": 1,
        "latency_s": 0.1,
        "prompt_tokens": 1,
        "completion_tokens": 1,
        "cost_usd": None,
        "run_id": "r",
        "created_at": datetime.now(UTC),
    }


def _key(i: int) -> str:
    return f"{i:064x}"


def _append(book: journal.Journal, *rows: dict) -> None:
    async def all_rows() -> None:
        await asyncio.gather(*(book.append(r) for r in rows))

    asyncio.run(all_rows())


def test_appended_rows_are_done_before_compaction_and_moved_once(tmp_path: Path) -> None:
    book = journal.Journal(tmp_path)
    _append(book, *(_row(_key(i), "ok" if i else "error") for i in range(5)))
    # a second connection (another process) sees every committed row at once
    assert set(store.done_keys(tmp_path)["key"]) == {_key(i) for i in range(1, 5)}
    assert store.part_files(tmp_path) == []
    assert store.compact_journal(tmp_path) == 5
    assert store.compact_journal(tmp_path) == 0  # nothing left in the journal
    rows = store.read_store(tmp_path)
    assert sorted(rows["key"]) == [_key(i) for i in range(5)]
    assert [f.name[:38] for f in store.part_files(tmp_path)] == [journal.part_name(1, 5) + "-"]
    _append(book, _row(_key(9)))
    assert store.compact_journal(tmp_path) == 1
    assert store.read_store(tmp_path).height == 6


def test_a_compaction_killed_after_writing_its_part_is_not_copied_twice(tmp_path: Path) -> None:
    book = journal.Journal(tmp_path)
    _append(book, *(_row(_key(i)) for i in range(4)))
    con = journal.connect(tmp_path)
    first, last, rows = journal.pending(con)
    # the part landed, then the process died before deleting the journal rows
    store.write_part(tmp_path, store.rows_to_frame(rows), journal.part_name(first, last))
    _append(book, _row(_key(7)))  # a later call, journaled after the crash
    assert store.compact_journal(tmp_path) == 1
    keys = store.read_store(tmp_path)["key"]
    assert keys.n_unique() == keys.len() == 5
    assert journal.pending(con) == (0, 0, [])


def test_claims_are_exclusive_until_released_expired_or_the_owner_dies(tmp_path: Path) -> None:
    con = journal.connect(tmp_path)
    a, b = claims.Owner("study a"), claims.Owner("study b")
    keys = [_key(i) for i in range(10)]
    assert claims.claim(con, a, keys[:6]) == set(keys[:6])
    assert claims.claim(con, b, keys) == set(keys[6:])  # a's keys stay a's
    assert claims.holders(con, keys[:6]) == {f"study a ({a.host}:{a.pid})": 6}
    claims.release(con, a)
    assert claims.claim(con, b, keys) == set(keys)
    # an expired lease (another host's run that stopped renewing) is taken over
    c = claims.Owner("study c", host="elsewhere", pid=1)
    claims.release(con, b)
    assert claims.claim(con, c, keys[:3], ttl=-1.0) == set(keys[:3])
    assert claims.claim(con, a, keys[:3]) == set(keys[:3])
    # a dead process on this host: its claims go at once, before any expiry
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    d = claims.Owner("study d", pid=dead.pid)
    claims.release(con, a)
    assert claims.claim(con, d, keys[:3], ttl=3600) == set(keys[:3])
    assert claims.claim(con, b, keys[:3]) == set(keys[:3])
    # a pid used again (a restarted container): same pid, another start time → gone
    claims.release(con, b)
    reused = claims.Owner("study e", started="1")  # this live pid, but not this process
    assert claims.claim(con, reused, keys[:3], ttl=3600) == set(keys[:3])
    assert claims.claim(con, b, keys[:3]) == set(keys[:3])
    live = claims.Owner("study f")  # this very process: its claims stay
    claims.release(con, b)
    assert claims.claim(con, live, keys[:3], ttl=3600) == set(keys[:3])
    assert claims.claim(con, b, keys[:3]) == set()


def test_a_live_holders_lease_is_renewed_in_the_background(tmp_path: Path) -> None:
    owner = claims.Owner("renewing")
    with claims.Lease(tmp_path, owner, ttl=0.4) as lease:
        assert lease.claim([_key(1)]) == {_key(1)}
        time.sleep(0.8)  # two TTLs: only renewal keeps it
        other = journal.connect(tmp_path)
        assert claims.claim(other, claims.Owner("other", host="elsewhere"), [_key(1)]) == set()
    assert claims.claim(other, claims.Owner("other"), [_key(1)]) == {_key(1)}  # released


def test_two_runs_of_the_same_calls_at_once_make_each_call_once(tmp_path: Path) -> None:
    judge = Judge(name="j", model="fake/hash", concurrency=4)
    rows = plan_rows(judge, user_turns([f"text {i}" for i in range(60)]), SCALE)
    results: list[dict] = []

    def one(label: str, order: list[dict]) -> None:
        counts, _ = _run_slice(judge, order, tmp_path, 7, label, label, poll_s=0.05)
        results.append(counts)

    runs = [
        threading.Thread(target=one, args=("a", rows)),
        threading.Thread(target=one, args=("b", rows[::-1])),
    ]
    for t in runs:
        t.start()
    for t in runs:
        t.join()
    stored = store.read_store(tmp_path)
    assert stored["key"].n_unique() == stored.height == 60  # each call stored once
    assert sum(c.get("ok", 0) for c in results) == 60  # and made once, by one of the runs
    assert journal.pending(journal.connect(tmp_path))[2] == []  # all compacted at the end
    assert pl.DataFrame(claims.holders(journal.connect(tmp_path), list(stored["key"]))).is_empty()
