"""The judgment store: append-only Parquet part files, each written atomically, fed by the
journal (journal.py) that holds each call from the moment it finishes."""

from __future__ import annotations

import fcntl
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from judgelab import tempfiles
from schemas.judgments import Judgments
from schemas.validate import validate
from tasks.judging import journal, parts
from tasks.judging.parse import ERROR

SCHEMA = parts.SCHEMA


def part_files(store_dir: Path) -> list[Path]:
    """The parts readers use: those whose checksum and schema check out (parts.py); any
    other `part-*.parquet` is named in a warning and skipped."""
    return parts.verified(store_dir)


def read_store(store_dir: Path, columns: list[str] | None = None) -> pl.DataFrame:
    files = part_files(store_dir)
    cols = columns or list(SCHEMA)
    if not files:
        return pl.DataFrame(schema={c: SCHEMA[c] for c in cols})
    # parts written before a column existed read it as null; before imports, every row was
    # a call
    frame = pl.scan_parquet(files, schema=SCHEMA, missing_columns="insert").select(cols)
    return with_source(frame).collect()


def with_source(frame: pl.LazyFrame) -> pl.LazyFrame:
    """Rows without a `source` (parts and journal rows written before imports) are calls."""
    if "source" not in frame.collect_schema():
        return frame
    return frame.with_columns(pl.col("source").fill_null("call"))


def latest(rows: pl.DataFrame) -> pl.DataFrame:
    """Newest row per key, whatever the older row's status: a retried `error` is superseded
    by its later result, an imported answer by the file's edited one."""
    return rows.sort("created_at").unique("key", keep="last", maintain_order=True)


def latest_rows(store_dir: Path, columns: list[str] | None = None) -> pl.DataFrame:
    """The newest stored row per key, with `columns` (all when None); calls still in the
    journal (a killed run's, or one that made no call this time) are moved in first."""
    compact_journal(store_dir)
    cols = None if columns is None else list(dict.fromkeys([*columns, "created_at"]))
    return latest(read_store(store_dir, cols))


def run_errors(store_dir: Path, run_id: str) -> pl.DataFrame:
    """The calls run `run_id` stored as `error` (key, error, created_at), oldest first;
    calls still in the journal are moved in first."""
    compact_journal(store_dir)
    rows = read_store(store_dir, ["key", "status", "error", "run_id", "created_at"])
    mine = rows.filter((pl.col("run_id") == run_id) & (pl.col("status") == ERROR))
    return mine.sort("created_at").select("key", "error", "created_at")


def done_keys(store_dir: Path) -> pl.DataFrame:
    """Keys whose newest row is final (anything but `error`): these are never called again.
    Includes calls still in the journal (finished by a run that is running or was killed)."""
    journaled = pl.DataFrame(schema={"key": pl.String})
    if journal.exists(store_dir):  # first: a row compacted meanwhile is in a part by then
        con = journal.connect(store_dir)
        try:
            journaled = pl.DataFrame({"key": journal.done(con)}, schema={"key": pl.String})
        finally:
            con.close()
    rows = latest(read_store(store_dir, ["key", "status", "created_at"]))
    keys = rows.filter(pl.col("status") != ERROR).select("key")
    return pl.concat([keys, journaled]).unique("key", maintain_order=True)


def ensure_store(store_dir: Path) -> None:
    """Create the folder with one empty part so SQL views over it always bind."""
    store_dir.mkdir(parents=True, exist_ok=True)
    if not part_files(store_dir):
        write_part(store_dir, pl.DataFrame(schema=SCHEMA))


def write_part(store_dir: Path, frame: pl.DataFrame, prefix: str | None = None) -> Path:
    """Validate and write one part atomically: a crash leaves nothing or the whole part. Its
    checksum is recorded before the rename, so readers never see it unrecorded."""
    frame = validate(frame.select(list(SCHEMA)), Judgments)
    store_dir.mkdir(parents=True, exist_ok=True)
    prefix = prefix or f"part-{datetime.now(UTC):%Y%m%dT%H%M%S%f}"
    name = f"{prefix}-{uuid.uuid4().hex[:8]}.parquet"
    # a failed write (disk full) leaves no temp file, and its error names the part
    with tempfiles.replacing(store_dir / name) as tmp:
        frame.write_parquet(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        parts.record(store_dir, tmp, name)
    return store_dir / name


def rows_to_frame(rows: list[dict]) -> pl.DataFrame:
    """Journal rows as a part (rows journaled before imports have no `source`: calls)."""
    return with_source(pl.DataFrame(rows, schema=SCHEMA).lazy()).collect()


@contextmanager
def _one_compactor(store_dir: Path, wait: bool) -> Iterator[bool]:
    """Hold the store's compaction lock (a process that dies drops it); yields False when
    `wait` is off and another process holds it."""
    store_dir.mkdir(parents=True, exist_ok=True)
    with open(store_dir / ".compact.lock", "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True


def _move_journal(store_dir: Path) -> int:
    con = journal.connect(store_dir)
    try:
        journal.forget(con, journal.covered([f.name for f in part_files(store_dir)]))
        first, last, rows = journal.pending(con)
        if not rows:
            return 0
        write_part(store_dir, rows_to_frame(rows), journal.part_name(first, last))
        journal.forget(con, [(first, last)])
        return len(rows)
    finally:
        con.close()


def compact_journal(store_dir: Path, wait: bool = True) -> int:
    """Move the journal's rows into one Parquet part and delete them from the journal; returns
    the rows moved. One compactor at a time (`wait=False`: return 0 if another is at work).
    The part is named by its journal sequence range, so rows a crashed compaction already
    wrote are deleted, never written twice."""
    if not journal.exists(store_dir):
        return 0
    with _one_compactor(store_dir, wait) as mine:
        return _move_journal(store_dir) if mine else 0


def compact(store_dir: Path) -> Path:
    """Rewrite the store as one part holding the newest row per key. The new part lands
    before the old ones are removed, so a crash in between only leaves rows `latest` hides."""
    with _one_compactor(store_dir, wait=True):
        if journal.exists(store_dir):
            _move_journal(store_dir)
        old = part_files(store_dir)
        new = write_part(store_dir, latest(read_store(store_dir)))
        for f in old:
            f.unlink()
        parts.forget(store_dir, [f.name for f in old])  # after: a listed part has its record
    return new
