"""A user's own human-rated set (`benchmark = "file"`) → validated `items` and `ratings` tables.

Formats by suffix: `.csv`, `.tsv` (quoted like CSV), `.parquet`, `.jsonl`/`.ndjson`/`.json` (JSON
lines; a `.json` holding one JSON array is refused with the command that converts it). Two layouts:

* per-rater (`rater_column` + `rating_column`): one row per rating. `human_mean` is the mean over
  an item's raters, `human_sd` their population sd (as the built-in loaders), and the `ratings`
  table keeps every rating, raters numbered 0..k−1 by their sorted string ids.
* mean (`mean_column`): one row per item. `ratings` is empty, `human_sd` is null and `n_raters`
  comes from `n_raters_column` (else 1). Analyses that leave one rater out (the human ceiling)
  need per-rater data and have nothing to work with here.

Item ids become `<file stem>:<id>` and `benchmark` is the file stem, like the built-in sets.
Every problem in the file (missing or blank value, non-number, out-of-scale rating, repeated id,
conflicting text, a cell longer than MAX_CELL characters) is collected and reported at once,
naming file, line (row for Parquet) and column. Text values never appear in messages: user sets
may be offensive or private.

Large files: a CSV or TSV is parsed by polars (multi-threaded, only the columns used, never as
Python strings) when the file is regular enough that polars and Python's csv module must read
it alike — the same header, no carriage return outside a CR LF, no row short of a field, and as
many lines as its rows and the line breaks inside their values add up to, so each row's line
number is known. Any other file (blank lines, short rows, stray quotes, not UTF-8) is read by
the csv module, streamed, in chunks of CHUNK_ROWS rows, as before.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import polars as pl

from judgelab.study import RatingFile
from schemas.validate import TableError, validate

DELIMITED = {".csv": ",", ".tsv": "\t"}
JSON_LINES = (".jsonl", ".ndjson", ".json")  # .json: if it holds JSON lines (HaluEval's naming)
SUFFIXES = (*DELIMITED, ".parquet", *JSON_LINES)
MAX_LISTED = 20  # problems shown per kind; the rest are counted
# characters in one cell (about 10 MB of text): a longer cell is a problem naming its file,
# line (row) and column; README "Your own data"
MAX_CELL = 10_000_000
CHUNK_ROWS = 1 << 16  # rows the csv and JSON-lines readers hold as Python strings at a time


def load(spec: RatingFile) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read, check and shape a rating file; raises TableError listing every problem found."""
    return shape(read_checked(spec), spec, Path(spec.path).stem)


# the rows `read_checked(keep=True)` checked, for the `load` that follows (`judgelab plan`
# checks the file, then loads it): a large file is read once; keyed by the spec and the
# file's identity, so a file changed in between is read again
_kept: dict[tuple, pl.DataFrame] = {}


def read_checked(spec: RatingFile, keep: bool = False) -> pl.DataFrame:
    """The file's rows by role, every row checked; nothing is written (the check at load).
    `keep`: hold them for the next call with the same spec (which takes them)."""
    path = Path(spec.path)
    st = path.stat() if path.is_file() else None
    key = (
        spec.model_dump_json(),
        str(path.resolve()),
        st and (st.st_ino, st.st_size, st.st_mtime_ns),
    )
    if key in _kept:
        return _kept.pop(key)

    def checks(frame: pl.DataFrame, problems: Problems) -> None:
        check_rows(frame, spec, path.name, problems)
        check_items(frame, spec, problems)

    frame = read_roles(path, _roles(spec), checks)
    _kept.clear()
    if keep:
        _kept[key] = frame
    return frame


def read_roles(
    path: Path, roles: dict[str, str], check: Callable[[pl.DataFrame, Problems], None]
) -> pl.DataFrame:
    """A user's file with its columns renamed to their roles (role → column; so columns cannot
    clash), `_line` and a 1-based `_row` kept, every row checked by `check`; a TableError
    listing every problem found, before anything is written. Shared by the file loaders."""
    raw, problems = read_table(path, list(dict.fromkeys(roles.values())))
    frame = raw.select(
        *(pl.col(column).alias(role) for role, column in roles.items()), "_line"
    ).with_row_index("_row", offset=1)
    check(frame, problems)
    if problems.total:
        listed = "\n  ".join(problems.lines)
        raise TableError(f"{path}: {problems.total} problem(s)\n  {listed}")
    return frame


