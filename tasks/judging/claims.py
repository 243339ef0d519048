"""Claims by call key: a run takes a key before calling it, so no other run pays for it too.

Two runs that plan the same call — a second study with the same judge and items, another
shard, a Dask worker on the same volume — meet here, in the journal's SQLite file (the claim
is one transaction, so taking it is atomic). A claim names its owner (host, pid, a random id)
and expires unless renewed; a claim whose owner is a dead process on this host (pid and start
time, so a pid used again does not count: owners.ended), or whose lease ran out (another
host), is taken over. A run waits for keys a live run holds and then finds
them done in the journal, or takes them over when that run stops without making them.
SQLite locking needs a filesystem with working POSIX locks (local disk, NFSv4 with locks).
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from judgelab import owners
from tasks.judging import journal

TTL_S = 60.0  # a lease not renewed for this long is free to take (the holder renews every TTL/4)


@dataclass(frozen=True)
class Owner:
    label: str  # what the waiting run prints: study · judge · shard
    host: str = field(default_factory=socket.gethostname)
    pid: int = field(default_factory=os.getpid)
    started: str = field(default_factory=lambda: owners.process_start(os.getpid()))
    id: str = field(default_factory=lambda: uuid.uuid4().hex)


def claim(con: sqlite3.Connection, owner: Owner, keys: list[str], ttl: float = TTL_S) -> set[str]:
    """Take every key in `keys` that is free, expired, or held by a dead process on this host;
    returns the keys `owner` holds now (including ones it held before)."""
    now = time.time()
    con.execute("begin immediate")
    try:
        con.execute("create temp table if not exists wanted (key text primary key)")
        con.execute("delete from wanted")
        con.executemany("insert or ignore into wanted values (?)", [(k,) for k in keys])
        others = con.execute(
            "select distinct owner, pid, started from claims where owner != ? and host = ?"
            " and key in (select key from wanted)",
            (owner.id, owner.host),
        ).fetchall()
        dead = [(o,) for o, pid, started in others if owners.ended(pid, started)]
        con.executemany("delete from claims where owner = ?", dead)
        con.execute(
            "delete from claims where expires < ? and key in (select key from wanted)", (now,)
        )
        con.execute(
            "insert or ignore into claims select key, ?, ?, ?, ?, ?, ? from wanted",
            (owner.id, owner.label, owner.host, owner.pid, owner.started, now + ttl),
        )
        mine = con.execute(
            "select key from claims where owner = ? and key in (select key from wanted)",
            (owner.id,),
        ).fetchall()
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    return {k for (k,) in mine}


def holders(con: sqlite3.Connection, keys: list[str]) -> dict[str, int]:
    """Who holds these keys now → {label (host:pid): keys held}."""
    found: dict[str, int] = {}
    for i in range(0, len(keys), 500):
        chunk = keys[i : i + 500]
        rows = con.execute(
            "select label, host, pid, count(*) from claims where key in "
            f"({','.join('?' * len(chunk))}) group by label, host, pid",
            chunk,
        ).fetchall()
        for label, host, pid, n in rows:
            name = f"{label} ({host}:{pid})"
            found[name] = found.get(name, 0) + n
    return found


def renew(con: sqlite3.Connection, owner: Owner, ttl: float = TTL_S) -> None:
    con.execute("update claims set expires = ? where owner = ?", (time.time() + ttl, owner.id))


def release(con: sqlite3.Connection, owner: Owner) -> None:
    con.execute("delete from claims where owner = ?", (owner.id,))


class Lease:
    """Hold `owner`'s claims while a shard runs: renewed in the background, released at exit
    (a killed process leaves them to be taken over)."""

    def __init__(self, store_dir: Path, owner: Owner, ttl: float = TTL_S) -> None:
        self.store_dir, self.owner, self.ttl = store_dir, owner, ttl
        self.con = journal.connect(store_dir)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew, name="claims-renew", daemon=True)

    def _renew(self) -> None:
        con = journal.connect(self.store_dir)
        try:
            while not self._stop.wait(self.ttl / 4):
                renew(con, self.owner, self.ttl)
        finally:
            con.close()

    def claim(self, keys: list[str]) -> set[str]:
        return claim(self.con, self.owner, keys, self.ttl)

    def holders(self, keys: list[str]) -> dict[str, int]:
        return holders(self.con, keys)

    def __enter__(self) -> Lease:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        release(self.con, self.owner)
        self.con.close()
