"""Tone texts: UKPConvArg1 from the mirror, and a user's file in every format with its errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from conftest import mirror_dir

from schemas.validate import TableError
from tasks.benchmarks.tonetexts import UKP_FOLDER, UKP_HEADER, load_text_file, load_ukp

UKP_DIR = mirror_dir() / "ukpconvarg1"


@pytest.fixture(scope="module")
def ukp() -> pl.DataFrame:
    return load_ukp(UKP_DIR)


def test_ukp_counts_ids_and_scores(ukp: pl.DataFrame) -> None:
    # the README: 1,052 arguments in 32 debate-side files
    assert ukp.height == 1052
    assert ukp["domain"].n_unique() == 32
    assert ukp["text_id"].n_unique() == ukp.height
    assert ukp["text_id"].str.starts_with("ukpconvarg1:").all()
    assert ukp["corpus"].unique().to_list() == ["ukpconvarg1"]
    assert ukp["human_score"].null_count() == 0
    assert 0 < ukp["human_score"].min() < ukp["human_score"].max() < 1
    # ranks are shares within a file: they sum to 1 per debate side
    sums = ukp.group_by("domain").agg(pl.col("human_score").sum())["human_score"]
    assert (sums - 1).abs().max() < 1e-3


def test_ukp_rows_match_the_file(ukp: pl.DataFrame) -> None:
    row = ukp.filter(pl.col("text_id") == "ukpconvarg1:80854").row(0, named=True)
    assert row["domain"] == "evolution-vs-creation_evolution"
    assert row["human_score"] == pytest.approx(0.00577)
    # "<br/>" became a line break; nothing else changed
    assert row["text"].startswith("Science can prove that evolution is the beginning of life.\n")
    assert not ukp["text"].str.contains("<br").any()
    assert ukp["text"].str.contains("\n").sum() > 100
    meta = json.loads(row["meta"])
    assert meta["debate"] == "evolution-vs-creation" and meta["side"] == "evolution"
    assert meta["n_in_file"] == 35 and 1 <= meta["position"] <= 35


def test_ukp_positions_rank_within_each_file(ukp: pl.DataFrame) -> None:
    meta = ukp.with_columns(
        pl.col("meta").str.json_path_match("$.position").cast(pl.Int64).alias("position")
    )
    best = meta.filter(pl.col("position") == 1)
    top = meta.group_by("domain").agg(pl.col("human_score").max().alias("top"))
    joined = best.join(top, on="domain")
    assert best["domain"].n_unique() == 32
    assert (joined["human_score"] == joined["top"]).all()


def _ukp_copy(tmp: Path, lines: list[str]) -> Path:
    folder = tmp / "ukp"
    (folder / UKP_FOLDER).mkdir(parents=True)
    (folder / UKP_FOLDER / "topic_side.csv").write_text("\n".join(lines) + "\n")
    return folder


def test_ukp_bad_rank_names_file_line_and_column(tmp_path: Path) -> None:
    folder = _ukp_copy(tmp_path, [UKP_HEADER, "1\t0.5\tfine", "2\thigh\tsecret words"])
    with pytest.raises(TableError) as exc:
        load_ukp(folder)
    message = str(exc.value)
    assert "topic_side.csv line 3, column 'rank'" in message
    assert "secret words" not in message


def test_ukp_header_repeated_ids_and_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="line 1: expected the header"):
        load_ukp(_ukp_copy(tmp_path / "a", ["id\trank\targument", "1\t0.5\tx"]))
    with pytest.raises(TableError, match=r"text_id.*unique"):
        load_ukp(_ukp_copy(tmp_path / "b", [UKP_HEADER, "1\t0.5\tx", "1\t0.5\ty"]))
    with pytest.raises(TableError, match="no UKPConvArg1 ranking files"):
        load_ukp(tmp_path / "nowhere")


# ------------------------------------------------------------------------------------ user files

ROWS = [
    {"app": "7", "essay": "First essay.", "score": "3.5", "cohort": "2024", "reviewer": "r1"},
    {"app": "8", "essay": "Second essay.", "score": "", "cohort": "2025", "reviewer": "r2"},
]


def _write(path: Path, rows: list[dict]) -> Path:
    frame = pl.DataFrame(rows)
    if path.suffix == ".csv":
        frame.write_csv(path)
    elif path.suffix == ".tsv":
        frame.write_csv(path, separator="\t")
    elif path.suffix == ".parquet":
        frame.write_parquet(path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("name", ["apps.csv", "apps.tsv", "apps.parquet", "apps.jsonl"])
def test_each_format_loads(tmp_path: Path, name: str) -> None:
    texts = load_text_file(_write(tmp_path / name, ROWS), "app", "essay", "score", "cohort")
    assert texts["text_id"].to_list() == ["apps:7", "apps:8"]
    assert texts["corpus"].unique().to_list() == ["apps"]
    assert texts["domain"].to_list() == ["2024", "2025"]
    assert texts["text"].to_list() == ["First essay.", "Second essay."]
    assert texts["human_score"].to_list() == [3.5, None]  # blank score → null
    assert [json.loads(m) for m in texts["meta"]] == [{"reviewer": "r1"}, {"reviewer": "r2"}]


def test_optional_columns_default(tmp_path: Path) -> None:
    path = _write(tmp_path / "plain.csv", [{"id": "a", "text": "hello"}])
    texts = load_text_file(path, "id", "text")
    assert texts.row(0, named=True) == {
        "text_id": "plain:a",
        "corpus": "plain",
        "domain": "all",
        "text": "hello",
        "human_score": None,
        "meta": None,
    }


def test_every_problem_is_reported_at_once_without_texts(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(
        "id,text,score,group\n"
        "1,private one,2,g\n"
        "2,,x,g\n"  # line 3: empty text, not a number
        "1,private two,,g\n"  # line 4: id 1 repeated
        "3,private three,inf,\n"  # line 5: not finite, empty domain
        " ,private four,1,g\n"  # line 6: empty id
    )
    with pytest.raises(TableError) as exc:
        load_text_file(path, "id", "text", "score", "group")
    message = str(exc.value)
    assert "6 problem(s)" in message
    for expected in [
        "bad.csv line 3, column 'text': empty text",
        "bad.csv line 3, column 'score': 'x' is not a number",
        "bad.csv line 5, column 'score': 'inf' is not a number",
        "bad.csv line 5, column 'group': empty domain",
        "bad.csv line 6, column 'id': empty text id",
        "bad.csv line 2, line 4, column 'id': text id '1' is repeated",
    ]:
        assert expected in message
    assert "private" not in message


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(TableError, match=re.escape("unsupported file type '.txt'")):
        load_text_file(tmp_path / "a.txt", "id", "text")
    with pytest.raises(TableError, match="text file does not exist"):
        load_text_file(tmp_path / "a.csv", "id", "text")
    path = _write(tmp_path / "cols.csv", [{"id": "1", "body": "x"}])
    with pytest.raises(TableError, match=r"missing column\(s\) \['text'\]"):
        load_text_file(path, "id", "text")
    (tmp_path / "empty.jsonl").write_text('{"id": 1, "text": "a"}\nnot json\n')
    with pytest.raises(TableError, match=re.escape("empty.jsonl line 2: not valid JSON")):
        load_text_file(tmp_path / "empty.jsonl", "id", "text")


def test_parquet_problems_name_rows(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.parquet", [{"id": "1", "text": "a"}, {"id": "2", "text": " "}])
    with pytest.raises(TableError, match=re.escape("p.parquet row 2, column 'text': empty text")):
        load_text_file(path, "id", "text")
