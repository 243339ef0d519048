"""User question–answer files: each format loads, labels mean what the study declares, bad input
names file/line/column."""

import json
from pathlib import Path

import polars as pl
import pytest
from pydantic import ValidationError

from schemas.validate import TableError
from tasks.benchmarks.qa import qa_text
from tasks.benchmarks.qafile import QaFile, load

ROWS = [
    {"id": "a", "q": "Is water wet?", "ans": "Yes", "ok": "true", "topic": "physics"},
    {"id": "b", "q": "Is water wet?", "ans": 'It is "dry"', "ok": "0", "topic": "physics"},
    {"id": "c", "q": "Capital of France?", "ans": "Paris", "ok": "TRUE", "topic": "geo"},
]
COLUMNS = {"question_column": "q", "answer_column": "ans"}


def _write(path: Path, rows: list[dict]) -> Path:
    """Write `rows` in the format of `path`'s suffix."""
    if path.suffix in (".jsonl", ".ndjson", ".json"):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return path
    frame = pl.DataFrame(rows)
    if path.suffix == ".parquet":
        frame.write_parquet(path)
    else:
        frame.write_csv(path, separator="\t" if path.suffix == ".tsv" else ",")
    return path


def _error(path: Path, **kw) -> str:
    with pytest.raises(TableError) as exc:
        load(QaFile(path=str(path), **(COLUMNS | kw)))
    return str(exc.value)


@pytest.mark.parametrize(
    "name", ["set.csv", "set.tsv", "set.parquet", "set.jsonl", "set.ndjson", "set.json"]
)
def test_each_format_loads(tmp_path: Path, name: str) -> None:
    spec = QaFile(
        path=str(_write(tmp_path / name, ROWS)),
        id_column="id",
        reference_column="ok",
        domain_column="topic",
        **COLUMNS,
    )
    items = load(spec)
    assert items["item_id"].to_list() == ["set:a", "set:b", "set:c"]
    assert items["benchmark"].unique().to_list() == ["set"]
    assert items["domain"].to_list() == ["physics", "physics", "geo"]
    assert items["question_id"].to_list() == ["set:q1", "set:q1", "set:q3"]
    assert items["reference"].to_list() == [True, False, True]
    assert items["source"].unique().to_list() == ["file"]
    assert items["text"][1] == 'Question: "Is water wet?"\nCandidate answer: "It is "dry""'


def test_text_rendering_is_exact() -> None:
    assert qa_text("Why?", "Because.") == 'Question: "Why?"\nCandidate answer: "Because."'


def _labels(tmp_path: Path, values: list, **kw) -> list[bool | None]:
    rows = [{"q": "Q?", "ans": f"a{i}", "ok": v} for i, v in enumerate(values)]
    path = _write(tmp_path / "l.csv", rows)
    return load(QaFile(path=str(path), reference_column="ok", **COLUMNS, **kw))[
        "reference"
    ].to_list()


def test_self_evident_labels_need_no_declaration(tmp_path: Path) -> None:
    true = ["true", "TRUE", "True", "1", "correct", "Correct", " true "]
    false = ["false", "FALSE", "0", "incorrect", "INCORRECT", "0.0"]
    assert _labels(tmp_path, true + false) == [True] * len(true) + [False] * len(false)


def test_declared_meanings(tmp_path: Path) -> None:
    """HaluEval's `hallucination: yes/no`: "no" marks a correct answer, either way it is said."""
    values = ["no", "YES", " No ", "yes", ""]
    want = [True, False, True, False, None]
    assert _labels(tmp_path, values, reference_true="no") == want
    assert _labels(tmp_path, values, reference_means="incorrect") == want
    assert _labels(tmp_path, ["1", "0", "true", "FALSE"], reference_means="incorrect") == [
        False,
        True,
        False,
        True,
    ]
    yes_means_correct = _labels(tmp_path, ["yes", "no", "1"], reference_means="correct")
    assert yes_means_correct == [True, False, True]


