"""Render a view as plain text, CSV, Markdown or LaTeX for papers and reports."""

from __future__ import annotations

import io
import re

import polars as pl

from tasks.warehouse import view_files

FORMATS = ("text", "csv", "md", "latex")


def select_view(name: str) -> str:
    """`select * from <view>` for a known view only: the name is checked, never interpolated
    from arbitrary input."""
    known = {f.stem for f in view_files()}
    if name not in known:
        raise FileNotFoundError(f"no view {name!r}; `judgelab tables` lists them")
    return f'select * from "{name}"'


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def _latex_escape(text: str) -> str:
    return re.sub(r"([&%$#_{}])", r"\\\1", text).replace("~", r"\textasciitilde{}")


def render(frame: pl.DataFrame, fmt: str) -> str:
    if fmt == "csv":
        buf = io.StringIO()
        frame.write_csv(buf)
        return buf.getvalue()
    rows = [[_cell(v) for v in row] for row in frame.iter_rows()]
    if fmt == "md":
        head = "| " + " | ".join(frame.columns) + " |"
        rule = "|" + "|".join("---" for _ in frame.columns) + "|"
        body = ["| " + " | ".join(c.replace("|", r"\|") for c in r) + " |" for r in rows]
        return "\n".join([head, rule, *body]) + "\n"
    if fmt == "latex":
        align = "".join("r" if frame[c].dtype.is_numeric() else "l" for c in frame.columns)
        lines = [
            rf"\begin{{tabular}}{{{align}}}",
            r"\toprule",
            " & ".join(_latex_escape(c) for c in frame.columns) + r" \\",
            r"\midrule",
            *(" & ".join(_latex_escape(c) for c in r) + r" \\" for r in rows),
            r"\bottomrule",
            r"\end{tabular}",
        ]
        return "\n".join(lines) + "\n"
    if fmt == "text":
        with pl.Config(
            tbl_rows=-1,
            tbl_cols=-1,
            tbl_width_chars=250,
            fmt_str_lengths=60,
            tbl_hide_dataframe_shape=True,
            tbl_hide_column_data_types=True,
        ):
            return str(frame) + "\n"
    raise ValueError(f"unknown format {fmt!r}; one of {FORMATS}")
