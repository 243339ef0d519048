"""The judgment store: append-only Parquet part files, each written atomically."""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from schemas.judgments import Judgments
from schemas.validate import validate
from tasks.judging.parse import ERROR

SCHEMA = {name: col.dtype.type for name, col in Judgments.to_schema().columns.items()}


def part_files(store_dir: Path) -> list[Path]:
    return sorted(store_dir.glob("part-*.parquet"))


def read_store(store_dir: Path, columns: list[str] | None = None) -> pl.DataFrame:
    files = part_files(store_dir)
    cols = columns or list(SCHEMA)
    if not files:
        return pl.DataFrame(schema={c: SCHEMA[c] for c in cols})
    # parts written before a column existed read it as null
    return pl.scan_parquet(files, missing_columns="insert").select(cols).collect()


def latest(rows: pl.DataFrame) -> pl.DataFrame:
    """Newest row per key (a retried `error` is superseded by its later result)."""
    return rows.sort("created_at").unique("key", keep="last", maintain_order=True)


def latest_rows(store_dir: Path, columns: list[str] | None = None) -> pl.DataFrame:
    """The newest stored row per key, with `columns` (all when None)."""
    cols = None if columns is None else list(dict.fromkeys([*columns, "created_at"]))
    return latest(read_store(store_dir, cols))


def done_keys(store_dir: Path) -> pl.DataFrame:
    """Keys whose newest row is final (anything but `error`): these are never called again."""
    rows = latest(read_store(store_dir, ["key", "status", "created_at"]))
    return rows.filter(pl.col("status") != ERROR).select("key")


def ensure_store(store_dir: Path) -> None:
    """Create the folder with one empty part so SQL views over it always bind."""
    store_dir.mkdir(parents=True, exist_ok=True)
    if not part_files(store_dir):
        write_part(store_dir, pl.DataFrame(schema=SCHEMA))


def write_part(store_dir: Path, frame: pl.DataFrame) -> Path:
    """Validate and write one part atomically: a crash leaves nothing or the whole part."""
    frame = validate(frame.select(list(SCHEMA)), Judgments)
    store_dir.mkdir(parents=True, exist_ok=True)
    name = f"part-{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{uuid.uuid4().hex[:8]}.parquet"
    tmp = store_dir / f".tmp-{name}"
    frame.write_parquet(tmp)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, store_dir / name)
    return store_dir / name


def rows_to_frame(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=SCHEMA)


def compact(store_dir: Path) -> Path:
    """Rewrite the store as one part holding the newest row per key. The new part lands
    before the old ones are removed, so a crash in between only leaves rows `latest` hides."""
    old = part_files(store_dir)
    new = write_part(store_dir, latest(read_store(store_dir)))
    for f in old:
        f.unlink()
    return new
