"""A user's table file (`.csv`, `.tsv`, `.parquet`, JSON lines) → string columns plus each
row's `_line`, streamed in chunks, with the problems met while reading; shared by the file
loaders (ratingfile, qafile, pairfile, tonetexts, truthfulqa).

A CSV or TSV is parsed by pyarrow's streaming reader (multi-threaded, a block at a time: the
file is never held whole, nor as Python strings) when the file is regular enough that pyarrow
and Python's csv module must read it alike: one header line with distinct names, no carriage
return outside a CR LF, no quote between two ordinary characters, a line feed at the end, no
row short of a field or with one too many, and as many lines as its rows and the line breaks
inside their values add up to, so each row's line number is known. Any other file (blank
lines, short rows, stray quotes, not UTF-8) is read by the csv module, streamed, CHUNK_ROWS
rows at a time.

A large text column need not be held at all: `read_table(digest=...)` keeps a 64-bit digest
of each value (null when blank), which is all the row checks need (blank, repeated, differing);
`texts` reads the values of chosen rows back, in file order, a chunk at a time, by the reader
that read the file first.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import polars as pl

from schemas.validate import TableError
from tasks.benchmarks.problems import Problems

DELIMITED = {".csv": ",", ".tsv": "\t"}
JSON_LINES = (".jsonl", ".ndjson", ".json")  # .json: if it holds JSON lines (HaluEval's naming)
SUFFIXES = (*DELIMITED, ".parquet", *JSON_LINES)
# characters in one cell (about 10 MB of text): a longer cell is a problem naming its file,
# line (row) and column; docs/how-to/own-data.md
MAX_CELL = 10_000_000
CHUNK_ROWS = 1 << 16  # rows the csv and JSON-lines readers hold as Python strings at a time
ARROW_BLOCK = 1 << 20  # bytes pyarrow parses at a time (its default; 4 MB held ~120 MB more here)
THREADS = False

# files pyarrow read in full, by identity (path, inode, size, mtime): `texts` reads them the
# same way; any other file (or one changed since) is read back by the csv module
_by_arrow: set[tuple] = set()


def identity(path: Path) -> tuple:
    st = path.stat()
    return (str(path.resolve()), st.st_ino, st.st_size, st.st_mtime_ns)


# ---------------------------------------------------------------------------------------- reading


def read_table(
    path: Path, columns: list[str], digest: tuple[str, ...] = ()
) -> tuple[pl.DataFrame, Problems]:
    """`columns` as strings (None where absent) plus `_line`, each row's line (row for
    Parquet), and the problems found while reading (malformed lines, cells over MAX_CELL),
    so they are reported with the rest. Columns in `digest` hold a digest of each value,
    taken chunk by chunk: the values themselves are never all held."""
    try:
        return _read(path, columns, digest, arrow=None)
    except _Irregular:  # pyarrow and the csv module could read it differently
        return _read(path, columns, digest, arrow=False)


def _read(
    path: Path, columns: list[str], digest: tuple[str, ...], arrow: bool | None
) -> tuple[pl.DataFrame, Problems]:
    problems = Problems(path.name, "row" if path.suffix.lower() == ".parquet" else "line")
    long: list[pl.DataFrame] = []

    def reduce(chunk: pl.DataFrame) -> pl.DataFrame:
        # bytes bound characters: only a chunk with a cell over MAX_CELL bytes is counted
        if (chunk.select(pl.col(columns).str.len_bytes().max()).max_horizontal() > MAX_CELL)[0]:
            for column in columns:
                chars = pl.col(column).str.len_chars()
                long.append(
                    chunk.filter(chars > MAX_CELL).select(
                        pl.lit(column).alias("_column"), "_line", chars.alias("_chars")
                    )
                )
        return chunk.with_columns(_digest(c) for c in digest) if digest else chunk

    parts = [reduce(chunk) for chunk in _chunks(path, columns, problems, arrow)]
    _release()
    frame = pl.concat(parts, rechunk=False) if parts else _empty(columns)
    over = pl.concat(long) if long else pl.DataFrame()
    for column in columns if over.height else []:
        problems.rows(
            over.filter(pl.col("_column") == column),
            column,
            lambda r: f"{r['_chars']:,} characters, more than the {MAX_CELL:,} a cell may hold",
        )
    return frame, problems


def texts(path: Path, column: str, rows: pl.Series) -> Iterator[pl.DataFrame]:
    """`_row` (1-based, as `read_table`'s rows are numbered) and `column` of the rows in
    `rows` (ascending), in file order, at least CHUNK_ROWS rows at a time (the last chunk may
    hold fewer): a large text column read back for the rows kept, never held whole."""
    wanted = rows.cast(pl.Int64)
    arrow = path.suffix.lower() in DELIMITED and identity(path) in _by_arrow
    seen, pending = 0, []
    for chunk in _chunks(path, [column], Problems(path.name), arrow):
        # the wanted rows within this chunk's range (a search, not a join over all of them)
        lo = wanted.search_sorted(seen + 1, side="left")
        hi = wanted.search_sorted(seen + chunk.height, side="right")
        numbered = chunk.select(pl.int_range(seen + 1, seen + 1 + pl.len()).alias("_row"), column)
        seen += chunk.height
        if hi - lo < chunk.height:  # not every row: keep those wanted
            numbered = numbered.join(wanted[lo:hi].to_frame("_row"), on="_row", how="semi")
        pending.append(numbered)
        if sum(p.height for p in pending) >= CHUNK_ROWS:
            yield pl.concat(pending)
            pending = []
    _release()
    if pending and (last := pl.concat(pending)).height:
        yield last


def _release() -> None:
    """Hand the blocks pyarrow's memory pool kept from a read back to the system (~50 MB
    after a 200 MB file), so what comes next does not add to them."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _digest(column: str) -> pl.Expr:
    """A 64-bit digest of each value (UInt64, 8 bytes a row), null when blank: equal texts
    have equal digests, and two different texts of one item sharing one is a 1 in 2⁶⁴
    chance."""
    return pl.when(blank(column)).then(None).otherwise(pl.col(column).hash()).alias(column)