def _roles(spec: RatingFile) -> dict[str, str]:
    """Role → the user's column name; the frame is renamed to roles so columns cannot clash."""
    roles = {"id": spec.id_column, "text": spec.text_column}
    if spec.mean_column is not None:
        roles["value"] = spec.mean_column
        if spec.n_raters_column is not None:
            roles["n"] = spec.n_raters_column
    else:
        roles |= {"value": spec.rating_column, "rater": spec.rater_column}
    if spec.domain_column is not None:
        roles["domain"] = spec.domain_column
    return roles


# ---------------------------------------------------------------------------------------- reading


def read_table(path: Path, columns: list[str]) -> tuple[pl.DataFrame, Problems]:
    """`columns` as strings (None where absent) plus `_line`, each row's line (row for
    Parquet), and the problems found while reading (malformed lines), so they are reported
    with the rest; the problems name a row's place ("x.csv line 3") from its `_line`."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise TableError(
            f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
            f"accepted suffixes: {', '.join(SUFFIXES)}"
        )
    if not path.is_file():
        raise TableError(f"{path}: data file does not exist")
    if suffix in DELIMITED:
        frame, problems = _read_delimited(path, columns, DELIMITED[suffix])
    elif suffix == ".parquet":
        frame, problems = _read_parquet(path, columns), Problems(path.name, "row")
    else:
        frame, problems = _read_jsonl(path, columns)
    for column in columns:
        long = pl.col(column).str.len_chars()
        problems.rows(
            frame.filter(long > MAX_CELL).select("_line", long.alias("_chars")),
            column,
            lambda r: f"{r['_chars']:,} characters, more than the {MAX_CELL:,} a cell may hold",
        )
    return frame, problems


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
    """Rows of string values handed to polars every CHUNK_ROWS rows, so a large file is never
    held as Python strings; `frame()` adds each row's `_line`."""

    def __init__(self, columns: list[str]) -> None:
        self.columns, self.frames = columns, []
        self._start()

    def _start(self) -> None:
        self.values: list[list[str | None]] = [[] for _ in self.columns]
        self.lines: list[int] = []

    def add(self, values: list[str | None], line: int) -> None:
        for out, value in zip(self.values, values, strict=True):
            out.append(value)
        self.lines.append(line)
        if len(self.lines) >= CHUNK_ROWS:
            self._flush()

    def _flush(self) -> None:
        data = dict(zip(self.columns, self.values, strict=True)) | {"_line": self.lines}
        schema = dict.fromkeys(self.columns, pl.String) | {"_line": pl.Int64}
        self.frames.append(pl.DataFrame(data, schema=schema))
        self._start()

    def frame(self) -> pl.DataFrame:
        self._flush()
        return pl.concat(self.frames, rechunk=False)


def _header(path: Path, sep: str) -> tuple[list[str], int]:
    """The header record and the lines it spans, read alone."""
    with _text(path, newline="") as fh, _any_field_size():
        reader = csv.reader(fh, delimiter=sep)
        try:
            return next(reader), reader.line_num
        except StopIteration:
            raise TableError(f"{path}: empty file, expected a header line") from None
        except csv.Error as exc:
            raise TableError(f"{path.name} line {reader.line_num}: {exc}") from None


def _read_delimited(path: Path, columns: list[str], sep: str) -> tuple[pl.DataFrame, Problems]:
    header, header_lines = _header(path, sep)
    _require(path, header, columns)
    repeated = sorted({c for c in columns if header.count(c) > 1})
    if repeated:
        raise TableError(f"{path} line 1: column(s) {repeated} appear more than once")
    fast = _read_regular(path, header, header_lines, columns, sep)
    if fast is not None:
        return fast, Problems(path.name)
    return _read_csv_module(path, header, columns, sep)


def _line_feeds(path: Path, sep: str) -> int | None:
    """The file's lines (line feeds), read in blocks; None when the bytes show polars and the
    csv module could split the file differently: a carriage return not followed by a line
    feed (the csv module ends a line there), a quote with an ordinary character on both sides
    (`"abc"def`, `a "b"`: not a quote of a well-formed CSV; the modules recover differently),
    or no line feed at the end (polars drops a last empty field and closes a quote left
    open there)."""
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


