"""The journal: every finished judge call is committed here before its slot takes the next one.

One SQLite file in WAL mode beside the Parquet store, shared by every process that judges
into that store (shards, process pools, other studies, Dask workers on the same volume).
A commit takes ~30 µs (synchronous=NORMAL: survives a killed process; an OS crash or power
loss can drop the last commits) or ~220 µs (`full`: fsync each); bench/bench_journal.py
measures both and fsync'd JSON lines. Readers never see the journal: `store.compact_journal`
moves its rows into Parquet parts named by the journal's sequence range, then deletes them,
so a crash between the two steps is undone by the next compaction, not copied twice.
The same file holds the key claims (claims.py), the checksum of every Parquet part
(parts.py) and the phases of provider batches (batches.py).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import queue
import re
import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import Literal

from judgelab import oserrors

FILE = "journal.sqlite"
Sync = Literal["normal", "full"]
PART = re.compile(r"^part-j(\d{15})-(\d{15})-")

_SCHEMA = """
create table if not exists results (
    seq integer primary key autoincrement,
    key text not null,
    status text not null,
    row text not null
);
create index if not exists results_key on results (key);
create table if not exists claims (
    key text primary key,
    owner text not null,
    label text not null,
    host text not null,
    pid integer not null,
    started text not null,
    expires real not null
);
create index if not exists claims_owner on claims (owner);
create table if not exists parts (
    name text primary key,
    sha256 text not null,
    bytes integer not null
);
create table if not exists batches (
    ref text primary key,
    label text not null,
    judge text not null,
    model text not null,
    api_base text,
    endpoint text,
    api_key_env text,
    n integer not null,
    phase text not null,
    file_id text,
    batch_id text,
    output_file_id text,
    error_file_id text,
    status text,
    done integer not null default 0,
    failed integer not null default 0,
    created real not null,
    updated real not null
);
create table if not exists batch_calls (
    ref text not null,
    key text not null,
    base_key text,
    scale text not null,
    primary key (ref, key)
);
create index if not exists batch_calls_key on batch_calls (key);
create table if not exists store_meta (
    key text primary key,
    value text not null
);
"""


def connect(store_dir: Path, sync: Sync = "normal") -> sqlite3.Connection:
    """A connection in autocommit mode (each statement commits unless inside `begin`)."""
    store_dir.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(
        store_dir / FILE, timeout=60, isolation_level=None, check_same_thread=False
    )
    # switching to WAL and creating tables ignore the busy timeout: one process at a time
    with open(store_dir / f".{FILE}.init-lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            con.execute("pragma journal_mode=wal")
            con.executescript(_SCHEMA)
        except sqlite3.Error as exc:  # "unable to open database file": the OS says why
            err = oserrors.probe(store_dir / FILE, exc)  # while every descriptor is held
            con.close()
            if err is None:
                raise
            raise err from exc
    con.execute(f"pragma synchronous={sync}")
    return con


def encode(row: dict) -> str:
    created = row["created_at"]
    return json.dumps(
        {**row, "created_at": created.isoformat() if isinstance(created, datetime) else created},
        ensure_ascii=False,
    )


def _decode(text: str) -> dict:
    row = json.loads(text)
    row["created_at"] = datetime.fromisoformat(row["created_at"])
    return row


class Journal:
    """Append finished calls from an event loop: `await journal.append(row)` returns once the
    row is committed. One writer thread commits whatever rows are waiting in one transaction
    (group commit), so the loop never blocks on SQLite or on the GIL hand-off around it."""

    def __init__(self, store_dir: Path, sync: Sync = "normal") -> None:
        self.con = connect(store_dir, sync)
        self.waiting: queue.SimpleQueue = queue.SimpleQueue()
        self.writer = threading.Thread(target=self._write, name="journal", daemon=True)
        self.writer.start()

    async def append(self, row: dict) -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self.waiting.put((row, done, loop))
        await done

    def _write(self) -> None:
        while (item := self.waiting.get()) is not None:
            batch = [item]
            while not self.waiting.empty() and (item := self.waiting.get()) is not None:
                batch.append(item)
            try:
                with self.con:  # one transaction: committed (or rolled back) at the end
                    self.con.execute("begin")
                    self.con.executemany(
                        "insert into results (key, status, row) values (?, ?, ?)",
                        [(r["key"], r["status"], encode(r)) for r, _, _ in batch],
                    )
                error = None
            except Exception as exc:  # every waiting worker sees the failure
                error = exc
            for _, done, loop in batch:
                loop.call_soon_threadsafe(_settle, done, error)
            if item is None:
                return

    def close(self) -> None:
        self.waiting.put(None)
        self.writer.join()
        self.con.close()


def _settle(done: asyncio.Future, error: Exception | None) -> None:
    if not done.cancelled():
        done.set_exception(error) if error else done.set_result(None)


def exists(store_dir: Path) -> bool:
    return (store_dir / FILE).exists()


def pending(con: sqlite3.Connection) -> tuple[int, int, list[dict]]:
    """The journaled rows not yet compacted → (first seq, last seq, rows); (0, 0, []) if none.
    Rows committed after this read have a higher seq (SQLite serialises writers)."""
    found = con.execute("select seq, row from results order by seq").fetchall()
    if not found:
        return 0, 0, []
    return found[0][0], found[-1][0], [_decode(text) for _, text in found]


def forget(con: sqlite3.Connection, ranges: list[tuple[int, int]]) -> None:
    """Delete journaled rows whose seq lies in one of `ranges` (already in a Parquet part)."""
    con.executemany("delete from results where seq between ? and ?", ranges)


def part_name(first: int, last: int) -> str:
    return f"part-j{first:015d}-{last:015d}"


def covered(names: list[str]) -> list[tuple[int, int]]:
    """Sequence ranges of the parts compaction wrote (from their file names)."""
    return [(int(m[1]), int(m[2])) for n in names if (m := PART.match(n))]


def done(con: sqlite3.Connection) -> list[str]:
    """Keys with a final (non-error) journaled row."""
    return [k for (k,) in con.execute("select distinct key from results where status != 'error'")]
