"""User question–answer files: each format loads, labels parse, bad input names file/line/column."""

import json
from pathlib import Path

import polars as pl
import pytest
from pydantic import ValidationError

from schemas.validate import TableError
from tasks.benchmarks.qa import qa_text
from tasks.benchmarks.qafile import QaFile, load

ROWS = [
    {"id": "a", "q": "Is water wet?", "ans": "Yes", "ok": "yes", "topic": "physics"},
    {"id": "b", "q": "Is water wet?", "ans": 'It is "dry"', "ok": "no", "topic": "physics"},
    {"id": "c", "q": "Capital of France?", "ans": "Paris", "ok": "TRUE", "topic": "geo"},
]
COLUMNS = {"question_column": "q", "answer_column": "ans"}


def _write(path: Path, rows: list[dict]) -> Path:
    """Write `rows` in the format of `path`'s suffix."""
    if path.suffix in (".jsonl", ".ndjson"):
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


@pytest.mark.parametrize("name", ["set.csv", "set.tsv", "set.parquet", "set.jsonl", "set.ndjson"])
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


def test_every_label_spelling(tmp_path: Path) -> None:
    true = ["true", "TRUE", "True", "1", "yes", "YES", "correct", "Correct", " true "]
    false = ["false", "FALSE", "0", "no", "No", "incorrect", "INCORRECT", "0.0"]
    rows = [{"q": "Q?", "ans": f"a{i}", "ok": v} for i, v in enumerate(true + false)]
    items = load(
        QaFile(path=str(_write(tmp_path / "l.csv", rows)), reference_column="ok", **COLUMNS)
    )
    assert items["reference"].to_list() == [True] * len(true) + [False] * len(false)


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
    (tmp_path / "b.csv").write_text("q,ans,ok\nQ?,a,yes\nQ?,b,\nQ?,c,  \n")
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
    msg = _error(tmp_path / "x.csv", reference_column="ok")
    assert "2 problem(s)" in msg
    assert "x.csv line 3, column 'ok': 'maybe' is not a reference label" in msg
    assert "x.csv line 4, column 'ok': '2' is not a reference label" in msg


def test_bad_label_in_jsonl_and_parquet(tmp_path: Path) -> None:
    rows = [{"q": "Q?", "ans": "a", "ok": "yes"}, {"q": "Q?", "ans": "b", "ok": "sure"}]
    msg = _error(_write(tmp_path / "x.jsonl", rows), reference_column="ok")
    assert "x.jsonl line 2, column 'ok': 'sure' is not a reference label" in msg
    msg = _error(_write(tmp_path / "x.parquet", rows), reference_column="ok")
    assert "x.parquet row 2, column 'ok': 'sure' is not a reference label" in msg


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
