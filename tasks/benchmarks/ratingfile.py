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
conflicting text) is collected and reported at once, naming file, line (row for Parquet) and
column. Text values never appear in messages: user sets may be offensive or private.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from judgelab.study import RatingFile
from schemas.validate import TableError, validate

DELIMITED = {".csv": ",", ".tsv": "\t"}
JSON_LINES = (".jsonl", ".ndjson", ".json")  # .json: if it holds JSON lines (HaluEval's naming)
SUFFIXES = (*DELIMITED, ".parquet", *JSON_LINES)
MAX_LISTED = 20  # problems shown per kind; the rest are counted


def load(spec: RatingFile) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read, check and shape a rating file; raises TableError listing every problem found."""
    return shape(read_checked(spec), spec, Path(spec.path).stem)


def read_checked(spec: RatingFile) -> pl.DataFrame:
    """The file's rows by role, every row checked; nothing is written (the check at load)."""
    path = Path(spec.path)

    def checks(frame: pl.DataFrame, problems: Problems) -> None:
        check_rows(frame, spec, path.name, problems)
        check_items(frame, spec, problems)

    return read_roles(path, _roles(spec), checks)


def read_roles(
    path: Path, roles: dict[str, str], check: Callable[[pl.DataFrame, Problems], None]
) -> pl.DataFrame:
    """A user's file with its columns renamed to their roles (role → column; so columns cannot
    clash), `_where` and a 1-based `_row` kept, every row checked by `check`; a TableError
    listing every problem found, before anything is written. Shared by the file loaders."""
    raw, problems = read_table(path, list(dict.fromkeys(roles.values())))
    frame = raw.select(
        *(pl.col(column).alias(role) for role, column in roles.items()), "_where"
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
    """`columns` as strings (None where absent) plus `_where` ("x.csv line 3"), and the
    problems found while reading (malformed lines), so they are reported with the rest."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise TableError(
            f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
            f"accepted suffixes: {', '.join(SUFFIXES)}"
        )
    if not path.is_file():
        raise TableError(f"{path}: data file does not exist")
    if suffix in DELIMITED:
        return _read_delimited(path, columns, DELIMITED[suffix])
    if suffix == ".parquet":
        return _read_parquet(path, columns), Problems()
    return _read_jsonl(path, columns)


def _require(path: Path, present: list[str], columns: list[str]) -> None:
    missing = [c for c in columns if c not in present]
    if missing:
        raise TableError(f"{path}: missing column(s) {missing}; columns present: {present}")


def _decode(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TableError(f"{path.name} line {line}: not UTF-8 text ({exc.reason})") from None


def _read_delimited(path: Path, columns: list[str], sep: str) -> tuple[pl.DataFrame, Problems]:
    """The csv module, not polars, so quoted texts spanning lines still get true line numbers."""
    reader = csv.reader(io.StringIO(_decode(path), newline=""), delimiter=sep)
    try:
        header = next(reader)
    except StopIteration:
        raise TableError(f"{path}: empty file, expected a header line") from None
    _require(path, header, columns)
    repeated = sorted({c for c in columns if header.count(c) > 1})
    if repeated:
        raise TableError(f"{path} line 1: column(s) {repeated} appear more than once")
    index = [header.index(c) for c in columns]
    values: list[list[str]] = [[] for _ in columns]
    wheres, problems = [], Problems()
    start = reader.line_num + 1
    try:
        for record in reader:
            line, start = start, reader.line_num + 1
            if not record:  # a blank line
                continue
            if len(record) != len(header):
                problems.add(
                    f"{path.name} line {line}: {len(record)} field(s), the header has {len(header)}"
                )
                continue
            for out, i in zip(values, index, strict=True):
                out.append(record[i])
            wheres.append(f"{path.name} line {line}")
    except csv.Error as exc:
        raise TableError(f"{path.name} line {reader.line_num}: {exc}") from None
    data = dict(zip(columns, values, strict=True)) | {"_where": wheres}
    return pl.DataFrame(data, schema=dict.fromkeys(data, pl.String)), problems


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
    wheres = pl.Series("_where", [f"{path.name} row {i}" for i in range(1, frame.height + 1)])
    return pl.DataFrame([*out, wheres])


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
    values: list[list[str | None]] = [[] for _ in columns]
    wheres, problems = [], Problems()
    present: dict[str, None] = {}
    content = _decode(path)
    if content.lstrip().startswith("["):  # one JSON array, not one object per line
        raise TableError(
            f"{path}: holds a JSON array; judgelab reads JSON lines, one object per line "
            f"(convert with: jq -c '.[]' {path.name} > {path.stem}.jsonl)"
        )
    for line, text in enumerate(content.splitlines(), start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.add(f"{path.name} line {line}: not valid JSON ({exc.msg})")
            continue
        if not isinstance(record, dict):
            problems.add(f"{path.name} line {line}: not a JSON object")
            continue
        present |= dict.fromkeys(record)
        for out, column in zip(values, columns, strict=True):
            out.append(_json_scalar(record.get(column)))
        wheres.append(f"{path.name} line {line}")
    if wheres:  # with no object at all, the JSON problems (or "no data rows") say it
        _require(path, list(present), columns)
    data = dict(zip(columns, values, strict=True)) | {"_where": wheres}
    return pl.DataFrame(data, schema=dict.fromkeys(data, pl.String)), problems


# --------------------------------------------------------------------------------------- checking


@dataclass
class Problems:
    """Problem lines to report (at most MAX_LISTED per kind) and how many there are in all."""

    lines: list[str] = field(default_factory=list)
    total: int = 0

    def add(self, line: str) -> None:
        self.lines.append(line)
        self.total += 1

    def rows(self, bad: pl.DataFrame, column: str, message: Callable[[dict], str]) -> None:
        """One line per failing row of `bad`, naming its place and the user's column."""
        for r in bad.head(MAX_LISTED).iter_rows(named=True):
            self.lines.append(f"{r['_where']}, column {column!r}: {message(r)}")
        if bad.height > MAX_LISTED:
            self.lines.append(
                f"… and {bad.height - MAX_LISTED} more like these in column {column!r}"
            )
        self.total += bad.height

    def groups(self, bad: pl.DataFrame, column: str, message: Callable[[dict], str]) -> None:
        """One line per group of rows that clash (`_where` holds their places)."""
        for r in bad.head(MAX_LISTED).iter_rows(named=True):
            self.lines.append(f"{_places(r['_where'])}, column {column!r}: {message(r)}")
        if bad.height > MAX_LISTED:
            self.lines.append(f"… and {bad.height - MAX_LISTED} more like it")
        self.total += bad.height


def blank(role: str) -> pl.Expr:
    return pl.col(role).is_null() | (pl.col(role).str.strip_chars() == "")


def _number(role: str) -> pl.Expr:
    return pl.col(role).str.strip_chars().cast(pl.Float64, strict=False)


def show(value: str | None) -> str:
    return repr(value if value is None or len(value) <= 40 else value[:40] + "…")


def _places(wheres: list[str]) -> str:
    """["a.csv line 2", "a.csv line 5"] → "a.csv line 2, line 5": the file named once."""
    file = wheres[0].rsplit(" ", 2)[0]
    shown = [w.removeprefix(file + " ") for w in wheres[:5]]
    more = f" (+{len(wheres) - 5} more)" if len(wheres) > 5 else ""
    return f"{file} {', '.join(shown)}{more}"


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
    """Groups of rows sharing `keys`, with the places they occur (`_where`), in file order."""
    return (
        frame.group_by(keys, maintain_order=True)
        .agg(pl.col("_where"), pl.len().alias("_n"))
        .filter(pl.col("_n") > 1)
    )


def _conflicts(frame: pl.DataFrame, role: str) -> pl.DataFrame:
    """Items whose rows disagree on `role`: the first row holding each distinct value."""
    firsts = frame.group_by(["id", role], maintain_order=True).agg(pl.col("_where").first())
    return repeats(firsts, ["id"])


def check_items(frame: pl.DataFrame, spec: RatingFile, problems: Problems) -> None:
    """Cross-row problems among rows with an id: repeated ids in a mean file; in a per-rater
    file, texts or domains that differ between an item's rows, and raters rating twice."""
    roles = _roles(spec)
    keys = [r for r in ("id", "rater", "domain") if r in roles]
    frame = frame.filter(~blank("id")).with_columns(pl.col(keys).str.strip_chars())
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
