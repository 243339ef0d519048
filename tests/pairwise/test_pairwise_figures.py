"""The pairwise report's figure on a few hand-made rows of tbl_pairwise_position: one row per
design, top to bottom in the view's order, each bias at its interval, filled only when the
design is flagged, and its consistency bar beside it."""

from __future__ import annotations

import polars as pl

from tasks.pairwise.figures import position_bias
from tasks.report import plotting

COLUMNS = [
    "study",
    "judge",
    "prompt_level",
    "reasoning_effort",
    "bias_pp",
    "bias_lo_pp",
    "bias_hi_pp",
    "flagged",
    "consistency_pct",
]
ROWS = [
    ("s", "j1", "base", "n/a", 40.0, 30.0, 45.0, True, 10.0),  # a lopsided interval
    ("s", "j1", "long_icl", "n/a", 5.0, -10.0, 20.0, False, 80.0),
    ("s", "j2", "base", "n/a", -2.5, None, None, None, None),  # no interval, no test
    ("s", "j2", "long_icl", "n/a", None, None, None, None, 50.0),  # no decisive verdict
]


def frame(rows: list[tuple] = ROWS) -> pl.DataFrame:
    return pl.DataFrame(rows, COLUMNS, orient="row")


def points(ax, label: str) -> list[tuple[float, float]]:
    """The (x, y) points of the scatter labelled `label`."""
    (dots,) = [c for c in ax.collections if c.get_label() == label]
    return [tuple(p) for p in dots.get_offsets().tolist()]


def test_each_design_is_a_row_with_its_bias_interval_flag_and_consistency() -> None:
    fig = position_bias(frame())
    ax, cax = fig.axes
    # rows top to bottom in the view's order; a design without a decisive verdict is left out
    ticks = sorted(ax.get_yticklabels(), key=lambda t: -t.get_position()[1])
    assert [(t.get_position()[1], t.get_text()) for t in ticks] == [
        (2, "s · j1 · base"),
        (1, "s · j1 · long_icl"),
        (0, "s · j2 · base"),
    ]
    # one filled point, the flagged design; no test (null) is drawn hollow
    assert points(ax, "flagged (sign test)") == [(40.0, 2.0)]
    assert points(ax, "not flagged") == [(5.0, 1.0), (-2.5, 0.0)]
    # each interval spans lo..hi at its row (a missing interval is a bar of length 0)
    (bars,) = [
        c for c in ax.collections if c.get_label() not in {"flagged (sign test)", "not flagged"}
    ]
    spans = [[tuple(p) for p in seg.tolist()] for seg in bars.get_segments()]
    assert spans == [
        [(30.0, 2.0), (45.0, 2.0)],
        [(-10.0, 1.0), (20.0, 1.0)],
        [(-2.5, 0.0), (-2.5, 0.0)],
    ]
    # consistency beside each row, a missing one as an empty bar
    assert [(p.get_y() + p.get_height() / 2, p.get_width()) for p in cax.patches] == [
        (2.0, 10.0),
        (1.0, 80.0),
        (0.0, 0.0),
    ]
    # room right of 100% for the value each bar carries; a missing consistency reads "–"
    assert cax.get_xlim() == (0.0, 115.0) and list(cax.get_xticks()) == [0, 25, 50, 75, 100]
    assert [t.get_text() for t in cax.texts] == ["10%", "80%", "–"]
    assert plotting.to_svg(fig, "pw").startswith("<svg")


def test_the_effort_is_in_the_labels_only_when_it_varies() -> None:
    rows = [(*r[:3], effort, *r[4:]) for r, effort in zip(ROWS[:2], ("low", "high"), strict=True)]
    labels = [t.get_text() for t in position_bias(frame(rows)).axes[0].get_yticklabels()]
    assert sorted(labels) == ["s · j1 · base · low", "s · j1 · long_icl · high"]


def test_no_decisive_verdict_draws_nothing() -> None:
    assert position_bias(frame(ROWS[3:])) is None
    assert position_bias(frame().head(0)) is None
