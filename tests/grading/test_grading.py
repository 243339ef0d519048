"""Reference-guided grading (tasks/grading/): the reference each candidate is graded against, the
grades beside the labels, the prompts, the study checks, and a run on the embedded judge."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from test_flow_e2e import calls_made, judgelab

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.study import StudyError, load_study
from schemas.validate import TableError
from tasks import warehouse
from tasks.benchmarks.truthfulqa import Question
from tasks.grading.grades import grade_scores
from tasks.grading.items import grading_items, grading_text, reference_pools
from tasks.grading.prompts import render_system
from tasks.grading.report import headline
from tasks.judging.prompts import load_template
from tasks.judging.scales import load_scales

Q0 = Question(0, "f line 2", "Health", "Q zero?", [("best0", "best"), ("other0", "correct")],
              [("wrong0", "best_incorrect")])  # fmt: skip
Q1 = Question(1, "f line 3", "Law", "Q one?", [("only1", "best")], [("wrong1", "incorrect")])


def candidate(q: Question, answer: str, source: str, c: int) -> dict:
    return {
        "item_id": f"truthfulqa:{q.index}:{c}",
        "benchmark": "truthfulqa",
        "domain": q.domain,
        "question_id": f"truthfulqa:{q.index}",
        "question": q.question,
        "answer": answer,
        "reference": source in ("best", "correct"),
        "source": source,
        "text": "unused",
    }


def test_a_candidate_is_graded_against_the_best_answer_and_never_against_itself() -> None:
    candidates = pl.DataFrame(
        [
            candidate(Q0, "wrong0", "best_incorrect", 2),  # → best0
            candidate(Q0, "best0", "best", 0),  # the best answer itself → the next correct
            candidate(Q1, "only1", "best", 0),  # its question's only correct answer: dropped
            candidate(Q1, "wrong1", "incorrect", 1),  # → only1
        ]
    )
    items, dropped = grading_items(candidates, reference_pools([Q0, Q1]))
    assert dropped == 1
    assert items.select("answer", "reference_answer", "correct").rows() == [
        ("wrong0", "best0", False),
        ("best0", "other0", True),
        ("wrong1", "only1", False),
    ]
    assert items["text"][1] == grading_text("Q zero?", "other0", "best0")
    assert items["text"][1] == (
        'Question: "Q zero?"\nReference answer: "other0"\nCandidate answer: "best0"'
    )


def test_grades_and_labels_meet_on_one_to_seven() -> None:
    plan = pl.DataFrame(
        {
            "key": ["k1", "k2", "k3"],
            "study": "g",
            "judge": "j",
            "model": "m",
            "task": "grading",
            "prompt_level": "base",
            "prompt_version": "v1",
            "scale": "grade5",
            "reasoning_effort": "n/a",
            "item_id": ["a", "b", "c"],
            "repeat": [0, 0, 0],
        }
    )
    judgments = pl.DataFrame({"key": ["k1", "k2"], "status": ["ok", "unparseable"],
                              "score": [4.0, None]})  # fmt: skip
    items = pl.DataFrame({"item_id": ["a", "b", "c"], "correct": [True, False, False]})
    scores = grade_scores(plan, judgments, items, load_scales())
    assert scores.select("status", "score_1to7", "human_1to7").rows() == [
        ("ok", 5.5, 7.0),  # grade 4 of 1–5 → 1 + 6 · 3/4
        ("unparseable", None, 1.0),
        ("missing", None, 1.0),
    ]

    # read two ways (readouts = ["answer", "expected"]): the same calls, the expected grade
    # Σ p·v over the stored distribution; a call stored without one has no expected grade
    probs = json.dumps({"1": 0.0, "2": 0.0, "3": 0.5, "4": 0.5, "5": 0.0})
    judgments = judgments.with_columns(probs=pl.Series([probs, None]))
    both = grade_scores(plan, judgments, items, load_scales(), ["answer", "expected"])
    expected = both.filter(readout="expected")
    assert expected.select("status", "score", "score_1to7").rows() == [
        ("ok", 3.5, 4.75),  # 1 + 6 · 2.5/4
        ("unparseable", None, None),
        ("missing", None, None),
    ]
    assert both.filter(readout="answer").drop("readout").equals(scores.drop("readout"))


def test_examples_are_shown_on_the_grade_scale_per_level() -> None:
    scale = load_scales()["grade5"]
    base = render_system(load_template("grading", "base"), scale)
    long = render_system(load_template("grading", "long_icl"), scale)
    assert "from 1 (contradicts the reference) to 5 (says what the reference says)" in base
    assert "Reference answer" not in base and "$" not in base + long
    assert long.count("Reference answer: ") == 4 and '{"score": 3}' in long


def study_file(tmp_path: Path, **fields: str) -> Path:
    study = {"benchmark": '"truthfulqa"', "scales": '["grade5"]'} | fields
    path = tmp_path / "g.toml"
    path.write_text(
        '[study]\nname = "g"\ntype = "grading"\ntask = "grading"\nsample_size = 4\n'
        'prompt_levels = ["base"]\n'
        + "".join(f"{k} = {v}\n" for k, v in study.items())
        + '[[judges]]\nname = "j"\nmodel = "fake/hash"\n'
    )
    return path


def test_a_grading_study_takes_truthfulqa_and_the_grade_scale_only(tmp_path: Path) -> None:
    assert load_study(study_file(tmp_path)).type == "grading"
    with pytest.raises(StudyError, match="grades TruthfulQA candidates"):
        load_study(study_file(tmp_path, benchmark='"vader"'))
    with pytest.raises(StudyError, match=r'scales = \["grade5"\]'):
        load_study(study_file(tmp_path, scales='["likert7"]'))
    with pytest.raises(StudyError, match="reasoning_efforts"):
        load_study(study_file(tmp_path, reasoning_efforts='["low"]'))


def test_the_items_schema_refuses_a_candidate_graded_against_itself() -> None:
    """A pool whose best and next answers are both the candidate's (no parse makes one) fails
    the schema check instead of grading the candidate against itself."""
    candidates = pl.DataFrame([candidate(Q1, "only1", "best", 0)])
    pools = pl.DataFrame(
        {"question_id": ["truthfulqa:1"], "best": "only1", "next_correct": "only1"}
    )
    with pytest.raises(TableError, match="never_graded_against_itself"):
        grading_items(candidates, pools)


def test_the_headline_names_the_best_separating_design_and_the_spread() -> None:
    rows = pl.DataFrame(
        {
            "judge": ["j", "j", "k"],
            "prompt_level": ["base", "long_icl", "base"],
            "separation": [0.5, 2.25, 2.25],
            "mae": [2.0, 1.5, 1.2],  # a tie on separation goes to the lower MAE
        }
    )
    said = headline(rows)
    assert said.full == (
        "k · base tells right from wrong candidates best: separation 2.25 grade points "
        "(4 = perfectly apart); across 3 designs it spans 0.5–2.25."
    )
    assert said.top == "k · base separates right from wrong candidates best: 2.25 of 4."
    assert headline(rows.head(1)).full.endswith("(4 = perfectly apart).")
    read = rows.with_columns(readout=pl.Series(["answer", "answer", "expected"]))
    assert headline(read).top.startswith("k · base · expected separates")
    assert headline(rows.with_columns(pl.lit(None, pl.Float64).alias("separation"))).full == ""


@pytest.mark.slow
def test_a_grading_study_runs_on_the_embedded_judge_and_reruns_with_no_call(
    tmp_path: Path,
) -> None:
    """studies/grading.toml at 3 questions: 3 items × 3 prompt levels on the embedded judge;
    the second run makes no call and leaves the table as it was."""
    data = tmp_path / "data"
    out = judgelab(data, "run", "studies/grading.toml", "--sample-size", "3")
    settings = Settings(data_dir=data)
    items = warehouse.read_table(settings, "grading_items", "grading")
    assert calls_made(out, "smollm2-135m") == 3 * items.height > 0
    table = warehouse.query(settings, "select * from tbl_grading_by_design")
    assert table["prompt_level"].to_list() == ["base", "short_icl", "long_icl"]
    assert (table["n_right"] + table["n_wrong"] <= items.height).all()
    assert table["n_items"].to_list() == [
        (table["n_right"] + table["n_wrong"])[i] for i in range(3)
    ]
    again = judgelab(data, "run", "studies/grading.toml", "--sample-size", "3")
    assert calls_made(again, "smollm2-135m") == 0
    assert table.equals(warehouse.query(settings, "select * from tbl_grading_by_design"))
    assert (data / "reports" / "grading.html").is_file()
    assert (PROJECT_ROOT / "studies" / "grading.toml").is_file()
