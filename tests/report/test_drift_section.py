"""The report's drift section on a planted `drift` table: a figure per study with a panel per
watched judge (flagged batches ringed, noise bands shaded), the alerts table, the alerts in the
run summary; a study without canary batches gets no drift section at all."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from matplotlib.collections import PolyCollection

from judgelab.settings import Settings
from schemas.drift import Drift
from schemas.plan import Plan
from tasks import warehouse
from tasks.report import figures, plotting
from tasks.report.build import write_report
from tasks.report.summary import run_markdown
from tasks.runs import run_rows

from .conftest import parse_html

WATCHED, PLAIN = "drift-watched", "drift-plain"
BUCKETS = ["2026-12-01", "2026-12-02", "2026-12-03"]
DESIGNS = [("base", "likert7", "n/a"), ("long_icl", "likert7", "n/a")]
JUDGES = ["shifty", "steady"]  # in the order the view and the figure sort them
# (judge, design index, bucket index) → shift, CI, noise half-width, flagged; batch 1 is the
# reference (no shift); only shifty's base design moves beyond its band, in the last bucket
FLAGGED = ("shifty", 0, 2)


def drift_rows() -> pl.DataFrame:
    rows = []
    for judge in JUDGES:
        for d, (level, scale, effort) in enumerate(DESIGNS):
            for b, bucket in enumerate(BUCKETS):
                flagged = (judge, d, b) == FLAGGED
                shift = None if b == 0 else (0.6 if flagged else 0.05 * (d + 1))
                rows.append(
                    {
                        "study": WATCHED,
                        "judge": judge,
                        "model": f"fake/{judge}",
                        "prompt_level": level,
                        "scale": scale,
                        "reasoning_effort": effort,
                        "bucket": bucket,
                        "batch": b + 1,
                        "reference": None if b == 0 else BUCKETS[0],
                        "statistic": "mean_shift",
                        "n_items": 50 if b else 0,
                        "repeats": 2,
                        "shift": shift,
                        "shift_lo": None if shift is None else shift - 0.1,
                        "shift_hi": None if shift is None else shift + 0.1,
                        "noise": None if b == 0 else 0.25,
                        "noise_sd": None if b == 0 else 0.9,
                        "alpha": None if b == 0 else 0.8,
                        "accuracy_change": None,
                        "level": 0.95,
                        "flagged": flagged,
                    }
                )
    floats = ["shift", "shift_lo", "shift_hi", "noise", "noise_sd", "alpha", "accuracy_change"]
    return pl.DataFrame(
        rows, schema_overrides={c: pl.Float64 for c in floats} | {"reference": pl.String}
    )


def plan_rows(study: str) -> pl.DataFrame:
    """Two planned calls: enough for the study to exist (its type is rating)."""
    rows = [
        {
            "key": hashlib.sha256(f"{study}{i}".encode()).hexdigest(),
            "base_key": hashlib.sha256(f"{study}{i}".encode()).hexdigest(),
            "study": study,
            "judge": "steady",
            "model": "fake/steady",
            "task": "sentiment",
            "prompt_level": "base",
            "prompt_version": "v1",
            "scale": "likert7",
            "reasoning_effort": "n/a",
            "item_id": f"i{i}",
            "repeat": 0,
            "messages": "[]",
            "params": "{}",
        }
        for i in range(2)
    ]
    return pl.DataFrame(rows)


def write_study(settings: Settings, study: str) -> None:
    """Its plan, and a run in the ledger (where the report reads each study's type)."""
    at = datetime(2026, 12, 3, tzinfo=UTC)
    warehouse.write_table(settings, Plan.validate(plan_rows(study), lazy=True), "plan", study)
    ledger = run_rows(study, "rating", "r1", at, at, ["steady"], {})
    warehouse.write_table(settings, ledger, "runs", study)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    settings = Settings(data_dir=tmp_path_factory.mktemp("drift-report") / "data")
    for study in (WATCHED, PLAIN):
        write_study(settings, study)
    warehouse.write_table(settings, Drift.validate(drift_rows(), lazy=True), "drift", WATCHED)
    warehouse.publish_views(settings)
    return settings


def sections(path: Path) -> list[str]:
    return [s.attrs["id"] for s in parse_html(path.read_text("utf-8")).find_all("section")]


def test_the_report_has_a_drift_section_with_figure_and_alerts(
    planted: Settings, tmp_path: Path
) -> None:
    out = write_report(planted, [WATCHED], tmp_path / "r.html")
    dom = parse_html(out.read_text("utf-8"))
    assert sections(out) == ["summary", "rating", "drift", "costs", "glossary"]
    (part,) = [s for s in dom.find_all("section") if s.attrs["id"] == "drift"]
    assert "1 drift alert, listed below" in part.text()
    (fig,) = part.find_all("figure")
    assert fig.attrs["data-view"] == "tbl_drift" and len(fig.find_all("svg")) == 1
    for guide in (p.text() for p in part.find_all("p") if p.attrs.get("class") == "guide"):
        assert guide.endswith(".") and ". " not in guide  # one sentence, as every block's
    (table,) = part.find_all("table", **{"data-view": "tbl_drift"})
    assert len(table.table_rows()) == len(JUDGES) * len(DESIGNS) * len(BUCKETS)
    (alerts,) = part.find_all("table", **{"data-view": "tbl_drift_alerts"})
    (row,) = alerts.table_rows()
    judge, design, bucket = FLAGGED
    assert (row["judge"], row["prompt_level"], row["bucket"]) == (
        judge,
        DESIGNS[design][0],
        BUCKETS[bucket],
    )
    assert (row["shift"], row["shift_lo"], row["shift_hi"], row["noise"]) == (
        "0.6",
        "0.5",
        "0.7",
        "0.25",
    )


def test_a_study_without_canary_batches_has_no_drift_section(
    planted: Settings, tmp_path: Path
) -> None:
    out = write_report(planted, [PLAIN], tmp_path / "plain.html")
    assert sections(out) == ["summary", "rating", "costs", "glossary"]
    assert "tbl_drift" not in out.read_text("utf-8")


def test_no_flagged_batch_says_no_alerts(tmp_path: Path) -> None:
    calm = drift_rows().with_columns(flagged=pl.lit(False))
    settings = Settings(data_dir=tmp_path / "data")
    write_study(settings, WATCHED)
    warehouse.write_table(settings, Drift.validate(calm), "drift", WATCHED)
    warehouse.publish_views(settings)
    dom = parse_html(write_report(settings, [WATCHED], tmp_path / "r.html").read_text("utf-8"))
    (part,) = [s for s in dom.find_all("section") if s.attrs["id"] == "drift"]
    assert "No drift alerts" in part.text()
    assert "No rows in tbl_drift_alerts" in part.text()


def test_the_figure_has_a_panel_per_judge_bands_and_a_ringed_flag() -> None:
    frame = drift_rows()
    fig = figures.drift(frame)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in axes] == [f"{WATCHED}: {j}" for j in JUDGES]
    for ax in axes:
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        assert ticks == [f"{BUCKETS[0]}\n(reference)", *BUCKETS[1:]]
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bands) == len(DESIGNS) * (len(BUCKETS) - 1)  # batch 1 has no band
        ys = bands[0].get_paths()[0].vertices[:, 1]
        assert np.isclose(ys.min(), -0.25) and np.isclose(ys.max(), 0.25)  # ±noise
    rings = [
        ln
        for ax in axes
        for ln in ax.get_lines()
        if ln.get_marker() == "o" and ln.get_markerfacecolor() == "none"
    ]
    (ring,) = rings
    assert ring.axes is axes[JUDGES.index(FLAGGED[0])]
    assert list(ring.get_ydata()) == [0.6]
    labels = [h.get_label() for h in fig.legends[0].legend_handles]
    assert "flagged: CI outside the noise band" in labels
    assert "base · likert7 · n/a (n=50, R=2)" in labels
    assert plotting.to_svg(fig, "d").startswith("<svg")