def _read_regular(
    path: Path, header: list[str], header_lines: int, columns: list[str], sep: str
) -> pl.DataFrame | None:
    """The CSV read by polars (module docstring), or None when polars and the csv module
    could read it differently: then the csv module reads it."""
    if header_lines != 1 or len(set(header)) != len(header):
        return None
    feeds = _line_feeds(path, sep)
    if feeds is None:
        return None
    last = header[-1]  # a short row lacks its last field: null here, refused by the csv module
    read = list(dict.fromkeys([*columns, last]))
    # every column parsed (so a row with a field too many fails), line breaks counted in all
    breaks = pl.sum_horizontal(pl.col(header).str.count_matches("\n", literal=True))
    every_field = pl.QueryOptFlags(projection_pushdown=False)
    try:
        scan = pl.scan_csv(path, separator=sep, infer_schema=False, raise_if_empty=False)
        if scan.collect_schema().names() != header:
            return None
        frame = scan.select(*read, breaks.fill_null(0).alias("_breaks")).collect(
            engine="streaming", optimizations=every_field
        )
    except Exception:  # stray quotes, more fields than the header, not UTF-8: csv module
        return None
    if frame[last].null_count() or feeds != header_lines + frame.height + frame["_breaks"].sum():
        return None  # a short row, a blank line: csv module
    first = header_lines + 1 + pl.int_range(pl.len()) + pl.col("_breaks").cum_sum()
    frame = frame.select(*columns, (first - pl.col("_breaks")).alias("_line"))
    # an empty field is "", as the csv module reads it (no copy of a column without one)
    empty = [c for c in columns if frame[c].null_count()]
    return frame.with_columns(pl.col(empty).fill_null("")) if empty else frame


def _read_csv_module(
    path: Path, header: list[str], columns: list[str], sep: str
) -> tuple[pl.DataFrame, Problems]:
    """The csv module, not polars, so any CSV the csv module takes is read and quoted texts
    spanning lines still get true line numbers; streamed, CHUNK_ROWS rows at a time."""
    index = [header.index(c) for c in columns]
    rows, problems = _Rows(columns), Problems(path.name)
    with _text(path, newline="") as fh, _any_field_size():
        reader = csv.reader(fh, delimiter=sep)
        try:
            next(reader)  # the header
            start = reader.line_num + 1
            for record in reader:
                line, start = start, reader.line_num + 1
                if not record:  # a blank line
                    continue
                if len(record) != len(header):
                    problems.add(
                        f"{path.name} line {line}: {len(record)} field(s), the header has "
                        f"{len(header)}"
                    )
                    continue
                rows.add([record[i] for i in index], line)
        except csv.Error as exc:
            raise TableError(f"{path.name} line {reader.line_num}: {exc}") from None
    return rows.frame(), problems


def _read_parquet(path: Path, columns: list[str]) -> pl.DataFrame:
    try:
        schema = pl.read_parquet_schema(path)
        _require(path, list(schema), columns)
        frame = pl.read_parquet(path, columns=columns)
    except TableError:
        raise
    except Exception as exc:  # polars raises several kinds for a corrupt file
        raise TableError(f"{path}: not a readable Parquet file ({exc})") from None
    out = []
    for column in columns:
        try:
            out.append(frame[column].cast(pl.String))
        except Exception:  # nested types (lists, structs) have no string form
            raise TableError(
                f"{path}, column {column!r}: type {frame[column].dtype} holds no text or number"
            ) from None
    return pl.DataFrame(out).with_columns(pl.int_range(1, frame.height + 1).alias("_line"))