def blank(column: str) -> pl.Expr:
    """Null, empty or only whitespace (no stripped copy of the column is made: a text
    column of a large file is hundreds of MB)."""
    return pl.col(column).is_null() | ~pl.col(column).str.contains(r"\S")


def _empty(columns: list[str]) -> pl.DataFrame:
    return pl.DataFrame(schema=dict.fromkeys(columns, pl.String) | {"_line": pl.Int64})


def _chunks(
    path: Path, columns: list[str], problems: Problems, arrow: bool | None
) -> Iterator[pl.DataFrame]:
    """The file's rows as chunks of `columns` plus `_line`. A CSV by pyarrow (`arrow` True),
    the csv module (False) or pyarrow if it is regular (None: raises _Irregular, maybe after
    some chunks, when it turns out not to be)."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise TableError(
            f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
            f"accepted suffixes: {', '.join(SUFFIXES)}"
        )
    if not path.is_file():
        raise TableError(f"{path}: data file does not exist")
    if suffix in DELIMITED:
        yield from _delimited(path, columns, DELIMITED[suffix], problems, arrow)
    elif suffix == ".parquet":
        yield from _parquet(path, columns)
    else:
        yield from _jsonl(path, columns, problems)


def _require(path: Path, present: list[str], columns: list[str]) -> None:
    missing = [c for c in columns if c not in present]
    if missing:
        raise TableError(f"{path}: missing column(s) {missing}; columns present: {present}")


def _not_utf8(path: Path) -> TableError:
    """The line of the file's first byte that is not UTF-8, read in blocks."""
    decoder, line = codecs.getincrementaldecoder("utf-8")(), 1
    with open(path, "rb") as fh:
        while True:
            block = fh.read(1 << 20)
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                line += exc.object[: exc.start].count(b"\n")
                return TableError(f"{path.name} line {line}: not UTF-8 text ({exc.reason})")
            if not block:
                return TableError(f"{path.name}: not UTF-8 text")
            line += block.count(b"\n")


@contextlib.contextmanager
def _text(path: Path, newline: str | None = None) -> Iterator[TextIO]:
    """The file as UTF-8 text (a BOM dropped), streamed; a byte that is not UTF-8 is a
    TableError naming its line."""
    try:
        with open(path, encoding="utf-8-sig", newline=newline) as fh:
            yield fh
    except UnicodeDecodeError:
        raise _not_utf8(path) from None


@contextlib.contextmanager
def _any_field_size() -> Iterator[None]:
    """The csv module refuses fields over 128 KiB ("field larger than field limit"); the
    cell limit is judgelab's (MAX_CELL, checked with the file's other problems)."""
    old = csv.field_size_limit(sys.maxsize)
    try:
        yield
    finally:
        csv.field_size_limit(old)


