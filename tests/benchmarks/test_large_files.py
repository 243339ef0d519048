"""Large user files: a long cell is accepted up to MAX_CELL characters (a 300 KB text used to
be refused with the csv module's "field larger than field limit", naming no file or column)
and refused above it naming file, line (row) and column; a well-formed CSV is read by polars
with the same rows and line numbers as the csv module; the plan reads only its sample's
texts back."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import polars as pl
import pytest

from judgelab.settings import Settings
from judgelab.study import RatingFile
from schemas.validate import TableError
from tasks.benchmarks import ratingfile
from tasks.plan import sample_items

LONG = "a long review " * 22_000  # 308,000 characters


def spec(path: Path) -> RatingFile:
    return RatingFile(
        path=str(path), id_column="id", text_column="text", mean_column="mean",
        scale_min=1, scale_max=7,
    )  # fmt: skip


def write_csv(path: Path, rows: list[list[str]], tail: str = "") -> Path:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([["id", "text", "mean"], *rows])
    path.write_text(buf.getvalue() + tail)
    return path


# a blank last line sends the file to the csv module; without it polars reads it
READERS = {"polars": "", "csv module": "\n"}


@pytest.mark.parametrize("reader", list(READERS))
def test_a_300_kb_cell_is_read(tmp_path: Path, reader: str) -> None:
    path = write_csv(
        tmp_path / "long.csv", [["1", LONG, "4"], ["2", "short", "2"]], READERS[reader]
    )
    items, _ = ratingfile.load(spec(path))
    assert items["text"].to_list() == [LONG, "short"]


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_a_300_kb_cell_is_read_in_every_format(tmp_path: Path, suffix: str) -> None:
    rows = [{"id": "1", "text": LONG, "mean": 4}, {"id": "2", "text": "short", "mean": 2}]
    path = tmp_path / f"long{suffix}"
    if suffix == ".parquet":
        pl.DataFrame(rows).write_parquet(path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items, _ = ratingfile.load(spec(path))
    assert items["text"].to_list() == [LONG, "short"]


@pytest.mark.parametrize("reader", [*READERS, "jsonl", "parquet"])
def test_a_cell_over_the_limit_names_file_line_and_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    monkeypatch.setattr(ratingfile, "MAX_CELL", 1_000)
    rows = [["1", "fine", "4"], ["2", "x" * 1_001, "2"], ["3", "y" * 5_000, "nine"]]
    if reader in READERS:
        path, place = write_csv(tmp_path / "big.csv", rows, READERS[reader]), "big.csv line"
        lines = (3, 4)
    else:
        frame = pl.DataFrame(rows, schema=["id", "text", "mean"], orient="row")
        path = tmp_path / f"big.{reader}"
        if reader == "parquet":
            frame.write_parquet(path)
            place, lines = "big.parquet row", (2, 3)
        else:
            frame.write_ndjson(path)
            place, lines = "big.jsonl line", (2, 3)
    with pytest.raises(TableError) as raised:
        ratingfile.load(spec(path))
    text = str(raised.value)
    assert text.startswith(f"{path}: 3 problem(s)")
    assert f"{place} {lines[0]}, column 'text': 1,001 characters, more than the 1,000" in text
    assert f"{place} {lines[1]}, column 'text': 5,000 characters" in text
    assert f"{place} {lines[1]}, column 'mean': 'nine' is not a number" in text  # with the rest
    assert "x" * 50 not in text  # never the text itself


def test_polars_reads_a_well_formed_csv_as_the_csv_module_does(tmp_path: Path) -> None:
    """Quoted line breaks (LF and CR LF), doubled quotes, separators and non-ASCII inside
    texts: the same values and line numbers from both readers, and a problem after a
    multi-line text names its true line."""
    rng = random.Random(7)
    pieces = ["word", " ", ",", '"', "\n", "\r\n", "é", "\t", "ok", '""']
    rows = [
        [str(i), "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))), str(1 + i % 7)]
        for i in range(300)
    ]
    rows[250][2] = "high"  # a problem, after many multi-line texts
    path = write_csv(tmp_path / "mixed.csv", rows)
    header, lines = ratingfile._header(path, ",")
    columns = ["id", "text", "mean"]
    fast = ratingfile._read_regular(path, header, lines, columns, ",")
    assert fast is not None  # well formed: polars reads it
    exact, problems = ratingfile._read_csv_module(path, header, columns, ",")
    assert problems.total == 0
    assert fast.rows() == exact.rows()
    true_line = 2 + sum(
        1 + r[1].count("\n") + r[1].count("\r") - r[1].count("\r\n") for r in rows[:250]
    )
    with pytest.raises(TableError, match=f"mixed.csv line {true_line}, column 'mean': 'high'"):
        ratingfile.load(spec(path))


@pytest.mark.parametrize(
    "tail",
    [
        "\n",  # a blank line
        "4,short\n",  # a row short of a field
        '5,"abc"def,3\n',  # text after a closing quote
        "5,no newline at the end,3",
        "5,lone\rcarriage return,3\n",
    ],
)
def test_other_files_are_left_to_the_csv_module(tmp_path: Path, tail: str) -> None:
    path = write_csv(tmp_path / "odd.csv", [["1", "good", "4"]], tail)
    header, lines = ratingfile._header(path, ",")
    assert ratingfile._read_regular(path, header, lines, ["id", "text", "mean"], ",") is None


def test_the_plan_samples_the_same_items_reading_only_their_texts(tmp_path: Path) -> None:
    from judgelab.study import Study
    from tasks import warehouse
    from tasks.rating.kind import plan_items

    settings = Settings(data_dir=tmp_path / "data")
    n = 500
    items = pl.DataFrame(
        {
            "item_id": [f"f:{i:04d}" for i in range(n)],
            "benchmark": "f",
            "domain": [f"d{i % 3}" for i in range(n)],
            "text": [f"text {i}" for i in range(n)],
            "human_mean": [float(i % 7 + 1) for i in range(n)],
            "human_sd": pl.Series([None] * n, dtype=pl.Float64),
            "n_raters": 1,
            "human_min": 1.0,
            "human_max": 7.0,
        }
    ).sample(fraction=1.0, shuffle=True, seed=1)  # stored in no particular order
    study = Study.model_validate(
        {
            "name": "big",
            "task": "sentiment",
            "benchmark": "vader",
            "sample_size": 7,
            "seed": 3,
            "prompt_levels": ["base"],
            "scales": ["likert7"],
            "judges": [{"name": "a", "model": "fake/x"}],
        }
    )
    warehouse.write_table(settings, items, "items", study.items_part)
    assert plan_items(study, settings).equals(sample_items(items, 7, 3))
    whole = study.model_copy(update={"sample_size": 0})
    assert plan_items(whole, settings).equals(sample_items(items, 0, 3))
