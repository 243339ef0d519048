"""Large user files: a long cell is accepted up to MAX_CELL characters (a 300 KB text used to
be refused with the csv module's "field larger than field limit", naming no file or column)
and refused above it naming file, line (row) and column; a well-formed CSV is read by pyarrow
with the same rows and line numbers as the csv module; the checks hold texts as digests and
the items' texts are read back in chunks; the plan reads only its sample's texts back."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import polars as pl
import pytest

from judgelab.data_specs import RatingFile
from judgelab.settings import Settings
from schemas.validate import TableError
from tasks.benchmarks import ratingfile, reading
from tasks.benchmarks.problems import Problems
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


# a blank last line sends the file to the csv module; without it pyarrow reads it
READERS = {"pyarrow": "", "csv module": "\n"}


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
    monkeypatch.setattr(reading, "MAX_CELL", 1_000)
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


def chunks(path: Path, arrow: bool | None) -> pl.DataFrame:
    """The file's rows as one reader reads them (None: pyarrow if the file is regular)."""
    found = Problems(path.name)
    frame = pl.concat(reading._chunks(path, ["id", "text", "mean"], found, arrow))
    assert found.total == 0
    return frame


def test_pyarrow_reads_a_well_formed_csv_as_the_csv_module_does(tmp_path: Path) -> None:
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
    fast = chunks(path, None)  # well formed: pyarrow reads it (else _Irregular)
    assert reading.identity(path) in reading._by_arrow
    assert fast.height == 300
    assert fast.rows() == chunks(path, False).rows()
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
    with pytest.raises(reading._Irregular):
        chunks(path, None)
    assert reading.identity(path) not in reading._by_arrow


def test_the_plan_samples_the_same_items_reading_only_their_texts(tmp_path: Path) -> None:
    from judgelab.study import Study
    from tasks import warehouse
    from tasks.rating.study_type import plan_items

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


def test_the_checks_hold_digests_not_texts(tmp_path: Path) -> None:
    """The checked rows carry an 8-byte digest per text (null when blank), equal for equal
    texts: a large file's texts are not held while it is checked."""
    path = write_csv(
        tmp_path / "d.csv", [["1", "same", "4"], ["2", "other", "2"], ["3", "same", "1"]]
    )
    frame = ratingfile.read_checked(spec(path))
    assert frame.schema["text"] == pl.UInt64
    digests = frame["text"].to_list()
    assert digests[0] == digests[2] != digests[1]
    with pytest.raises(TableError, match=r"d2\.csv line 3, column 'text': empty text"):
        ratingfile.read_checked(
            spec(write_csv(tmp_path / "d2.csv", [["1", "a", "4"], ["2", " ", "2"]]))
        )


@pytest.mark.parametrize("reader", [*READERS, "jsonl", "parquet"])
def test_items_are_read_back_a_chunk_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    """With chunks of 4 rows (pyarrow: blocks of 64 bytes), 10 items come back in several
    validated chunks, in file order, each with its own row's text; quoted commas, quotes and
    line breaks survive."""
    monkeypatch.setattr(reading, "CHUNK_ROWS", 4)
    monkeypatch.setattr(reading, "ARROW_BLOCK", 64)
    texts = [f'text {i}, "quoted"\nline two' if i % 3 == 0 else f"text {i}" for i in range(10)]
    rows = [[f"{i:02d}", t, str(1 + i % 7)] for i, t in enumerate(texts)]
    if reader in READERS:
        path = write_csv(tmp_path / "c.csv", rows, READERS[reader])
    else:
        path = tmp_path / f"c.{reader}"
        frame = pl.DataFrame(rows, schema=["id", "text", "mean"], orient="row")
        frame.write_parquet(path) if reader == "parquet" else frame.write_ndjson(path)
    chunks, _ = ratingfile.read(spec(path))
    chunks = list(chunks)
    heights = [c.height for c in chunks]
    assert heights == [4, 4, 2] if reader != "pyarrow" else len(heights) > 1 and sum(heights) == 10
    items = pl.concat(chunks)
    assert items["text"].to_list() == texts
    assert items["item_id"].to_list() == [f"c:{i:02d}" for i in range(10)]
    assert items["human_mean"].to_list() == [float(1 + i % 7) for i in range(10)]


def test_a_per_rater_item_takes_the_text_of_its_first_row(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("id,rater,text,rating\nb,r1,tb,2\na,r1,ta,4\nb,r2,tb,4\na,r2,ta,6\n")
    rater = RatingFile(
        path=str(path), id_column="id", text_column="text", rater_column="rater",
        rating_column="rating", scale_min=1, scale_max=7,
    )  # fmt: skip
    items, ratings = ratingfile.load(rater)
    assert items.select("item_id", "text", "human_mean").rows() == [
        ("r:b", "tb", 3.0),
        ("r:a", "ta", 5.0),
    ]
    assert ratings.height == 4


def test_a_file_changed_after_its_check_is_not_written(tmp_path: Path) -> None:
    """The texts read back are the checked file's: one rewritten in between (a text now
    blank) fails after the last chunk, so no items table is written from it."""
    path = write_csv(tmp_path / "m.csv", [["1", "fine", "4"], ["2", "also fine", "2"]])
    chunks, _ = ratingfile.read(spec(path))
    write_csv(path, [["1", "fine", "4"], ["2", "changed", "2"]])
    with pytest.raises(TableError, match="changed while it was read"):
        list(chunks)
