"""Reading imported files: which files an `[[imports]]` table names (a glob relative to the
study file, or `<source>:<path>` fetched checksum-verified through tasks/sources.py), and the
fields it maps, as a frame of strings per record. The only module here that touches files."""

from __future__ import annotations

import glob
import hashlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from judgelab.import_specs import Import
from judgelab.settings import Settings
from judgelab.study import SOURCE
from schemas.validate import TableError
from tasks import sources
from tasks.imports import paths

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}
INDEX, ROW = "_index", "_row"  # a record's 0-based index and 1-based number in its file


@dataclass(frozen=True)
class ImportFile:
    """One file an import reads: where it is, how messages name it, what its path says."""

    path: Path
    shown: str  # the name in messages: the path as found, or `<source>:<path>`
    parts: tuple[tuple[str, str], ...]  # the pattern's {name} → this file's path part


def files(spec: Import, settings: Settings) -> list[ImportFile]:
    """The files of an import, sorted, each matched against its pattern."""
    if SOURCE.match(spec.files):
        found = _source_files(spec.files, settings)
    else:
        hits = sorted(glob.glob(spec.files))
        if not hits:
            what = "no file matches" if glob.has_magic(spec.files) else "file does not exist"
            raise TableError(f"{spec.files}: {what} (imports.files)")
        found = [(Path(h), h) for h in hits]
    out = []
    for path, shown in found:
        parts: dict[str, str] = {}
        if spec.pattern is not None:
            m = paths.pattern(spec.pattern).search(
                shown.partition(":")[2] if SOURCE.match(shown) else shown
            )
            if m is None:
                raise TableError(
                    f"{shown}: the path does not match pattern {spec.pattern!r} (imports.pattern)"
                )
            parts = m.groupdict()
        out.append(ImportFile(path, shown, tuple(parts.items())))
    return out


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob over `/`-separated paths: `*`, `?` and `[…]` / `[!…]` stay inside one path part
    (`evaluators/*/[!R]*/result.json`: every strategy folder not starting with R)."""
    out, pos = [], 0
    for m in re.finditer(r"\*|\?|\[(!?)([^\]/]+)\]", pattern):
        out.append(re.escape(pattern[pos : m.start()]))
        if m[0] == "*":
            out.append("[^/]*")
        elif m[0] == "?":
            out.append("[^/]")
        else:
            out.append(f"[{'^/' if m[1] else ''}{re.escape(m[2])}]")
        pos = m.end()
    out.append(re.escape(pattern[pos:]))
    return re.compile("".join(out) + "$")


def _source_files(files: str, settings: Settings) -> list[tuple[Path, str]]:
    """`<source>:<glob>` → the manifest's files of that source matching the glob, fetched."""
    name, _, pattern = files.partition(":")
    catalog = sources.load_manifest(sources.MANIFEST)
    if name not in catalog:
        raise TableError(
            f"{files}: unknown source {name!r}; known: {', '.join(sorted(catalog))} "
            "(data/sources.toml)"
        )
    match = _glob_regex(pattern)
    listed = [f for f in catalog[name] if match.match(f.mirror_path)]
    if not listed:
        raise TableError(f"{files}: no file of source {name!r} matches (imports.files)")
    return [(sources.fetch_file(f, settings), f"{name}:{f.mirror_path}") for f in listed]


def file_format(spec: Import, f: ImportFile) -> str:
    if spec.format is not None:
        return spec.format
    found = FORMATS.get(f.path.suffix.lower())
    if found is None:
        raise TableError(
            f"{f.shown}: cannot tell the format from {f.path.suffix or 'no suffix'!r}; set "
            f"imports.format to one of {', '.join(sorted(set(FORMATS.values())))}"
        )
    return found


# the fields last read per file version and mapping, so `judgelab run` reads a file once for
# its check at load, the import stage and the plan stage
_read: dict[tuple, tuple[str, pl.DataFrame]] = {}


def read_fields(
    f: ImportFile, fmt: str, records: str | None, fields: list[str]
) -> tuple[str, pl.DataFrame]:
    """The file's sha256 and one row per record: each field as a string (null where the
    record has no value there), `_index` and `_row`. Raises TableError (one line) on a file
    that cannot be read, holds no record, or lacks a column."""
    try:
        st = f.path.stat()
    except OSError as exc:
        raise TableError(f"{f.shown}: cannot read it ({exc.strerror})") from None
    key = (str(f.path), st.st_ino, st.st_size, st.st_mtime_ns, fmt, records, tuple(fields))
    if key not in _read:
        if len(_read) > 64:
            _read.clear()
        _read[key] = _read_now(f, fmt, records, fields)
    return _read[key]


def _read_now(
    f: ImportFile, fmt: str, records: str | None, fields: list[str]
) -> tuple[str, pl.DataFrame]:
    try:
        data = f.path.read_bytes()
    except OSError as exc:
        raise TableError(f"{f.shown}: cannot read it ({exc.strerror})") from None
    sha = hashlib.sha256(data).hexdigest()
    if not data.strip():
        raise TableError(f"{f.shown}: the file is empty")
    if fmt in ("csv", "tsv", "parquet"):
        frame = _tabular(f, fmt, data, fields)
    else:
        frame = _json_records(f, fmt, data, records, fields)
    if frame.height == 0:
        raise TableError(f"{f.shown}: the file holds no records")
    return sha, frame.with_row_index(INDEX).with_columns((pl.col(INDEX) + 1).alias(ROW))


def _tabular(f: ImportFile, fmt: str, data: bytes, fields: list[str]) -> pl.DataFrame:
    try:
        if fmt == "parquet":
            frame = pl.read_parquet(io.BytesIO(data))
        else:
            sep = "," if fmt == "csv" else "\t"
            frame = pl.read_csv(io.BytesIO(data), separator=sep, infer_schema=False)
    except Exception as exc:  # polars' ComputeError and friends: not this format
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise TableError(f"{f.shown}: not a readable {fmt} file ({first})") from None
    missing = [c for c in fields if c not in frame.columns]
    if missing:
        raise TableError(
            f"{f.shown}, field {missing[0]!r}: no such column; columns: {', '.join(frame.columns)}"
        )
    return frame.select(pl.col(c).cast(pl.String) for c in dict.fromkeys(fields))


def _json_records(
    f: ImportFile, fmt: str, data: bytes, records: str | None, fields: list[str]
) -> pl.DataFrame:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TableError(f"{f.shown} line {line}: not UTF-8 text") from None
    if fmt == "jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise TableError(f"{f.shown} line {number}: not JSON ({exc})") from None
    else:
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise TableError(f"{f.shown}: not JSON ({exc})") from None
        rows = doc if records is None else paths.get(doc, paths.parse(records))
        if not isinstance(rows, list):
            where = f"at {records!r}" if records else "at its top (set imports.records)"
            raise TableError(f"{f.shown}: no list of records {where}")
    steps = {field: paths.parse(field) for field in fields}
    columns = {field: [paths.text(paths.get(r, s)) for r in rows] for field, s in steps.items()}
    return pl.DataFrame(columns, schema={c: pl.String for c in columns}, height=len(rows))
