"""The figure cache: a figure is drawn once per (rows, drawing, prefix, code), found again
after, redrawn when any of them changes; a report's unused figures are pruned."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tasks.report import figcache, plotting
from tasks.report.figcache import FigureCache

DRAWN: list[int] = []


def bars(table: pl.DataFrame):
    DRAWN.append(table.height)
    fig = plotting.new_figure(1.5)
    fig.add_subplot().bar(range(table.height), table["v"].to_list())
    return fig


def nothing(table: pl.DataFrame):
    DRAWN.append(table.height)
    return None


@pytest.fixture(autouse=True)
def _count() -> None:
    DRAWN.clear()


def test_same_rows_are_drawn_once_and_equal_a_fresh_drawing(tmp_path: Path) -> None:
    table = pl.DataFrame({"v": [1.0, 2.0, 3.0]})
    cache = FigureCache(tmp_path)
    first = cache.render(bars, table, "p")
    again = FigureCache(tmp_path).render(bars, table, "p")  # a later run: a new process
    assert DRAWN == [3] and first == again == plotting.render(bars, table, "p")
    assert first.startswith("<svg") and 'id="p-' in first


def test_rows_prefix_drawing_and_code_each_redraw(tmp_path: Path, monkeypatch) -> None:
    table = pl.DataFrame({"v": [1.0, 2.0, 3.0]})
    cache = FigureCache(tmp_path)
    cache.render(bars, table, "p")
    cache.render(bars, table.with_columns(pl.col("v") * 2), "p")  # other rows
    cache.render(bars, table, "q")  # other ids
    assert cache.render(nothing, table, "p") is None  # another drawing, which draws nothing
    assert FigureCache(tmp_path).render(nothing, table, "p") is None  # ... and is cached so
    assert DRAWN == [3, 3, 3, 3]
    monkeypatch.setattr(figcache, "code_version", lambda: "other code")
    FigureCache(tmp_path).render(bars, table, "p")
    assert DRAWN == [3, 3, 3, 3, 3]


def test_prune_keeps_only_what_the_last_report_used(tmp_path: Path) -> None:
    a, b = pl.DataFrame({"v": [1.0]}), pl.DataFrame({"v": [2.0]})
    first = FigureCache(tmp_path)
    first.render(bars, a, "p")
    first.render(bars, b, "p")
    first.prune()
    assert len(list(tmp_path.glob("*.svg"))) == 2
    second = FigureCache(tmp_path)
    second.render(bars, b, "p")
    second.prune()
    (kept,) = tmp_path.glob("*.svg")
    assert kept.stem == figcache.figure_key(second.version, bars, b, "p")


def test_code_version_follows_the_source(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    monkeypatch.setattr(figcache, "TASKS_DIR", tmp_path)
    before = figcache.code_version()
    (tmp_path / "m.py").write_text("x = 2\n")
    assert figcache.code_version() != before


def test_null_cells_key_alike_whatever_memory_is_under_them() -> None:
    """An all-null column from a query carries whatever bytes its buffer got (Arrow leaves null
    slots undefined): the same rows must give the same key, or a rerun redraws the figure."""
    import pyarrow as pa

    def with_buffer(values: list[int]) -> pl.DataFrame:
        validity = pa.py_buffer(bytes([0]))  # three slots, all null
        data = pa.py_buffer(pa.array(values, pa.int64()).buffers()[1].to_pybytes())
        column = pa.Array.from_buffers(pa.int64(), 3, [validity, data], null_count=3)
        return pl.from_arrow(pa.table({"n": column, "y": pa.array([0.1, 0.2, 0.3])}))

    a, b = with_buffer([0, 0, 0]), with_buffer([7, 8, 9])
    assert a.equals(b)
    assert figcache.figure_key("v", bars, a, "p") == figcache.figure_key("v", bars, b, "p")
    changed = b.with_columns(pl.col("y") + 1)
    assert figcache.figure_key("v", bars, changed, "p") != figcache.figure_key("v", bars, b, "p")
