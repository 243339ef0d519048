"""Drawing helpers every report figure shares: the report's style and palette, a figure on the
Agg canvas, the inline SVG writer, and a few ways of reading a view's frame for a figure.

A drawing function (tasks/<type>/figures.py, tasks/report/figures.py) takes a Polars frame and
returns a matplotlib figure, or None when its frame holds nothing to draw (no rows, or only
nulls), so the page can say so in one line instead of showing empty axes. `to_svg` turns a
figure into an inline <svg> element; nothing here reads or writes files.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable
from functools import wraps

import matplotlib
import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from tasks.report.panel import Draw

# text as paths: the SVG needs no font on the reader's machine
STYLE = {
    "svg.fonttype": "path",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.axisbelow": True,
}
# Okabe–Ito: distinguishable with the common colour-vision deficiencies
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
WIDTH = 10.0  # inches; the page scales the SVG to its column
# an axes legend to the right of its axes (constrained layout makes room for it)
OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)}


def styled(fn: Callable[..., Figure | None]) -> Callable[..., Figure | None]:
    """Draw inside the report's rc settings without touching the global ones."""

    @wraps(fn)
    def inner(*args, **kwargs) -> Figure | None:
        with matplotlib.rc_context(STYLE):
            return fn(*args, **kwargs)

    return inner


def new_figure(height: float, width: float = WIDTH) -> Figure:
    """A figure on the Agg canvas, laid out by matplotlib (constrained), no pyplot state."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def render(draw: Draw, table: pl.DataFrame, prefix: str) -> str | None:
    """Draw `table` and write the figure as SVG (None: `draw` drew nothing)."""
    fig = draw(table)
    return to_svg(fig, prefix) if fig is not None else None


def to_svg(fig: Figure, prefix: str) -> str:
    """The figure as one inline <svg> element whose ids all start with `prefix`, so several
    figures on one page never share an id; scaled to the page width by CSS."""
    buf = io.StringIO()
    with matplotlib.rc_context({**STYLE, "svg.hashsalt": prefix}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg") :]  # drop the XML declaration and doctype
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, count=1, flags=re.S)
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if ids:
        pattern = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
        svg = re.sub(rf'\bid="({pattern})"', rf'id="{prefix}-\1"', svg)
        svg = re.sub(rf"#({pattern})\b(?=[\"')])", rf"#{prefix}-\1", svg)
    width = re.search(r'<svg[^>]*?\swidth="([\d.]+)pt"', svg)
    svg = re.sub(r'(<svg[^>]*?)\swidth="[\d.]+pt"\s+height="[\d.]+pt"', r"\1", svg, count=1)
    max_width = f"max-width:{width.group(1)}pt;" if width else ""
    return svg.replace("<svg", f'<svg role="img" style="width:100%;height:auto;{max_width}"', 1)


def ordered(frame: pl.DataFrame, column: str) -> list:
    """Distinct values in the order the view sorts them."""
    return frame[column].unique(maintain_order=True).to_list()


def as_float(value: object) -> float:
    return math.nan if value is None else float(value)


def finite_rows(frame: pl.DataFrame, *columns: str) -> pl.DataFrame:
    """Rows with a real number in every one of `columns`."""
    return frame.filter(
        pl.all_horizontal(
            pl.col(c).cast(pl.Float64).is_not_null() & pl.col(c).cast(pl.Float64).is_not_nan()
            for c in columns
        )
    )


def error_bars(values: list[float], lo: list[float], hi: list[float]) -> np.ndarray:
    """Asymmetric error bars from CI bounds; a missing bound draws no bar."""
    v, lo_, hi_ = (np.array([as_float(x) for x in xs]) for xs in (values, lo, hi))
    return np.nan_to_num(np.vstack([v - lo_, hi_ - v]), nan=0.0).clip(min=0)


def study_rows(frame: pl.DataFrame, per_row: float, extra: float = 0.8) -> tuple[list, float]:
    studies = ordered(frame, "study")
    return studies, extra + per_row * len(studies)


def n_range(frame: pl.DataFrame) -> str:
    """The items behind a group of points: `n=30`, or `n=28–30` when they differ."""
    ns = frame["n_items"].drop_nulls() if "n_items" in frame.columns else pl.Series([], dtype=int)
    if ns.is_empty():
        return "n=?"
    lo, hi = int(ns.min()), int(ns.max())
    return f"n={lo}" if lo == hi else f"n={lo}–{hi}"
