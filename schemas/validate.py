"""Validate a frame against its schema and report every problem with file, row and column."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:  # pandera loads in ~1 s: not on the path of a study check that fails
    import pandera.polars as pa


class TableError(ValueError):
    """A table broke its schema; the message lists every failing file, row and column."""


def _where(origin: pl.DataFrame | None, index: int | None) -> str:
    if origin is None or index is None:
        return f"row {index}" if index is not None else "table"
    row = origin.row(int(index), named=True)
    return f"{row['_file']} line {row['_line']}"


def validate(
    frame: pl.DataFrame,
    model: type[pa.DataFrameModel],
    origin: pl.DataFrame | None = None,
    max_listed: int = 20,
) -> pl.DataFrame:
    """Validate lazily (all problems at once); `origin` has `_file`/`_line` per row of `frame`.
    A valid frame comes back in the schema's column order, so parts of one table written by
    different producers concatenate."""
    import pandera.errors

    try:
        valid = model.validate(frame, lazy=True)
        columns = list(model.to_schema().columns)
        return valid.select(columns) if set(columns) == set(valid.columns) else valid
    except pandera.errors.SchemaErrors as exc:
        cases = exc.failure_cases
        lines = []
        for case in cases.head(max_listed).iter_rows(named=True):
            idx = case.get("index")
            lines.append(
                f"{_where(origin, idx)}, column {case.get('column')!r}: "
                f"{case.get('check')} failed (value {case.get('failure_case')!r})"
            )
        more = f"\n  … and {cases.height - max_listed} more" if cases.height > max_listed else ""
        raise TableError(
            f"{model.__name__}: {cases.height} problem(s)\n  " + "\n  ".join(lines) + more
        ) from None
