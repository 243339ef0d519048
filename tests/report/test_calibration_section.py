"""The report's calibration section on a planted accuracy study (tests/accuracy/
test_calibration_stage.py): a reliability diagram per design whose points are the bins of
tbl_calibration_bins, and the numbers table; a study without stored distributions, or of a type
without calibration, gets no section."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from accuracy.test_calibration_stage import STUDY, plant

from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import warehouse
from tasks.accuracy import stages
from tasks.report import figures
from tasks.report.build import write_report
from tasks.runs import run_rows

from .conftest import parse_html


def planted(tmp_path: Path, with_probs: bool) -> Settings:
    settings = Settings(data_dir=tmp_path / "data")
    (path := tmp_path / "calib.toml").write_text(STUDY)
    plant(settings, with_probs)
    stages.calibration_stage.fn(load_study(path), settings)
    at = datetime(2026, 12, 3, tzinfo=UTC)
    ledger = run_rows("calib", "accuracy", "r1", at, at, ["honest", "sure"], {})
    warehouse.write_table(settings, ledger, "runs", "calib")
    warehouse.publish_views(settings)
    return settings


def section(out: Path):
    dom = parse_html(out.read_text("utf-8"))
    ids = [s.attrs["id"] for s in dom.find_all("section")]
    parts = [s for s in dom.find_all("section") if s.attrs["id"] == "calibration"]
    return ids, parts


def test_the_report_draws_a_reliability_diagram_per_design(tmp_path: Path) -> None:
    settings = planted(tmp_path, with_probs=True)
    ids, (part,) = section(write_report(settings, ["calib"], tmp_path / "r.html"))
    assert ids == ["summary", "accuracy", "calibration", "costs", "glossary"]
    assert "2 of 2 designs have probabilities" in part.text()
    assert "1 design beyond what a calibrated judge shows by chance" in part.text()
    (fig,) = part.find_all("figure")
    assert fig.attrs["data-view"] == "tbl_calibration" and len(fig.find_all("svg")) == 1
    (table,) = part.find_all("table", **{"data-view": "tbl_calibration"})
    assert [r["judge"] for r in table.table_rows()] == ["honest", "sure"]


def test_without_distributions_there_is_no_section(tmp_path: Path) -> None:
    """Until judges store distributions the section would only say so: it is left out (as
    drift's without a canary), and tbl_calibration says it per design."""
    settings = planted(tmp_path, with_probs=False)
    ids, parts = section(write_report(settings, ["calib"], tmp_path / "r.html"))
    assert ids == ["summary", "accuracy", "costs", "glossary"] and not parts


def test_each_panel_plots_its_design_bins_on_the_diagonal(tmp_path: Path) -> None:
    settings = planted(tmp_path, with_probs=True)
    bins = warehouse.query(settings, "select * from tbl_calibration_bins").join(
        warehouse.query(
            settings,
            "select study, judge, prompt_level, reasoning_effort, event, "
            "ece, brier from tbl_calibration",
        ),
        on=["study", "judge", "prompt_level", "reasoning_effort"],
    )
    fig = figures.reliability(bins)
    honest, sure = (ax for ax in fig.axes if ax.get_visible())
    for ax, judge in ((honest, "honest"), (sure, "sure")):
        mine = bins.filter(pl.col("judge") == judge)
        (points,) = ax.collections
        np.testing.assert_allclose(
            points.get_offsets(), mine.select("mean_p", "observed").to_numpy()
        )
        ece = mine["ece"][0]
        assert ax.get_title(loc="left").splitlines()[:2] == [judge, "base"]  # one study
        assert f"ECE {ece:.3f}" in ax.get_title(loc="left")
    assert figures.reliability(bins.clear()) is None


def test_long_names_on_many_panels_keep_their_titles_apart() -> None:
    """Twelve designs of two studies with long judge names: each title wraps inside its
    panel, touching neither a neighbour's title nor another panel."""
    rows = [
        {"study": study, "judge": judge, "prompt_level": level, "reasoning_effort": "n/a"}
        | {"bin": b, "n": 10, "mean_p": (b + 0.5) / 10, "observed": (b + 0.5) / 11}
        | {"event": "TRUE", "ece": 0.05, "brier": 0.2}
        for study in ("accuracy-with-a-long-study-name", "other")
        for judge in ("gpt-4o-mini-2024-07-18", "anthropic/claude-3-5-sonnet-20241022-latest", "j")
        for level in ("base", "long_icl")
        for b in range(10)
    ]
    fig = figures.reliability(pl.DataFrame(rows))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 12 and len(fig.axes) == 12
    titles = [ax._left_title for ax in axes]  # set_title(loc="left")'s text
    assert all(t.get_text().startswith(("accuracy-with", "other")) for t in titles)
    boxes = [t.get_window_extent(renderer) for t in titles]
    for (i, box), (k, ax) in itertools.product(enumerate(boxes), enumerate(axes)):
        if i != k:
            assert not box.overlaps(boxes[k]) and not box.overlaps(ax.get_window_extent(renderer))


@pytest.fixture
def no_calibration(tmp_path: Path) -> Settings:
    settings = Settings(data_dir=tmp_path / "data")
    at = datetime(2026, 12, 3, tzinfo=UTC)
    warehouse.write_table(settings, run_rows("r", "rating", "r1", at, at, ["j"], {}), "runs", "r")
    warehouse.publish_views(settings)
    return settings


def test_a_study_without_calibration_has_no_section(no_calibration: Settings, tmp_path: Path):
    ids, parts = section(write_report(no_calibration, ["r"], tmp_path / "r.html"))
    assert "calibration" not in ids and not parts
