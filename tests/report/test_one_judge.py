"""The report of studies with one judge each (the shipped embedded-judge studies look like
this): the figures that compare judges give one line instead of a rank of "#1" everywhere or an
ensemble curve of one point."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Node, Warehouse, parse_html

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def one_judge_dom(one_judge_run: Warehouse) -> Node:
    path = one_judge_run.settings.data_dir / "reports" / "one.html"
    return parse_html(Path(path).read_text(encoding="utf-8"))


def test_figures_that_compare_judges_are_one_line_with_one_judge(one_judge_dom: Node) -> None:
    (rating,) = [s for s in one_judge_dom.find_all("section") if s.attrs["id"] == "rating"]
    drawn = [f.attrs["data-view"] for f in rating.find_all("figure")]
    assert "tbl_rating_performance" in drawn
    for view in ("tbl_judge_ranking", "tbl_ensemble_size"):
        assert view not in drawn
        (line,) = [
            p for p in rating.find_all("p", **{"class": "empty"}) if p.attrs["data-view"] == view
        ]
        assert line.text() == (
            "Not drawn for one-rating: this figure compares 2 or more judges, and one-rating "
            "has 1 judge (solo); the rows are in the table below."
        )
        (table,) = rating.find_all("table", **{"data-view": view})
        assert table.table_rows()  # the numbers are still there
