"""Call counts agree everywhere (issue 30: one study was "648 planned" in `judgelab plan`, 720
in the report's "What ran", "1,920 calls" in the docs). A judgment is a plan row (item × design
× repeat); a call is a judge's distinct request, and items with identical text share one. Plan,
run, the report's "What ran" and the cost table count calls; plan and "What ran" also show the
judgments, labelled as such. Here 6 items, two of them repeating another's text, × 2 scales:
12 judgments from 8 calls."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from report.conftest import parse_html
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from tasks import warehouse

pytestmark = pytest.mark.slow

STUDY = """[study]
name = "twins"
task = "sentiment"
benchmark = "file"
sample_size = 0
prompt_levels = ["base"]
scales = ["likert7", "pct100"]

[study.data]
path = "twins.csv"
id_column = "id"
text_column = "sentence"
mean_column = "valence"
scale_min = 1
scale_max = 5

[[judges]]
name = "a"
model = "fake/x"
max_tokens = 16
"""
# rows 5 and 6 repeat the texts of rows 1 and 2 (their human ratings differ: other raters)
CSV = "id,sentence,valence\n1,good,4\n2,bad,1\n3,fine,3\n4,great,5\n5,good,5\n6,bad,2\n"
JUDGMENTS, CALLS = 6 * 2, 4 * 2


def test_plan_run_and_report_count_the_same_calls_and_label_judgments(tmp_path: Path) -> None:
    (tmp_path / "twins.csv").write_text(CSV)
    study = tmp_path / "twins.toml"
    study.write_text(STUDY)
    data = tmp_path / "data"

    planned = judgelab(data, "plan", str(study), env={"COLUMNS": "400"})  # every column shown
    row = re.search(r"│ a\s*┆\s*(\d+)\s*┆\s*(\d+)\s*┆\s*(\d+)\s*┆[^┆]*┆\s*\d+\s*┆\s*(\d+)", planned)
    assert row, planned
    assert [int(n) for n in row.groups()] == [CALLS, 0, CALLS, CALLS * 16]  # est: each call once
    assert f"{JUDGMENTS} judgments (item × design × repeat) from {CALLS} calls: 4 share" in planned

    ran = judgelab(data, "run", str(study))
    assert f"twins · judge a: {CALLS} planned, 0 already stored, {CALLS} judge calls made" in ran

    dom = parse_html((data / "reports" / "twins.html").read_text(encoding="utf-8"))
    (what_ran, *_) = dom.find_all("table", **{"data-view": "fct_calls"})
    (summary,) = what_ran.table_rows()
    assert (summary["judgments"], summary["calls_planned"], summary["calls_stored"]) == (
        str(JUDGMENTS),
        str(CALLS),
        str(CALLS),
    )
    costs = warehouse.query(
        Settings(data_dir=data), "select sum(n_planned) as n from stg_design_costs"
    )
    assert costs["n"][0] == CALLS
