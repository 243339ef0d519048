"""Which paper table or figure each report view stands for, said the same way in the view's
description (`judgelab tables`), the docs' table of views (docs/concepts/results.md) and the
report's panel titles.

The paper (E.1): "Table 13 splits results by subset; Tables 14–16 give per-model results for
the full, near-agreement, and ambiguous subsets", with the switch rates in those tables."""

import re

import pytest

from judgelab.settings import PROJECT_ROOT
from judgelab.views_cli import describe
from tasks import warehouse
from tasks.study_types import StudyType

LABELS = {
    "tbl_bias_summary": {"Table 8"},
    "tbl_outlier_scale": {"Tables 9–10"},
    "tbl_accuracy_by_prompt": {"Table 13"},
    "tbl_accuracy_by_effort": {"Table 13"},
    "tbl_accuracy_by_model": {"Tables 14–16"},
    "tbl_switch_rates": {"Tables 14–16"},
    "tbl_accuracy_by_design": {"Tables 13–16"},
    "tbl_ensembles": {"Figure 5"},
}
LABEL = re.compile(r"\b(Tables? \d+(?:–\d+)?|Figures? \d+(?:–\d+)?)")
RESULTS = (PROJECT_ROOT / "docs" / "concepts" / "results.md").read_text(encoding="utf-8")


def labels(text: str) -> set[str]:
    return set(LABEL.findall(text))


def docs_row(view: str) -> str:
    """The docs' row of the table of views whose first cell names `view`."""
    (row,) = [
        line
        for line in RESULTS.splitlines()
        if line.startswith("| `") and f"`{view}`" in line.split(" | ")[0]
    ]
    return row


@pytest.mark.parametrize("view", sorted(LABELS))
def test_view_description_names_the_papers_table(view: str) -> None:
    sql = warehouse.SQL_DIR / "reports" / f"{view}.sql"
    assert labels(describe(sql)) == LABELS[view], describe(sql)


@pytest.mark.parametrize("view", sorted(LABELS))
def test_docs_row_names_the_same_table(view: str) -> None:
    row = docs_row(view)
    assert labels(row.split(" | ", 1)[1]) == LABELS[view], row


def test_report_panels_name_the_same_table() -> None:
    titled = {
        p.view: p.title
        for k in StudyType.every()
        for p in k.load("report").PANELS
        if p.view in LABELS
    }
    assert {"tbl_accuracy_by_design", "tbl_switch_rates"} <= set(titled)
    for view, title in titled.items():
        assert labels(title) == LABELS[view], (view, title)
