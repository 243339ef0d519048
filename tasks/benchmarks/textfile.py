"""Read delimited upstream text files into string frames that remember file and line."""

from __future__ import annotations

import polars as pl

from schemas.validate import TableError


def read_delimited(text: str, file: str, columns: list[str], sep: str = "\t") -> pl.DataFrame:
    """Split lines into exactly `columns` (the last one takes the rest); BOM and CRLF tolerated."""
    rows, errors = [], []
    for lineno, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split(sep, len(columns) - 1)
        if len(parts) != len(columns):
            errors.append(
                f"{file} line {lineno}, column {columns[len(parts)]!r}: missing "
                f"(expected {len(columns)} {sep!r}-separated fields, found {len(parts)})"
            )
            continue
        rows.append((*parts, file, lineno))
    if errors:
        raise TableError(f"{file}: {len(errors)} malformed line(s)\n  " + "\n  ".join(errors[:20]))
    return pl.DataFrame(rows, schema=[*columns, "_file", "_line"], orient="row")


def cast_columns(frame: pl.DataFrame, dtypes: dict[str, pl.DataType]) -> pl.DataFrame:
    """Cast string columns; every value that does not parse is reported with file and line."""
    errors = []
    out = frame.with_columns(
        pl.col(c).str.strip_chars().cast(t, strict=False) for c, t in dtypes.items()
    )
    for col in dtypes:
        bad = frame.filter(out[col].is_null() & frame[col].is_not_null())
        errors += [
            f"{r['_file']} line {r['_line']}, column {col!r}: {r[col]!r} is not a {dtypes[col]}"
            for r in bad.head(20).iter_rows(named=True)
        ]
    if errors:
        raise TableError(f"{len(errors)} unparseable value(s)\n  " + "\n  ".join(errors))
    return out
