"""End to end: studies/llmbar.toml through the CLI and the real flow (imported verdicts, no
call): the console and the report say the judgments were imported, and open the pairwise
section with the headline computed from the stored verdicts — LLMBar's own numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from report.conftest import parse_html
from test_flow_e2e import calls_made, judgelab

from judgelab.settings import Settings
from tasks import warehouse
from tasks.pairwise.headline import headline

pytestmark = pytest.mark.slow

JUDGES = ("ChatGPT", "ChatGPT-0301", "Falcon", "GPT-4", "LLaMA2", "PaLM2")
IMPORTED = "imported: 13,000 judgments from files, 0 calls"
# LLMBar Natural, 6 evaluators × 65 strategies (tbl_pairwise_order_accuracy: correct_average
# per evaluator 69–92% as plain means; the fit's level means below)
HEADLINE = (
    "Judge moves accuracy most: 65% (Falcon) to 92% (GPT-4), each level averaged over the "
    "other factors' levels; prompt level 58% (Rating_NoRules) to 83% (Vanilla_2shot); the "
    "order of the two answers 76% (a shown first) vs 78% (b shown first). Position changes "
    "the winner in 23% of pair judgments (6,500 labelled pairs judged in both orders, pooled "
    "over 65 designs); the answer shown first wins 57% of decisive verdicts."
)


def test_llmbar_run_labels_imported_judgments_and_opens_with_its_headline(tmp_path: Path) -> None:
    data = tmp_path / "data"
    out = judgelab(data, "run", "studies/llmbar.toml")
    assert all(calls_made(out, judge) == 0 for judge in JUDGES)
    assert f"llmbar: {IMPORTED}\n" in out
    assert f"llmbar: {HEADLINE}\n" in out

    settings = Settings(data_dir=data)
    verdicts = warehouse.query(settings, "select * from stg_pairwise_verdicts")
    assert headline(verdicts) == HEADLINE  # the console's sentences are the stored verdicts'

    dom = parse_html((data / "reports" / "llmbar.html").read_text(encoding="utf-8"))
    sections = {s.attrs["id"]: s for s in dom.find_all("section")}
    leads = [p.text() for p in sections["pairwise"].find_all("p", **{"class": "lead"})]
    assert leads == [f"llmbar ({IMPORTED}): {HEADLINE}"]
    summary = [p.text() for p in sections["summary"].find_all("p", **{"class": "lead"})]
    assert summary == [f"llmbar: {IMPORTED}."]
    ran = dom.find_all("table", **{"data-view": "fct_calls"})[0]  # What ran, then outcomes
    assert [r["source"] for r in ran.table_rows()] == [IMPORTED]
    # the paired tests and the variance split are panels of the pairwise section
    views = {t.attrs.get("data-view") for t in sections["pairwise"].find_all("table")}
    assert {"tbl_verdict_tests", "tbl_variance_components"} <= views, views