class _Rows:
    """Rows of string values handed on as a polars chunk every CHUNK_ROWS rows, so a large
    file is never held as Python strings."""

    def __init__(self, columns: list[str]) -> None:
        self.columns = columns
        self._start()

    def _start(self) -> None:
        self.values: list[list[str | None]] = [[] for _ in self.columns]
        self.lines: list[int] = []

    def add(self, values: list[str | None], line: int) -> pl.DataFrame | None:
        """A full chunk when this row completes one."""
        for out, value in zip(self.values, values, strict=True):
            out.append(value)
        self.lines.append(line)
        return self.chunk() if len(self.lines) >= CHUNK_ROWS else None

    def chunk(self) -> pl.DataFrame:
        data = dict(zip(self.columns, self.values, strict=True)) | {"_line": self.lines}
        schema = dict.fromkeys(self.columns, pl.String) | {"_line": pl.Int64}
        self._start()
        return pl.DataFrame(data, schema=schema)


def header(path: Path, sep: str) -> tuple[list[str], int]:
    """The header record and the lines it spans, read alone."""
    with _text(path, newline="") as fh, _any_field_size():
        reader = csv.reader(fh, delimiter=sep)
        try:
            return next(reader), reader.line_num
        except StopIteration:
            raise TableError(f"{path}: empty file, expected a header line") from None
        except csv.Error as exc:
            raise TableError(f"{path.name} line {reader.line_num}: {exc}") from None


def _delimited(
    path: Path, columns: list[str], sep: str, problems: Problems, arrow: bool | None
) -> Iterator[pl.DataFrame]:
    names, header_lines = header(path, sep)
    _require(path, names, columns)
    repeated = sorted({c for c in columns if names.count(c) > 1})
    if repeated:
        raise TableError(f"{path} line 1: column(s) {repeated} appear more than once")
    if arrow is None:
        yield from _regular(path, names, header_lines, columns, sep)
    elif arrow:  # a second read: no line numbers (null)
        yield from _arrow(path, names, columns, sep, lines=False)
    else:
        yield from _csv_module(path, names, columns, sep, problems)


class _Irregular(Exception):
    """The file turned out not to be regular (module docstring): read it with the csv module."""


def _line_feeds(path: Path, sep: str) -> int | None:
    """The file's lines (line feeds), read in blocks; None when the bytes show pyarrow and
    the csv module could split the file differently: a carriage return not followed by a line
    feed (the csv module ends a line there), a quote with an ordinary character on both sides
    (`"abc"def`, `a "b"`: not a quote of a well-formed CSV; the modules recover differently),
    or no line feed at the end (a last empty field or a quote left open there)."""
    import numpy as np

    edge = np.zeros(256, bool)  # the bytes a quote of a well-formed CSV may touch
    edge[list(f'{sep}"\r\n'.encode())] = True
    lf = cr = crlf = 0
    prev = b"\n"  # the byte before the block (the file starts a line)
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            lf, n_cr = lf + block.count(b"\n"), block.count(b"\r")
            cr += n_cr
            crlf += (n_cr and block.count(b"\r\n")) + (prev == b"\r" and block[:1] == b"\n")
            ahead = fh.peek(1)[:1] if hasattr(fh, "peek") else b""
            window = np.frombuffer(prev + block + (ahead or b"\n"), np.uint8)
            quotes = np.flatnonzero(window[1:-1] == ord('"')) + 1
            if (~edge[window[quotes - 1]] & ~edge[window[quotes + 1]]).any():
                return None
            prev = block[-1:]
    return lf if cr == crlf and prev == b"\n" else None


def _regular(
    path: Path, names: list[str], header_lines: int, columns: list[str], sep: str
) -> Iterator[pl.DataFrame]:
    """The CSV's chunks as pyarrow reads them (module docstring); _Irregular, maybe after
    some chunks, when pyarrow and the csv module could read it differently."""
    import pyarrow as pa

    if header_lines != 1 or len(set(names)) != len(names):
        raise _Irregular
    feeds = _line_feeds(path, sep)
    if feeds is None:
        raise _Irregular
    lines = header_lines
    try:
        for chunk in _arrow(path, names, columns, sep):
            lines = chunk["_last"][-1] if chunk.height else lines
            yield chunk.drop("_last")
    except (pa.ArrowInvalid, UnicodeDecodeError):  # short or long rows, not UTF-8
        raise _Irregular from None
    if feeds != lines:
        raise _Irregular  # blank lines (pyarrow skips them): the csv module numbers lines true
    _by_arrow.add(identity(path))


