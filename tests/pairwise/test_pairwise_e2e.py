"""End to end: studies/pairwise.toml on the embedded judge, a few HH-RLHF pairs, through the CLI
and the real flow; it prints position consistency and bias, writes the report, and a rerun
makes no call. The texts hold harmful requests: only tables of numbers are printed (and
asserted on), and the report hides every text until asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report.conftest import page_svg, parse_html
from test_flow_e2e import calls_made, judgelab

from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging import store
from tasks.pairwise.figures import position_bias
from tasks.report.page import fmt_value
from tasks.report.plotting import render

pytestmark = pytest.mark.slow

N_PAIRS = 2
N_CALLS = N_PAIRS * 2 * 3  # pairs × orders × prompt levels


def test_pairwise_study_on_the_embedded_judge_and_rerun_makes_no_calls(tmp_path: Path) -> None:
    data = tmp_path / "data"
    args = ("run", "studies/pairwise.toml", "--sample-size", str(N_PAIRS))
    out = judgelab(data, *args)
    assert calls_made(out, "smollm2-135m") == N_CALLS
    assert "tbl_pairwise_position" in out
    assert "consistency_pct" in out and "bias_pp" in out and "tbl_pairwise_agreement" in out
    settings = Settings(data_dir=data)
    rows = store.read_store(settings.store_dir)
    assert rows.height == N_CALLS and set(rows["status"]) <= {"ok", "unparseable", "out_of_range"}
    table = warehouse.query(settings, "select * from tbl_pairwise_position order by prompt_level")
    assert table.height == 3 and set(table["n_calls"]) == {2 * N_PAIRS}
    assert set(table["n_pairs"]) == {N_PAIRS}
    pairs = warehouse.query(settings, "select count(*) as n, count(preferred) as k from stg_pairs")
    assert pairs.row(0) == (N_PAIRS, N_PAIRS)  # HH-RLHF: every pair has the human's choice
    check_report(data / "reports" / "pairwise.html", settings)

    again = judgelab(data, *args)
    assert calls_made(again, "smollm2-135m") == 0
    assert f"{N_CALLS} already stored" in again
    assert table.equals(
        warehouse.query(settings, "select * from tbl_pairwise_position order by prompt_level")
    )


def check_report(path: Path, settings: Settings) -> None:
    """The report the run wrote: the pairwise section, whose figure is the drawing of
    tbl_pairwise_position and whose tables show the views' numbers; every design's calls in
    the drill-down, their texts hidden."""
    page = path.read_text(encoding="utf-8")
    dom = parse_html(page)
    # the embedded judge stores its probability of A, B and tie: the report calibrates P(A)
    assert [s.attrs["id"] for s in dom.find_all("section")] == [
        "summary",
        "pairwise",
        "calibration",
        "costs",
        "glossary",
    ]
    calibration = warehouse.query(settings, "select * from tbl_calibration")
    assert calibration.height == 3 and (calibration["n_scored"] > 0).all()
    assert (calibration["n_no_probs"] == 0).all() and calibration["ece"].is_not_null().all()
    figures = [f.attrs["data-view"] for f in dom.find_all("figure")]
    # the summary's, then the type's: position bias, the right-or-wrong variance split; then
    # the reliability diagrams of P(A)
    assert figures == [
        "fct_calls",
        "tbl_pairwise_position",
        "tbl_variance_components",
        "tbl_d_study",
        "tbl_calibration",
    ]
    for view, columns in {
        "tbl_pairwise_position": ["n_pairs", "n_calls", "consistency_pct", "bias_pp", "p_holm"],
        "tbl_pairwise_agreement": ["n_decisive", "a_win_pct", "human_acc_pct"],
    }.items():
        rows = warehouse.query(settings, f"select * from {view}")
        if view == "tbl_pairwise_position":
            drawn = render(position_bias, rows, "pairwise-1")
            assert page_svg(page, view) == drawn.strip()
            columns.append("flagged")
        (table,) = dom.find_all("table", **{"data-view": view})
        shown = [[r[c] for c in ["prompt_level", *columns]] for r in table.table_rows()]
        assert shown == [
            [fmt_value(v) for v in row] for row in rows.select("prompt_level", *columns).rows()
        ]
        assert [r[0] for r in shown] == ["base", "short_icl", "long_icl"]
    (script,) = dom.find_all("script", id="drill-data")
    designs = json.loads(script.text())["designs"].values()
    assert sorted(d["label"] for d in designs) == [
        f"pairwise · smollm2-135m · {level} · n/a" for level in ("base", "long_icl", "short_icl")
    ]
    assert all(d["hide"] and d["n"] == 2 * N_PAIRS for d in designs)
