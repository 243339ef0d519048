"""Figures a person can read: no tick labels on top of each other, no legend over a point or a
bar, a value of 0 still seen, and every line of a figure told apart by colour and marker.
Inline frames shaped like the views (one judge, three prompt levels or three axes: the cases
issue 30 found unreadable), then every figure of the report's warehouse."""

from __future__ import annotations

import itertools

import polars as pl
import pytest

from tasks import warehouse
from tasks.pairwise import figures as pairwise_figures
from tasks.study_types import StudyType
from tasks.tone import figures as tone_figures

from .conftest import Warehouse
from .layout import legends_over_data, overlapping_labels

LEVELS = ["plain", "style_attention"]
AXES = ["confidence", "verbosity", "formatting"]


def one_judge_positions() -> pl.DataFrame:
    """A judge that always answers A, on three prompt levels: bias +50 pp, consistency 0."""
    return pl.DataFrame(
        {
            "study": ["pairwise"] * 3,
            "judge": ["smollm2-135m"] * 3,
            "prompt_level": ["base", "short_icl", "long_icl"],
            "reasoning_effort": ["n/a"] * 3,
            "bias_pp": [50.0] * 3,
            "bias_lo_pp": [50.0] * 3,
            "bias_hi_pp": [50.0] * 3,
            "flagged": [True] * 3,
            "consistency_pct": [0.0] * 3,
        }
    )


def test_pairwise_legend_leaves_every_design_visible_and_zero_consistency_shows() -> None:
    fig = pairwise_figures.position_bias(one_judge_positions())
    bias_ax, consistency_ax = fig.axes
    assert legends_over_data(fig) == []
    assert overlapping_labels(fig) == []
    (dots,) = [c for c in bias_ax.collections if c.get_label() == "flagged (sign test)"]
    assert [y for _, y in dots.get_offsets().tolist()] == [2, 1, 0]  # long_icl at the bottom
    # no empty legend entry for a kind of point that is not drawn
    assert [t.get_text() for t in bias_ax.get_legend().get_texts()] == ["flagged (sign test)"]
    # a 0% bar has no width: its value is written beside it and a tick marks where it ends
    assert [t.get_text() for t in consistency_ax.texts] == ["0%", "0%", "0%"]
    (ends,) = consistency_ax.collections
    assert ends.get_offsets().tolist() == [[0, 2], [0, 1], [0, 0]]
    assert "no design keeps a winner" in consistency_ax.get_title(loc="left")
    mixed = one_judge_positions().with_columns(consistency_pct=pl.Series([0.0, 25.0, None]))
    fig = pairwise_figures.position_bias(mixed)
    assert [t.get_text() for t in fig.axes[1].texts] == ["0%", "25%", "–"]
    assert fig.axes[1].get_title(loc="left") == ""


def tone_rows(**columns: list) -> dict:
    """One row per prompt level × axis of one judge and the lexical rewriter."""
    groups = list(itertools.product(LEVELS, AXES))
    return {
        "study": ["tone-axes"] * len(groups),
        "judge": ["smollm2-135m"] * len(groups),
        "prompt_level": [level for level, _ in groups],
        "rewriter": ["lexical"] * len(groups),
        "axis": [axis for _, axis in groups],
        **columns,
    }


def test_tone_figures_of_six_groups_keep_their_labels_apart() -> None:
    gaps = pl.DataFrame(
        tone_rows(
            n_texts=[4, 7, 8, 4, 7, 8],
            win_ratio=[0.0, None, 3.0, 0.5, None, 0.5],
            n_a_wins=[0, 5, 3, 1, 4, 1],
            flip_a_pass_pct=[0.0, 14.3, 0.0, 0.0, 0.0, 0.0],
            flip_b_pass_pct=[0.0, 0.0, 0.0, 25.0, 0.0, 0.0],
            threshold=[6.0] * 6,
        )
    )
    fig = tone_figures.tone_gaps(gaps)
    assert overlapping_labels(fig) == [] and legends_over_data(fig) == []
    ratio_ax = fig.axes[0]
    labels = [t.get_text() for t in ratio_ax.get_yticklabels()]
    assert labels[0] == "smollm2-135m · plain · confidence (n=4)"  # the view's first row on top
    assert len(set(labels)) == 6

    per_text = pl.DataFrame(
        {k: v * 3 for k, v in tone_rows(gap=[0.5, 1.0, -0.5, 0.0, 2.0, 1.5]).items()}
    )
    fig = tone_figures.tone_per_text(per_text)
    assert overlapping_labels(fig) == [] and legends_over_data(fig) == []
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "smollm2-135m · style_attention · verbosity (n=3)" in ticks and len(ticks) == 6


def test_tone_flip_lines_each_have_their_own_colour_and_marker() -> None:
    marks = [1.0 + 0.5 * k for k in range(19)]
    rows = tone_rows()
    flips = pl.DataFrame(
        {k: [v for v in vs for _ in marks] for k, vs in rows.items()}
        | {
            "threshold": marks * 6,
            "net_flip_pct": [float((i * 7) % 30 - 12) for i in range(6 * len(marks))],
            "n_texts": [8] * (6 * len(marks)),
        }
    )
    fig = tone_figures.tone_flips(flips)
    lines = [ln for ln in fig.axes[0].get_lines() if ln.get_label() and len(ln.get_xdata()) > 2]
    assert len(lines) == 6
    assert len({ln.get_color() for ln in lines}) == 6
    assert len({ln.get_marker() for ln in lines}) == 6
    assert legends_over_data(fig) == [] and overlapping_labels(fig) == []
    assert {t.get_text() for t in fig.axes[0].get_legend().get_texts()} == {
        f"smollm2-135m · {level} · {axis} (n=8)" for level in LEVELS for axis in AXES
    }


@pytest.mark.slow
def test_no_figure_of_the_report_overlaps_its_labels_or_hides_data(
    warehouse_run: Warehouse,
) -> None:
    drawn = 0
    for record in StudyType.every():
        for panel in (p for p in record.load("report").PANELS if p.draw is not None):
            frame = warehouse.query(
                warehouse_run.settings,
                f"select * from {panel.view} where list_contains(?, study)",
                [warehouse_run.studies],
            )
            fig = panel.draw(frame) if frame.height else None
            if fig is None:
                continue
            drawn += 1
            assert overlapping_labels(fig) == [], (record.name, panel.view)
            assert legends_over_data(fig) == [], (record.name, panel.view)
    assert drawn >= 8