def test_undeclared_yes_no_stops_with_the_values_found(tmp_path: Path) -> None:
    rows = [{"q": "Q?", "ans": f"a{i}", "ok": v} for i, v in enumerate(["yes", "no", "Yes"])]
    msg = _error(_write(tmp_path / "h.jsonl", rows), reference_column="ok")
    assert "1 problem(s)" in msg
    assert "h.jsonl, column 'ok': the labels 'yes' (2), 'no' (1) do not say" in msg
    assert 'reference_true = "<the label of a correct answer>"' in msg
    assert 'reference_means = "correct" | "incorrect"' in msg


def test_reference_true_needs_two_values_including_its_own(tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text("q,ans,ok\nQ?,a,yes\nQ?,b,no\nQ?,c,maybe\n")
    msg = _error(tmp_path / "x.csv", reference_column="ok", reference_true="no")
    assert "splits labels in two, and the column holds 3 values: 'maybe' (1), 'no' (1)" in msg
    (tmp_path / "y.csv").write_text("q,ans,ok\nQ?,a,yes\nQ?,b,nope\n")
    msg = _error(tmp_path / "y.csv", reference_column="ok", reference_true="no")
    assert "reference_true = 'no' is not among the labels found: 'nope' (1), 'yes' (1)" in msg


def test_a_meaning_needs_a_label_column_and_only_one_meaning() -> None:
    with pytest.raises(ValidationError, match="describes reference_column"):
        QaFile(path="x.csv", reference_true="no")
    with pytest.raises(ValidationError, match="not both"):
        QaFile(path="x.csv", reference_column="h", reference_true="no", reference_means="correct")
    with pytest.raises(ValidationError):
        QaFile(path="x.csv", reference_column="h", reference_means="wrong")


def test_typed_labels_in_parquet_and_json(tmp_path: Path) -> None:
    bools = [{"q": "Q?", "ans": "a", "ok": True}, {"q": "Q?", "ans": "b", "ok": False}]
    ints = [{"q": "Q?", "ans": "a", "ok": 1}, {"q": "Q?", "ans": "b", "ok": 0}]
    floats = [{"q": "Q?", "ans": "a", "ok": 1.0}, {"q": "Q?", "ans": "b", "ok": None}]
    for name, rows, want in [
        ("b.parquet", bools, [True, False]),
        ("i.parquet", ints, [True, False]),
        ("f.parquet", floats, [True, None]),
        ("b.jsonl", bools, [True, False]),
        ("f.jsonl", floats, [True, None]),
    ]:
        spec = QaFile(path=str(_write(tmp_path / name, rows)), reference_column="ok", **COLUMNS)
        assert load(spec)["reference"].to_list() == want, name


def test_no_reference_column_gives_null_references(tmp_path: Path) -> None:
    items = load(QaFile(path=str(_write(tmp_path / "n.csv", ROWS)), **COLUMNS))
    assert items["reference"].dtype == pl.Boolean
    assert items["reference"].null_count() == 3
    assert items["domain"].unique().to_list() == ["all"]
    assert items["item_id"].to_list() == ["n:1", "n:2", "n:3"]  # data row numbers


def test_blank_reference_is_no_label(tmp_path: Path) -> None:
    (tmp_path / "b.csv").write_text("q,ans,ok\nQ?,a,true\nQ?,b,\nQ?,c,  \n")
    items = load(QaFile(path=str(tmp_path / "b.csv"), reference_column="ok", **COLUMNS))
    assert items["reference"].to_list() == [True, None, None]


def test_row_ids_and_question_ids_count_data_rows(tmp_path: Path) -> None:
    # a blank line is no row; a quoted answer over two lines is one row
    (tmp_path / "r.csv").write_text('q,ans\nQ1,a\n\nQ2,"two\nlines"\n Q1 ,c\n')
    items = load(QaFile(path=str(tmp_path / "r.csv"), **COLUMNS))
    assert items["item_id"].to_list() == ["r:1", "r:2", "r:3"]
    assert items["question_id"].to_list() == ["r:q1", "r:q2", "r:q1"]  # stripped question
    assert items["answer"].to_list() == ["a", "two\nlines", "c"]


def test_bad_label_names_file_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text("q,ans,ok\nQ?,a,yes\nQ?,b,maybe\nQ?,c,2\n")
    msg = _error(tmp_path / "x.csv", reference_column="ok", reference_means="correct")
    assert "2 problem(s)" in msg
    assert "x.csv line 3, column 'ok': 'maybe' is not a true/false label" in msg
    assert "x.csv line 4, column 'ok': '2' is not a true/false label" in msg


def test_bad_label_in_jsonl_and_parquet(tmp_path: Path) -> None:
    rows = [{"q": "Q?", "ans": "a", "ok": "yes"}, {"q": "Q?", "ans": "b", "ok": "sure"}]
    kw = {"reference_column": "ok", "reference_means": "correct"}
    msg = _error(_write(tmp_path / "x.jsonl", rows), **kw)
    assert "x.jsonl line 2, column 'ok': 'sure' is not a true/false label" in msg
    msg = _error(_write(tmp_path / "x.parquet", rows), **kw)
    assert "x.parquet row 2, column 'ok': 'sure' is not a true/false label" in msg


def test_json_suffix_by_content(tmp_path: Path) -> None:
    """HaluEval names its JSON-lines files .json: read by content; an array is refused."""
    rows = [{"q": "Q?", "ans": "a"}, {"q": "R?", "ans": "b"}]
    items = load(QaFile(path=str(_write(tmp_path / "halu.json", rows)), **COLUMNS))
    assert items["item_id"].to_list() == ["halu:1", "halu:2"]
    (tmp_path / "arr.json").write_text(json.dumps(rows))
    msg = _error(tmp_path / "arr.json")
    assert "holds a JSON array" in msg and "jq -c '.[]' arr.json > arr.jsonl" in msg


def test_blank_values_and_repeated_ids_are_all_reported(tmp_path: Path) -> None:
    (tmp_path / "e.csv").write_text(
        "id,q,ans,topic\n1,Q?,a,t\n,Q?,b,t\n3, ,c,t\n4,Q?,,t\n5,Q?,e,\n1,R?,f,u\n"
    )
    msg = _error(tmp_path / "e.csv", id_column="id", domain_column="topic")
    assert "5 problem(s)" in msg
    assert "e.csv line 3, column 'id': empty item id" in msg
    assert "e.csv line 4, column 'q': empty question" in msg
    assert "e.csv line 5, column 'ans': empty answer" in msg
    assert "e.csv line 6, column 'topic': empty domain" in msg
    assert "e.csv line 2, line 7, column 'id': item id '1' is repeated" in msg


def test_question_with_two_domains(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("q,ans,topic\nQ?,a,t\nQ?,b,u\nR?,c,u\n")
    msg = _error(tmp_path / "d.csv", domain_column="topic")
    assert "d.csv line 2, line 3, column 'topic': one question, a different domain" in msg


def test_file_level_problems(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("q,answer\nQ?,a\n")
    assert "missing column(s) ['ans']" in _error(tmp_path / "m.csv")
    (tmp_path / "h.csv").write_text("q,ans\n")
    assert "h.csv: no data rows" in _error(tmp_path / "h.csv")
    (tmp_path / "w.csv").write_text("q,ans\nQ?,a,extra\n")
    assert "w.csv line 2: 3 field(s), the header has 2" in _error(tmp_path / "w.csv")
    (tmp_path / "s.txt").write_text("q,ans\n")
    assert "unsupported file type '.txt'" in _error(tmp_path / "s.txt")


def test_spec_rejects_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        QaFile(path="x.csv", text_column="t")
