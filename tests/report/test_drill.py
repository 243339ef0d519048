"""The report's pure parts around a run: the drill-down payload (order, cap, hidden texts, safe
JSON) and the markdown run summary the Prefect UI shows."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from tasks.report import drill
from tasks.report.summary import calls_table, md_table, run_markdown
from tasks.study_types import StudyType

RATING = StudyType.named("rating").load("report").DRILL


def rating_calls() -> pl.DataFrame:
    """Two designs of one study: j1 has 5 calls (one unparseable), j2 one call."""
    return pl.DataFrame(
        {
            "study": ["s"] * 6,
            "judge": ["j1"] * 5 + ["j2"],
            "prompt_level": ["base"] * 6,
            "scale": ["likert7"] * 6,
            "item_id": ["a", "b", "c", "d", "e", "a"],
            "repeat": [0] * 6,
            "status": ["ok", "ok", "unparseable", "ok", "ok", "ok"],
            "score": [4.0, 2.0, None, 6.0, 3.0, 5.0],
            "judge_1to7": [4.0, 2.0, None, 6.0, 3.0, 5.0],
            "human_1to7": [4.0, 5.0, 3.0, 6.5, 3.0, 1.0],
            "raw": ['{"score": 4}', '{"score": 2}', "I think <b>it</b> is fine", "", "", ""],
            "readout": ["answer"] * 6,
        }
    )


def test_failures_come_first_then_the_largest_disagreements_capped_per_design() -> None:
    shown = drill.shown_calls(rating_calls(), RATING, cap=3)
    j1 = shown.filter(pl.col("judge") == "j1")
    assert j1["item_id"].to_list() == ["c", "b", "d"]  # unparseable, |2−5| = 3, |6−6.5|
    assert j1["n_calls"].unique().to_list() == [5] and j1["n_failed"].unique().to_list() == [1]
    assert shown.filter(pl.col("judge") == "j2")["item_id"].to_list() == ["a"]


def test_the_payload_keys_rows_by_design_and_hides_sensitive_studies() -> None:
    texts = {"a": "text a", "b": "text b", "c": "text c", "z": "never shown"}
    ids, data = drill.payload({"rating": rating_calls()}, {"rating": RATING}, texts, {"s"}, cap=2)
    keys = ids["tbl_rating_performance"]
    assert set(keys) == {
        ("s", "j1", "base", "likert7", "answer"),
        ("s", "j2", "base", "likert7", "answer"),
    }
    j1 = data["designs"][keys[("s", "j1", "base", "likert7", "answer")]]
    assert (j1["n"], j1["failed"], j1["hide"], len(j1["rows"])) == (5, 1, True, 2)
    assert j1["rows"][0] == ["c", 0, 3.0, None, None, "unparseable", "I think <b>it</b> is fine"]
    assert data["columns"]["rating"][:2] == ["item", "text"]
    assert set(data["texts"]) == {"a", "b", "c"}  # only items some design shows
    ids, data = drill.payload({"rating": rating_calls()}, {"rating": RATING}, texts, set())
    assert not any(d["hide"] for d in data["designs"].values())


def test_long_answers_are_cut_and_the_json_cannot_close_its_script() -> None:
    calls = rating_calls().with_columns(raw=pl.lit("x" * 1000 + "</script>"))
    _, data = drill.payload({"rating": calls}, {"rating": RATING}, {"a": "y" * 1000}, set())
    rows = [r for d in data["designs"].values() for r in d["rows"]]
    assert all(len(r[-1]) == drill.RAW_CHARS and r[-1].endswith("…") for r in rows)
    assert len(data["texts"]["a"]) == drill.TEXT_CHARS
    text = drill.to_script_json({"raw": "</script><script>alert(1)</script>"})
    assert "<" not in text and json.loads(text)["raw"].startswith("</script>")


def test_the_run_summary_names_the_report_and_sums_the_calls() -> None:
    summaries = [
        {
            "study": "s",
            "type": "rating",
            "before": {"j1": {"planned": 10, "stored": 4, "missing": 6}},
            "made": {"j1": {"ok": 5, "error": 1}},
        }
    ]
    calls = calls_table(summaries)
    assert calls.row(0, named=True) == {
        "study": "s",
        "judge": "j1",
        "planned": 10,
        "stored_before": 4,
        "made_now": 6,
        "ok": 5,
        "unparseable": 0,
        "out_of_range": 0,
        "error": 1,
    }
    perf = pl.DataFrame({"study": ["s"], "judge": ["a|b"], "bias": [0.1], "extra": [1]})
    changes = pl.DataFrame(
        {
            "study": ["s"],
            "previous_run_id": ["r0"],
            "change": ["changed"],
            "row_key": ["judge=j1"],
            "metric": ["bias"],
            "old_value": [0.2],
            "new_value": [0.1],
        }
    )
    text = run_markdown(
        "run", summaries, ["judge 'j1' failed"], {"rating": perf}, changes, Path("/r/s.html")
    )
    # a link first: the file:// URL of the report, then that URL and the path written out
    first = text.splitlines()[2]
    assert first == "**Report:** [s.html](file:///r/s.html) (one offline HTML file)"
    assert "Open `file:///r/s.html` in a browser on this machine; its path: `/r/s.html`." in text
    spaced = run_markdown("run", [], [], {}, pl.DataFrame(), Path("/r/my report.html"))
    assert "[my report.html](file:///r/my%20report.html)" in spaced  # a URL, not a path
    assert "| s | j1 | 10 | 4 | 6 | 5 | 0 | 0 | 1 |" in text
    assert "- judge 'j1' failed" in text
    assert "| s | a\\|b | 0.1 |" in text and "extra" not in text  # the columns read first
    assert "| s | changed | judge=j1 | bias | 0.2 | 0.1 |" in text
    assert "_… 3 more rows in the report_" in md_table(pl.DataFrame({"x": range(23)}))