def test_a_flip_rate_band_starts_at_zero() -> None:
    frame = drift_rows().with_columns(statistic=pl.lit("flip_rate"))
    ax = figures.drift(frame).axes[0]
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    ys = bands[0].get_paths()[0].vertices[:, 1]
    assert np.isclose(ys.min(), 0) and np.isclose(ys.max(), 0.25)
    assert ax.get_ylabel() == "flip rate vs reference"


def test_only_reference_batches_draw_nothing() -> None:
    assert figures.drift(drift_rows().filter(pl.col("batch") == 1)) is None


def test_the_run_summary_lists_the_alerts() -> None:
    alerts = drift_rows().filter(pl.col("flagged"))
    text = run_markdown("run", [], [], {}, pl.DataFrame(), Path("/r.html"), alerts)
    assert "## Drift alerts: 1" in text
    assert (
        f"- {WATCHED}: shifty · base · likert7 · n/a · bucket 2026-12-03 (vs 2026-12-01, n=50): "
        "mean shift +0.6 [+0.5, +0.7] vs noise ±0.25" in text
    )
    assert "Drift alerts" not in run_markdown("run", [], [], {}, pl.DataFrame(), Path("/r"))
    empty = alerts.head(0)
    assert "Drift alerts" not in run_markdown("run", [], [], {}, pl.DataFrame(), Path("/r"), empty)