def _arrow(
    path: Path, names: list[str], columns: list[str], sep: str, lines: bool = True
) -> Iterator[pl.DataFrame]:
    """pyarrow's streaming CSV reader, every field parsed as a string ("" where empty, as the
    csv module reads it). `lines`: `_line` from the line breaks inside the values, and
    `_last`, the line each row ends on (else `_line` is null and only `columns` are
    converted)."""
    import pyarrow as pa
    from pyarrow import csv as pacsv

    reader = pacsv.open_csv(
        path,
        read_options=pacsv.ReadOptions(
            column_names=names,
            skip_rows=1,
            block_size=ARROW_BLOCK,
            encoding="utf8",
        ),
        parse_options=pacsv.ParseOptions(
            delimiter=sep, quote_char='"', double_quote=True, newlines_in_values=True
        ),
        convert_options=pacsv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.string()),
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            # every field for line numbers (a value spanning lines moves the next row's line)
            include_columns=names if lines else columns,
        ),
    )
    breaks = pl.sum_horizontal(pl.col(names).str.count_matches("\n", literal=True))
    end = 1  # the header's last line
    with contextlib.closing(reader):
        for batch in reader:
            if not lines:
                yield pl.from_arrow(batch).select(*columns, pl.lit(None, pl.Int64).alias("_line"))
                continue
            chunk = pl.from_arrow(batch).select(*columns, breaks.alias("_breaks"))
            last = end + pl.int_range(1, pl.len() + 1) + pl.col("_breaks").cum_sum()
            out = chunk.select(*columns, last.alias("_last"), "_breaks")
            end = out["_last"][-1] if out.height else end
            yield out.select(
                *columns, (pl.col("_last") - pl.col("_breaks")).alias("_line"), "_last"
            )


def _csv_module(
    path: Path, names: list[str], columns: list[str], sep: str, problems: Problems
) -> Iterator[pl.DataFrame]:
    """The csv module, not pyarrow, so any CSV the csv module takes is read and quoted texts
    spanning lines still get true line numbers; streamed, CHUNK_ROWS rows at a time."""
    index = [names.index(c) for c in columns]
    rows = _Rows(columns)
    with _text(path, newline="") as fh, _any_field_size():
        reader = csv.reader(fh, delimiter=sep)
        try:
            next(reader)  # the header
            start = reader.line_num + 1
            for record in reader:
                line, start = start, reader.line_num + 1
                if not record:  # a blank line
                    continue
                if len(record) != len(names):
                    problems.add(
                        f"{path.name} line {line}: {len(record)} field(s), the header has "
                        f"{len(names)}"
                    )
                    continue
                if (full := rows.add([record[i] for i in index], line)) is not None:
                    yield full
        except csv.Error as exc:
            raise TableError(f"{path.name} line {reader.line_num}: {exc}") from None
    yield rows.chunk()


def _parquet(path: Path, columns: list[str]) -> Iterator[pl.DataFrame]:
    """Row groups in batches of CHUNK_ROWS rows, each column as strings."""
    import pyarrow.parquet as pq

    try:
        schema = pl.read_parquet_schema(path)
        _require(path, list(schema), columns)
        batches = pq.ParquetFile(path).iter_batches(batch_size=CHUNK_ROWS, columns=columns)
    except TableError:
        raise
    except Exception as exc:  # polars and pyarrow raise several kinds for a corrupt file
        raise TableError(f"{path}: not a readable Parquet file ({exc})") from None
    for column in columns:
        if isinstance(schema[column], pl.List | pl.Struct | pl.Array):
            raise TableError(
                f"{path}, column {column!r}: type {schema[column]} holds no text or number"
            )
    rows = 0
    try:
        for batch in batches:
            chunk = pl.from_arrow(batch).select(pl.col(columns).cast(pl.String))
            yield chunk.with_columns(pl.int_range(rows + 1, rows + 1 + pl.len()).alias("_line"))
            rows += chunk.height
    except TableError:
        raise
    except Exception as exc:
        raise TableError(f"{path}: not a readable Parquet file ({exc})") from None


def _json_scalar(value: object) -> str | None:
    """JSON values as the strings a CSV would hold, so all formats share one set of checks."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value)


def _jsonl(path: Path, columns: list[str], problems: Problems) -> Iterator[pl.DataFrame]:
    rows = _Rows(columns)
    present: dict[str, None] = {}
    first = True
    any_object = False
    with _text(path) as fh:
        for line, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            if first and text.lstrip().startswith("["):  # one JSON array, not JSON lines
                raise TableError(
                    f"{path}: holds a JSON array; judgelab reads JSON lines, one object per "
                    f"line (convert with: jq -c '.[]' {path.name} > {path.stem}.jsonl)"
                )
            first = False
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                problems.add(f"{path.name} line {line}: not valid JSON ({exc.msg})")
                continue
            if not isinstance(record, dict):
                problems.add(f"{path.name} line {line}: not a JSON object")
                continue
            any_object = True
            present |= dict.fromkeys(record)
            if (full := rows.add([_json_scalar(record.get(c)) for c in columns], line)) is not None:
                yield full
    if any_object:  # with no object at all, the JSON problems (or "no data rows") say it
        _require(path, list(present), columns)
    yield rows.chunk()
