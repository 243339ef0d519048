"""Views export as CSV, Markdown and LaTeX; only known view names are accepted."""

import polars as pl
import pytest

from tasks.export import render, select_view

FRAME = pl.DataFrame({"judge": ["a_b", "c|d"], "bias": [0.5, None]})


def test_markdown_escapes_pipes_and_keeps_nulls_empty() -> None:
    md = render(FRAME, "md").splitlines()
    assert md[:2] == ["| judge | bias |", "|---|---|"]
    assert md[3] == r"| c\|d |  |"


def test_latex_escapes_and_aligns_numbers_right() -> None:
    tex = render(FRAME, "latex")
    assert r"\begin{tabular}{lr}" in tex and r"a\_b & 0.5 \\" in tex


def test_csv_round_trips() -> None:
    import io

    assert pl.read_csv(io.StringIO(render(FRAME, "csv"))).equals(FRAME)


def test_unknown_view_is_refused() -> None:
    assert select_view("tbl_rating_performance") == 'select * from "tbl_rating_performance"'
    with pytest.raises(FileNotFoundError, match="judgelab tables"):
        select_view("tbl_x; drop table y")
