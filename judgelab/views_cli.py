"""What `judgelab tables`, `show` and `sql` print: view lists, filtered view queries, tables
that fit the terminal without splitting a word (every command's tables), and DuckDB errors as
one line."""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

# views any study fills, listed after each study type's own (tasks/study_types.py report_views)
EVERY_STUDY = ["tbl_runs", "tbl_changes", "tbl_design_cost", "tbl_drift", "tbl_drift_alerts"]


def report_groups() -> dict[str, list[str]]:
    """Report views per study type, in listing order (the type's main table first), then the
    views any study fills. tests/test_cli_show.py fails when a tbl_ view is in no group, or in
    two other than tbl_corrected (judge-corrected estimates: rating and accuracy alike)."""
    from tasks.study_types import StudyType

    return {k.name: list(k.report_views) for k in StudyType.every()} | {"every study": EVERY_STUDY}


SENTENCE_END = re.compile(r"[.?!](?=\s|$)")
MAX_CELL = 40  # characters of a string cell before it is cut with "…"


def comment_lines(sql_file: Path) -> list[str]:
    """A view's opening comment, line by line: its description, read by `judgelab tables`,
    the docs' view reference and the report's glossary (tasks/report/glossary.py)."""
    lines = []
    for line in sql_file.read_text(encoding="utf-8").splitlines():
        if not line.startswith("--"):
            break
        lines.append(line.removeprefix("--").strip())
    return lines


def describe(sql_file: Path) -> str:
    """The view's description: its opening comment up to the end of the first sentence, joined
    across lines (a first line alone can stop mid-sentence)."""
    comment = comment_lines(sql_file)
    text = " ".join(comment)
    first = comment[0] if comment else ""
    end = SENTENCE_END.search(text, max(len(first) - 1, 0))
    return text[: end.end()] if end else text


def listing(view_files: list[Path], every: bool) -> list[str]:
    """`judgelab tables`: report views grouped by study type; with `every`, then marts and
    staging (the views reports are built from)."""
    files = {f.stem: f for f in view_files}
    lines = []
    for group, views in report_groups().items():
        lines.append(f"{group}:")
        lines += [f"  {v:30} {describe(files[v])}" for v in views if v in files]
    if every:
        for prefix, title in [
            ("fct_", "marts (internal)"),
            ("dim_", "dimensions (sort orders)"),
            ("stg_", "staging (internal)"),
        ]:
            lines.append(f"{title}:")
            lines += [f"  {v:30} {describe(f)}" for v, f in files.items() if v.startswith(prefix)]
    else:
        lines.append(
            "(judgelab tables --all adds the internal stg_ and fct_ views and the dim_ sort orders)"
        )
    return lines


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def view_query(
    view: str, known: list[str], columns: str | None, where: str | None, limit: int | None
) -> tuple[str, list]:
    """The query of `show`/`export`. The view must be known (checked by the caller) and the
    columns must be the view's; `where` is the user's own SQL on their read-only warehouse."""
    chosen = [c.strip() for c in columns.split(",") if c.strip()] if columns else []
    unknown = [c for c in chosen if c not in known]
    if unknown:
        raise ValueError(
            f"{view} has no column {', '.join(map(repr, unknown))}; its columns: {', '.join(known)}"
        )
    sql = f"select {', '.join(map(quoted, chosen)) or '*'} from {quoted(view)}"
    params: list = []
    if where:
        sql += f" where {where}"
    if limit is not None:
        sql += " limit ?"
        params.append(limit)
    return sql, params


def terminal_width() -> int | None:
    """Columns to fit: $COLUMNS, else the terminal's; None when printing to a file or pipe."""
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def _text(frame: pl.DataFrame) -> str:
    """Polars' box layout (as `run` prints it) with no wrapping: long strings end in "…"."""
    import polars as pl

    flat = frame.with_columns(pl.selectors.string().str.replace_all(r"\s+", " "))
    with pl.Config(
        tbl_rows=-1,
        tbl_cols=-1,
        tbl_width_chars=65_535,  # (its maximum) never wrap a cell: wrapping splits words
        fmt_str_lengths=MAX_CELL,
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
    ):
        return str(flat) + "\n"


def _widest(text: str) -> int:
    return max(map(len, text.splitlines()), default=0)


def fit(frame: pl.DataFrame, width: int | None, hint: str = "") -> str:
    """The table as text, keeping the leading columns that fit in `width`; a last line names
    the columns left out (`hint` says how to get them). No line is longer than `width`, so the
    terminal splits no word."""
    text = _text(frame)
    if width is None or _widest(text) <= width:
        return text
    # a column takes its own rendered width less one shared border ("│ a ┆ b │")
    room, kept = width - 1, []
    for column in frame.columns:
        room -= _widest(_text(frame.select(column))) - 1
        if room < 0 and kept:
            break
        kept.append(column)
    text = _text(frame.select(kept))
    while len(kept) > 1 and _widest(text) > width:  # in case the estimate was off
        kept = kept[:-1]
        text = _text(frame.select(kept))
    left = frame.columns[len(kept) :]
    if left:
        note = f"{len(left)} more columns{hint}: {', '.join(left)}"
        text += textwrap.fill(note, width, break_long_words=False, break_on_hyphens=False) + "\n"
    return text


def one_line(error: Exception) -> str:
    """A DuckDB error as one line: its message and hint (`Did you mean …`), no query echo."""
    head = str(error).split("\n\n", 1)[0]
    return " ".join(line.strip() for line in head.splitlines() if line.strip())


def print_frame(frame: pl.DataFrame) -> None:
    """A frame printed to fit the terminal (every command's tables)."""
    print(fit(frame, terminal_width()), end="")