def _json_scalar(value: object) -> str | None:
    """JSON values as the strings a CSV would hold, so all formats share one set of checks."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value)


def _read_jsonl(path: Path, columns: list[str]) -> tuple[pl.DataFrame, Problems]:
    rows, problems = _Rows(columns), Problems(path.name)
    present: dict[str, None] = {}
    first = True
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
            present |= dict.fromkeys(record)
            rows.add([_json_scalar(record.get(column)) for column in columns], line)
    frame = rows.frame()
    if frame.height:  # with no object at all, the JSON problems (or "no data rows") say it
        _require(path, list(present), columns)
    return frame, problems


# --------------------------------------------------------------------------------------- checking


@dataclass
class Problems:
    """Problem lines to report (at most MAX_LISTED per kind) and how many there are in all.
    A failing row is named from its `_line` ("x.csv line 3", "x.parquet row 3"): a place
    string is made for the rows listed only, not for each of a large file's rows."""

    file: str = ""
    unit: str = "line"  # "row" for Parquet
    lines: list[str] = field(default_factory=list)
    total: int = 0

    def where(self, line: int) -> str:
        return f"{self.file} {self.unit} {line}"

    def add(self, line: str) -> None:
        self.lines.append(line)
        self.total += 1

    def rows(self, bad: pl.DataFrame, column: str, message: Callable[[dict], str]) -> None:
        """One line per failing row of `bad`, naming its place and the user's column."""
        for r in bad.head(MAX_LISTED).iter_rows(named=True):
            self.lines.append(f"{self.where(r['_line'])}, column {column!r}: {message(r)}")
        if bad.height > MAX_LISTED:
            self.lines.append(
                f"… and {bad.height - MAX_LISTED} more like these in column {column!r}"
            )
        self.total += bad.height

    def groups(self, bad: pl.DataFrame, column: str, message: Callable[[dict], str]) -> None:
        """One line per group of rows that clash (`_line` holds their lines)."""
        for r in bad.head(MAX_LISTED).iter_rows(named=True):
            self.lines.append(f"{self.places(r['_line'])}, column {column!r}: {message(r)}")
        if bad.height > MAX_LISTED:
            self.lines.append(f"… and {bad.height - MAX_LISTED} more like it")
        self.total += bad.height

    def places(self, lines: list[int]) -> str:
        """[2, 5] → "a.csv line 2, line 5": the file named once."""
        shown = [f"{self.unit} {n}" for n in lines[:5]]
        more = f" (+{len(lines) - 5} more)" if len(lines) > 5 else ""
        return f"{self.file} {', '.join(shown)}{more}"


def blank(role: str) -> pl.Expr:
    """Null, empty or only whitespace (no stripped copy of the column is made: a text
    column of a large file is hundreds of MB)."""
    return pl.col(role).is_null() | ~pl.col(role).str.contains(r"\S")


def _number(role: str) -> pl.Expr:
    return pl.col(role).str.strip_chars().cast(pl.Float64, strict=False)


def show(value: str | None) -> str:
    return repr(value if value is None or len(value) <= 40 else value[:40] + "…")


def check_rows(frame: pl.DataFrame, spec: RatingFile, file: str, problems: Problems) -> None:
    """Per-row problems: blank ids/texts/raters/domains, non-numbers, values off the scale."""
    roles = _roles(spec)
    if frame.height == 0:
        problems.add(f"{file}: no data rows")
        return
    for role, what in [
        ("id", "empty item id"),
        ("text", "empty text"),
        ("rater", "empty rater id"),
        ("domain", "empty domain"),
    ]:
        if role in roles:
            problems.rows(frame.filter(blank(role)), roles[role], lambda r, w=what: w)
    lo, hi = spec.scale_min, spec.scale_max
    value = _number("value")
    problems.rows(
        frame.filter(blank("value")), roles["value"], lambda r: "empty, expected a number"
    )
    problems.rows(
        frame.filter(~blank("value") & (value.is_null() | value.is_nan())),
        roles["value"],
        lambda r: f"{show(r['value'])} is not a number",
    )
    problems.rows(
        frame.filter(~value.is_nan() & (value.is_infinite() | (value < lo) | (value > hi))),
        roles["value"],
        lambda r: f"{show(r['value'])} is outside the scale [{lo:g}, {hi:g}]",
    )
    if "n" in roles:
        n = _number("n")
        problems.rows(
            frame.filter(n.is_null() | ~n.is_finite() | (n < 1) | (n != n.floor())),
            roles["n"],
            lambda r: f"{show(r['n'])} is not a whole number of raters ≥ 1",
        )


