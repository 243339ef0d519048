"""The problems a user's file has, collected while it is read and checked, and reported all at
once naming file, line (row) and column."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

MAX_LISTED = 20  # problems shown per kind; the rest are counted


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
