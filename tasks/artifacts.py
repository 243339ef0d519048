"""Report views turned into Prefect table artifacts (pure: frame in, JSON-safe rows out)."""

from __future__ import annotations

import math
import re

import polars as pl

MAX_ROWS = 500  # the UI shows a table, not a warehouse: the full view is one SQL query away
# Bookkeeping columns go to the right: the UI shows the first columns of a wide table, and an
# artifact belongs to one study and run anyway (tbl_changes led with ids and timestamps).
READ_LAST = ("study", "run_id", "previous_run_id", "finished_at", "created_at")


def artifact_key(*parts: str) -> str:
    """Prefect keys allow lowercase letters, digits and dashes only."""
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def table_rows(frame: pl.DataFrame, max_rows: int = MAX_ROWS) -> list[dict]:
    """Rows as JSON-safe dicts: numbers stay numbers (NaN → null), everything else a string;
    the columns a person reads first, bookkeeping last."""
    last = [c for c in READ_LAST if c in frame.columns]
    frame = frame.select(pl.exclude(last), *last)
    head = frame.head(max_rows).with_columns(
        pl.col(c).cast(pl.String)
        for c, dtype in frame.schema.items()
        if not (dtype.is_numeric() or dtype == pl.Boolean)
    )

    def clean(value: object) -> object:
        return None if isinstance(value, float) and not math.isfinite(value) else value

    return [{k: clean(v) for k, v in row.items()} for row in head.iter_rows(named=True)]