def repeats(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Groups of rows sharing `keys`, with the lines they occur on (`_line`), in file order.
    Rows whose first key is unique (every id of a mean file) are not grouped: counting a
    large file's rows by key held ~200 MB more than counting its distinct ids."""
    if frame[keys[0]].n_unique() == frame.height:
        frame = frame.clear()
    return (
        frame.group_by(keys, maintain_order=True)
        .agg(pl.col("_line"), pl.len().alias("_n"))
        .filter(pl.col("_n") > 1)
    )


def _conflicts(frame: pl.DataFrame, role: str) -> pl.DataFrame:
    """Items whose rows disagree on `role`: the first row holding each distinct value."""
    firsts = frame.group_by(["id", role], maintain_order=True).agg(pl.col("_line").first())
    return repeats(firsts, ["id"])


def check_items(frame: pl.DataFrame, spec: RatingFile, problems: Problems) -> None:
    """Cross-row problems among rows with an id: repeated ids in a mean file; in a per-rater
    file, texts or domains that differ between an item's rows, and raters rating twice."""
    roles = _roles(spec)
    keys = [r for r in ("id", "rater", "domain") if r in roles]
    used = [*keys, *(["text"] if spec.mean_column is None else []), "_line"]
    frame = frame.select(used).filter(~blank("id")).with_columns(pl.col(keys).str.strip_chars())
    if spec.mean_column is not None:
        problems.groups(
            repeats(frame, ["id"]),
            roles["id"],
            lambda r: f"item id {show(r['id'])} is repeated (a mean file has one row per item)",
        )
        return
    for role in ("text", "domain"):
        if role in roles:
            problems.groups(
                _conflicts(frame.filter(~blank(role)), role),
                roles[role],
                lambda r, role=role: f"item id {show(r['id'])} has a different {role} here",
            )
    problems.groups(
        repeats(frame.filter(~blank("rater")), ["id", "rater"]),
        roles["rater"],
        lambda r: f"rater {show(r['rater'])} rates item id {show(r['id'])} more than once",
    )


# ---------------------------------------------------------------------------------------- shaping


def shape(frame: pl.DataFrame, spec: RatingFile, stem: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Checked rows → (`items`, `ratings`) on the task's direction of the human scale."""
    from schemas.items import Items  # pandera: only once the file has passed its checks
    from schemas.ratings import Ratings

    lo, hi = spec.scale_min, spec.scale_max
    value = _number("value")
    if spec.direction == "descending":
        value = lo + hi - value
    # Clipped: rounding can push a reversed value or a mean of in-scale values a hair outside.
    frame = frame.with_columns(
        pl.concat_str(pl.lit(f"{stem}:"), pl.col("id").str.strip_chars()).alias("item_id"),
        value.clip(lo, hi).alias("value"),
        (pl.col("domain").str.strip_chars() if spec.domain_column else pl.lit("all")).alias(
            "domain"
        ),
    )
    if spec.mean_column is not None:
        n = _number("n").cast(pl.Int64) if spec.n_raters_column else pl.lit(1, pl.Int64)
        items = frame.select(
            "item_id",
            "domain",
            "text",
            pl.col("value").alias("human_mean"),
            pl.lit(None, pl.Float64).alias("human_sd"),
            n.alias("n_raters"),
        )
        ratings = pl.DataFrame(
            schema={"item_id": pl.String, "rater": pl.Int64, "rating": pl.Float64}
        )
    else:
        raters = frame["rater"].str.strip_chars()
        numbers = {r: i for i, r in enumerate(sorted(raters.unique().to_list()))}
        ratings = frame.select(
            "item_id",
            raters.replace_strict(numbers, return_dtype=pl.Int64).alias("rater"),
            pl.col("value").alias("rating"),
        )
        items = frame.group_by("item_id", maintain_order=True).agg(
            pl.col("domain").first(),
            pl.col("text").first(),
            pl.col("value").mean().clip(lo, hi).alias("human_mean"),
            pl.col("value").std(ddof=0).alias("human_sd"),
            pl.len().cast(pl.Int64).alias("n_raters"),
        )
    items = items.select(
        "item_id",
        pl.lit(stem).alias("benchmark"),
        "domain",
        "text",
        "human_mean",
        "human_sd",
        "n_raters",
        pl.lit(float(lo)).alias("human_min"),
        pl.lit(float(hi)).alias("human_max"),
    )
    return validate(items, Items), validate(ratings, Ratings)
