"""Figures drawn before, found again by what they were drawn from.

A rerun with nothing new draws the same figures from the same rows, and matplotlib's SVG
writer is most of a report's time (1.7 s of a paper-scale rerun's 3.8 s report, measured).
A figure's key is the sha256 of the rows (their JSON and schema), the drawing function, the
id prefix, matplotlib's version and the source of every module under `tasks/` (any code
change redraws everything: a stale figure is worse than a slow one). A key that misses only
costs a redraw.
Not Arrow IPC: an all-null column's value buffer is whatever memory it got, so the same rows
gave different bytes from one query to the next (tbl_d_study's n_orders of a rating study).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import matplotlib
import polars as pl

from judgelab import tempfiles
from tasks.report import plotting
from tasks.report.panel import Draw

TASKS_DIR = Path(__file__).resolve().parents[1]
NO_FIGURE = ""  # stored for a drawing that returned no figure


def code_version() -> str:
    """Hash of matplotlib's version and every module under tasks/ (a few ms)."""
    h = hashlib.sha256(matplotlib.__version__.encode())
    for path in sorted(TASKS_DIR.rglob("*.py")):
        h.update(str(path.relative_to(TASKS_DIR)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def figure_key(version: str, draw: Draw, table: pl.DataFrame, prefix: str) -> str:
    name = f"{draw.__module__}.{draw.__qualname__}\0{prefix}\0{version}\0{table.schema}\0"
    return hashlib.sha256(name.encode() + table.write_json().encode()).hexdigest()


class FigureCache:
    """One report's figures in `folder`; `prune()` drops those the last write did not use."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.version, self.used = folder, code_version(), set[str]()

    def render(self, draw: Draw, table: pl.DataFrame, prefix: str) -> str | None:
        key = figure_key(self.version, draw, table, prefix)
        self.used.add(key)
        path = self.folder / f"{key}.svg"
        if path.is_file():
            svg = path.read_text(encoding="utf-8")
            return svg if svg != NO_FIGURE else None
        svg = plotting.render(draw, table, prefix)
        self.folder.mkdir(parents=True, exist_ok=True)
        with tempfiles.replacing(path) as tmp:
            tmp.write_text(NO_FIGURE if svg is None else svg, encoding="utf-8")
        return svg

    def prune(self) -> None:
        for path in self.folder.glob("*.svg") if self.folder.is_dir() else []:
            if path.stem not in self.used:
                path.unlink(missing_ok=True)
