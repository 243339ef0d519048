"""Which Parquet parts of the judgment store are trusted. `store.write_part` records each
part's sha256 in the journal's `parts` table before the part appears under its name; every
reader (store.part_files: done_keys, latest_rows, compaction; the stg_judgments view) takes
only parts whose checksum matches that record and whose columns are the judgments schema.
Anything else matching `part-*.parquet` (a garbage file, a part copied in from elsewhere, a
part changed after it was written) is named in one warning and skipped, never deleted.

Stores from before checksums: the first reader or writer that finds the manifest never
filled records every part then present that passes the schema check, once (a `store_meta`
row marks it done); from then on a part without a record is foreign."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from pathlib import Path

import polars as pl

from schemas.judgments import Judgments
from tasks.judging import journal

log = logging.getLogger("judgelab.store")
GLOB = "part-*.parquet"
SCHEMA = {name: col.dtype.type for name, col in Judgments.to_schema().columns.items()}
# columns parts written before endpoints counted, before imports, or before caching and
# batches counted, do not have (read as
# null; `source` as "call", store.read_store)
OPTIONAL = frozenset(
    {
        "base_key",
        "endpoint",
        "source",
        "source_sha256",
        "source_row",
        "cached_tokens",
        "cache_write_tokens",
        "batch_id",
        "probs",
    }
)
ADOPTED = "parts_adopted"  # store_meta key: pre-checksum parts recorded (value: how many)

# per process: a part file's (sha256, schema problem) by its identity and version, so a
# reader hashes each part once, not at every done_keys
_checked: dict[tuple, tuple[str, str | None]] = {}
_warned: set[tuple] = set()


def digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def schema_problem(path: Path) -> str | None:
    """Why this file is not a judgments part (None: its columns and types are the schema's,
    less at most the columns older parts lack)."""
    try:
        found = pl.read_parquet_schema(path)
    except Exception:  # polars' ComputeError / OSError on a file that is not Parquet
        return "not a Parquet file"
    extra = sorted(found.keys() - SCHEMA.keys())
    missing = sorted(SCHEMA.keys() - found.keys() - OPTIONAL)
    wrong = [f"{c} is {found[c]}" for c in SCHEMA if c in found and found[c] != SCHEMA[c]]
    problems = [
        *([f"unknown column(s) {', '.join(extra)}"] if extra else []),
        *([f"no column(s) {', '.join(missing)}"] if missing else []),
        *([f"{'; '.join(wrong)} (schemas/judgments.py)"] if wrong else []),
    ]
    return "; ".join(problems) or None


def _check(path: Path) -> tuple[str, str | None]:
    """(sha256, schema problem) of the file as it is now; FileNotFoundError if it is gone."""
    st = path.stat()
    ident = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    if ident not in _checked:
        _checked[ident] = (digest(path), schema_problem(path))
    return _checked[ident]


def record(store_dir: Path, tmp: Path, name: str) -> None:
    """Record the checksum of a part written to `tmp` that is about to be renamed to `name`:
    recorded first, so no reader ever sees the part without its record."""
    sha = digest(tmp)
    con = journal.connect(store_dir)
    try:
        _adopt_once(con, store_dir)
        con.execute(
            "insert or replace into parts (name, sha256, bytes) values (?, ?, ?)",
            (name, sha, tmp.stat().st_size),
        )
    finally:
        con.close()


def forget(store_dir: Path, names: list[str]) -> None:
    """Drop the records of parts that were deleted (compaction), after deleting them."""
    con = journal.connect(store_dir)
    try:
        con.executemany("delete from parts where name = ?", [(n,) for n in names])
    finally:
        con.close()


def _adopt_once(con: sqlite3.Connection, store_dir: Path) -> None:
    """Record the parts a version without checksums wrote, the first time this store's
    manifest is used: every `part-*.parquet` present that passes the schema check."""
    if con.execute("select 1 from store_meta where key = ?", (ADOPTED,)).fetchall():
        return
    found = []
    for path in sorted(store_dir.glob(GLOB)):
        try:
            sha, problem = _check(path)
        except FileNotFoundError:
            continue
        if problem is None:
            found.append((path.name, sha, path.stat().st_size))
    con.execute("begin immediate")
    try:
        if not con.execute("select 1 from store_meta where key = ?", (ADOPTED,)).fetchall():
            con.executemany(
                "insert or ignore into parts (name, sha256, bytes) values (?, ?, ?)", found
            )
            con.execute(
                "insert into store_meta (key, value) values (?, ?)", (ADOPTED, str(len(found)))
            )
            if found:
                log.info("judgment store: recorded the checksums of %d earlier parts", len(found))
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise


def scan(store_dir: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The store's trusted parts in name order, and every other `part-*.parquet` with why."""
    if not store_dir.is_dir():
        return [], []
    # list, then read the records: a part is recorded before it is renamed in, so every
    # listed part that judgelab wrote has its record by now
    files = sorted(store_dir.glob(GLOB))
    con = journal.connect(store_dir)
    try:
        _adopt_once(con, store_dir)
        known = dict(con.execute("select name, sha256 from parts").fetchall())
    finally:
        con.close()
    good, foreign = [], []
    for path in files:
        try:
            sha, problem = _check(path)
        except FileNotFoundError:  # compacted away since the listing: its rows are elsewhere
            continue
        why = (
            "not written by judgelab (no checksum recorded for it)"
            if path.name not in known
            else "changed since it was written (checksum differs)"
            if known[path.name] != sha
            else None
        )
        if problem:
            why = f"{why}; {problem}" if why else problem
        if why:
            foreign.append((path, why))
        else:
            good.append(path)
    return good, foreign


def verified(store_dir: Path) -> list[Path]:
    """The parts every reader uses; each other part is named in one warning per process."""
    good, foreign = scan(store_dir)
    for path, why in foreign:
        st = path.stat() if path.exists() else None
        ident = (str(path), st.st_mtime_ns if st else None, why)
        if ident not in _warned:
            _warned.add(ident)
            log.warning("skipping part %s: %s; move it out of the store", path, why)
    return good
