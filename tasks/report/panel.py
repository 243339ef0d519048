"""A block of the report as a study type declares it (tasks/<type>/report.py): its view, how
to read it and how to draw it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import polars as pl
from matplotlib.figure import Figure

Draw = Callable[[pl.DataFrame], Figure | None]  # a view's rows → its figure (None: nothing)


@dataclass(frozen=True)
class Panel:
    """One block of the report: a view, how to read it, and how to draw it (None: a table)."""

    view: str
    title: str
    guide: str
    draw: Draw | None = None
    why_blank: str = ""  # shown when the view has rows but nothing to draw
    # judges a study needs for the figure to say anything (a rank among judges, ensembles of
    # different judges): with fewer, one line says so instead (the table stays)
    min_judges: int = 1


class Headline(NamedTuple):
    """What a study's tables say, computed once (a type's `headline` in tasks/study_types.py):
    `top`, at most three numbers, opens the report page; `full` opens the type's section and
    is what `judgelab run` prints."""

    top: str
    full: str
