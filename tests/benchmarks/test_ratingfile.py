"""User rating files: each format and layout loads; bad input names file, row and column."""

import json
from pathlib import Path

import polars as pl
import pytest
from pydantic import ValidationError

from judgelab.data_specs import RatingFile
from judgelab.study import StudyError, load_study
from schemas.validate import TableError
from tasks.benchmarks import load as load_benchmark
from tasks.benchmarks import ratingfile

PER_RATER_ROWS = [
    {"item_id": "a", "text": "good", "rater": "r2", "score": 4},
    {"item_id": "a", "text": "good", "rater": "r1", "score": 2},
    {"item_id": "b", "text": "bad, really", "rater": "r1", "score": 1},
]


def _write(path: Path, rows: list[dict]) -> Path:
    """Write `rows` in the format of `path`'s suffix."""
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


def _spec(path: Path, **kw) -> RatingFile:
    layout = {"rater_column": "rater", "rating_column": "score"}
    if "mean_column" in kw:
        layout = {}
    return RatingFile(path=str(path), **({"scale_min": 1, "scale_max": 4} | layout | kw))


def _error(path: Path, **kw) -> str:
    with pytest.raises(TableError) as exc:
        ratingfile.load(_spec(path, **kw))
    return str(exc.value)


@pytest.mark.parametrize("name", ["set.csv", "set.tsv", "set.parquet", "set.jsonl", "set.ndjson"])
def test_each_format_loads_per_rater(tmp_path: Path, name: str) -> None:
    items, ratings = ratingfile.load(_spec(_write(tmp_path / name, PER_RATER_ROWS)))
    assert items["item_id"].to_list() == ["set:a", "set:b"]
    assert items["benchmark"].unique().to_list() == ["set"]
    assert items["domain"].unique().to_list() == ["all"]
    assert items["text"].to_list() == ["good", "bad, really"]
    assert items["human_mean"].to_list() == [3.0, 1.0]
    assert items["human_sd"].to_list() == [1.0, 0.0]  # population sd, as the built-in loaders
    assert items["n_raters"].to_list() == [2, 1]
    assert items["human_min"].unique().to_list() == [1.0]
    assert items["human_max"].unique().to_list() == [4.0]
    assert ratings.to_dicts() == [
        {"item_id": "set:a", "rater": 1, "rating": 4.0},
        {"item_id": "set:a", "rater": 0, "rating": 2.0},
        {"item_id": "set:b", "rater": 0, "rating": 1.0},
    ]


def test_ids_and_texts_read_as_strings(tmp_path: Path) -> None:
    rows = [{"item_id": 7, "text": "12", "rater": "x", "score": 3}]
    items, _ = ratingfile.load(_spec(_write(tmp_path / "n.parquet", rows)))
    assert (items["item_id"][0], items["text"][0]) == ("n:7", "12")
    # CSV keeps leading zeros: ids are never parsed as numbers
    (tmp_path / "z.csv").write_text("item_id,text,rater,score\n007,hi,x,3\n")
    items, _ = ratingfile.load(_spec(tmp_path / "z.csv"))
    assert items["item_id"].to_list() == ["z:007"]


def test_rater_ids_of_any_type_map_to_sorted_string_order(tmp_path: Path) -> None:
    # sorted as strings: "10" < "2" < "b"; the JSON number 2 and the string "2" are one rater
    rows = [
        {"item_id": "a", "text": "t", "rater": "b", "score": 1},
        {"item_id": "a", "text": "t", "rater": 10, "score": 2},
        {"item_id": "b", "text": "u", "rater": 2, "score": 3},
        {"item_id": "c", "text": "v", "rater": "2", "score": 4},
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _, ratings = ratingfile.load(_spec(path))
    assert ratings["rater"].to_list() == [2, 0, 1, 1]


def test_mean_layout(tmp_path: Path) -> None:
    path = tmp_path / "means.csv"
    path.write_text("id,sentence,m,topic\n1,hello,2.5,news\n2,bye,4,chat\n")
    items, ratings = ratingfile.load(
        _spec(path, id_column="id", text_column="sentence", mean_column="m", domain_column="topic")
    )
    assert items["human_mean"].to_list() == [2.5, 4.0]
    assert items["human_sd"].to_list() == [None, None]
    assert items["n_raters"].to_list() == [1, 1]  # no n_raters_column: one "rater" per mean
    assert items["domain"].to_list() == ["news", "chat"]
    assert ratings.height == 0
    assert ratings.schema == {"item_id": pl.String, "rater": pl.Int64, "rating": pl.Float64}


def test_mean_layout_with_rater_counts(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "m.parquet",
        [
            {"item_id": "a", "text": "x", "m": 2.0, "k": 5},
            {"item_id": "b", "text": "y", "m": 3.0, "k": 1},
        ],
    )
    items, _ = ratingfile.load(_spec(path, mean_column="m", n_raters_column="k"))
    assert items["n_raters"].to_list() == [5, 1]


def test_descending_scale_is_reversed(tmp_path: Path) -> None:
    # offensiveness −1..1 where −1 is the most offensive → harmless (−1) .. toxic (1)
    path = tmp_path / "off.csv"
    path.write_text("item_id,text,rater,score\na,t,1,-1\na,t,2,-0.5\nb,u,1,1\nc,v,1,0.25\n")
    items, ratings = ratingfile.load(_spec(path, scale_min=-1, scale_max=1, direction="descending"))
    assert ratings["rating"].to_list() == [1.0, 0.5, -1.0, -0.25]
    assert items["human_mean"].to_list() == [0.75, -1.0, -0.25]
    assert items["human_min"][0] == -1.0 and items["human_max"][0] == 1.0

    means = tmp_path / "offm.csv"
    means.write_text("item_id,text,m\na,t,-1\nb,u,0.5\n")
    items, _ = ratingfile.load(
        _spec(means, mean_column="m", scale_min=-1, scale_max=1, direction="descending")
    )
    assert items["human_mean"].to_list() == [1.0, -0.5]


def test_mean_of_in_scale_ratings_stays_in_scale(tmp_path: Path) -> None:
    # 0.1 + 0.1 + 0.1 over 3 rounds above 0.1: the loader clips, the Items check would fail
    path = tmp_path / "tiny.csv"
    path.write_text("item_id,text,rater,score\na,t,1,0.1\na,t,2,0.1\na,t,3,0.1\n")
    items, _ = ratingfile.load(_spec(path, scale_min=0, scale_max=0.1))
    assert items["human_mean"][0] <= 0.1


# ------------------------------------------------------------------------------------- bad input


def test_unsupported_suffix(tmp_path: Path) -> None:
    path = tmp_path / "set.xlsx"
    path.write_text("x")
    msg = _error(path)
    assert "set.xlsx" in msg
    for suffix in (".csv", ".tsv", ".parquet", ".jsonl", ".ndjson"):
        assert suffix in msg


@pytest.mark.parametrize("name", ["set.csv", "set.parquet", "set.jsonl"])
def test_missing_column_names_file_column_and_present_columns(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path / name, PER_RATER_ROWS)
    msg = _error(path, rating_column="rating")
    assert name in msg
    assert "'rating'" in msg
    assert "columns present" in msg and "'score'" in msg and "'item_id'" in msg


def test_row_problems_are_all_reported_with_csv_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(
        "item_id,text,rater,score\n"  # line 1
        "a,ok,r1,2\n"  # line 2
        "b,  ,r1,2\n"  # line 3: blank text
        ",ok,r1,2\n"  # line 4: no id
        'c,"two\nlines",r1,high\n'  # lines 5-6: non-numeric rating
        "d,ok,r1,9\n"  # line 7: off the scale
        "e,ok,,3\n"  # line 8: no rater
        "f,ok,r1,\n"  # line 9: no rating
    )
    msg = _error(path)
    assert "6 problem(s)" in msg
    assert "bad.csv line 3, column 'text': empty text" in msg
    assert "bad.csv line 4, column 'item_id': empty item id" in msg
    assert "bad.csv line 5, column 'score': 'high' is not a number" in msg
    assert "bad.csv line 7, column 'score': '9' is outside the scale [1, 4]" in msg
    assert "bad.csv line 8, column 'rater': empty rater id" in msg
    assert "bad.csv line 9, column 'score': empty, expected a number" in msg


def test_parquet_problems_name_the_data_row(tmp_path: Path) -> None:
    rows = [*PER_RATER_ROWS, {"item_id": None, "text": "x", "rater": "r1", "score": 0}]
    msg = _error(_write(tmp_path / "p.parquet", rows))
    assert "p.parquet row 4, column 'item_id': empty item id" in msg
    assert "p.parquet row 4, column 'score': '0' is outside the scale [1, 4]" in msg


def test_jsonl_problems_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(
        '{"item_id": "a", "text": "t", "rater": 1, "score": 2}\n'
        "not json\n"
        '{"item_id": "b", "text": "t", "rater": 1, "score": "NaN"}\n'
        '{"item_id": "c", "text": "t", "rater": 1, "score": true}\n'
    )
    msg = _error(path)
    assert "j.jsonl line 2: not valid JSON" in msg
    assert "j.jsonl line 3, column 'score': 'NaN' is not a number" in msg
    assert "j.jsonl line 4, column 'score': 'true' is not a number" in msg


def test_same_item_with_two_texts_names_both_rows(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("item_id,text,rater,score\na,one,r1,2\nb,x,r1,2\na,two,r2,3\n")
    msg = _error(path)
    assert "t.csv line 2, line 4, column 'text': item id 'a' has a different text" in msg


def test_rater_rating_an_item_twice(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("item_id,text,rater,score\na,t,r1,2\na,t,r1,3\n")
    msg = _error(path)
    assert (
        "d.csv line 2, line 3, column 'rater': rater 'r1' rates item id 'a' more than once" in msg
    )


def test_repeated_id_in_mean_file(tmp_path: Path) -> None:
    path = tmp_path / "m.tsv"
    path.write_text("item_id\ttext\tm\nx\tt\t2\ny\tu\t3\nx\tv\t4\n")
    msg = _error(path, mean_column="m")
    assert "m.tsv line 2, line 4, column 'item_id': item id 'x' is repeated" in msg


def test_bad_rater_count_in_mean_file(tmp_path: Path) -> None:
    path = tmp_path / "k.csv"
    path.write_text("item_id,text,m,k\nx,t,2,0\ny,u,3,2.5\nz,v,3,4\n")
    msg = _error(path, mean_column="m", n_raters_column="k")
    assert "k.csv line 2, column 'k'" in msg and "k.csv line 3, column 'k'" in msg
    assert "line 4" not in msg


def test_ragged_csv_line_and_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("item_id,text,rater,score\na,t,r1,2,extra\n")
    msg = _error(path)
    assert "r.csv line 2: 5 field(s), the header has 4" in msg
    path.write_text("item_id,text,rater,score\n")
    assert "no data rows" in _error(path)


def test_exactly_one_layout_and_a_sane_scale() -> None:
    with pytest.raises(ValidationError, match="not both"):
        RatingFile(path="x.csv", mean_column="m", rating_column="s", scale_min=1, scale_max=4)
    with pytest.raises(ValidationError, match="missing rater_column"):
        RatingFile(path="x.csv", rating_column="s", scale_min=1, scale_max=4)
    with pytest.raises(ValidationError, match="missing rater_column and rating_column"):
        RatingFile(path="x.csv", scale_min=1, scale_max=4)
    with pytest.raises(ValidationError, match="n_raters_column goes with mean_column"):
        RatingFile(
            path="x.csv",
            rater_column="r",
            rating_column="s",
            n_raters_column="k",
            scale_min=1,
            scale_max=4,
        )
    with pytest.raises(ValidationError, match="below scale_max"):
        RatingFile(path="x.csv", mean_column="m", scale_min=4, scale_max=4)


# ------------------------------------------------------------------------------ study round trip

STUDY = """
[study]
name = "mine"
task = "sentiment"
benchmark = "file"
sample_size = 0
prompt_levels = ["base"]
scales = ["likert7"]
{data}

[[judges]]
name = "fake"
model = "local/fake"
"""


def test_study_file_round_trip(tmp_path: Path, settings) -> None:
    folder = tmp_path / "studies"
    (folder / "data").mkdir(parents=True)
    _write(folder / "data" / "mine.csv", PER_RATER_ROWS)
    data = """[study.data]
path = "data/mine.csv"
rater_column = "rater"
rating_column = "score"
scale_min = 1
scale_max = 4
direction = "descending"
"""
    (folder / "mine.toml").write_text(STUDY.format(data=data))
    study = load_study(folder / "mine.toml")
    assert Path(study.data.path) == (folder / "data" / "mine.csv").resolve()
    items, ratings = load_benchmark(study, settings)
    assert items["item_id"].to_list() == ["mine:a", "mine:b"]
    assert items["human_mean"].to_list() == [2.0, 4.0]  # 5 − (4, 2) and 5 − 1
    assert ratings.height == 3


def test_file_study_needs_a_data_table(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(STUDY.format(data=""))
    with pytest.raises(StudyError, match=r"\[study.data\] table is required"):
        load_study(tmp_path / "s.toml")


def test_bad_layout_in_a_study_file_is_a_study_error(tmp_path: Path) -> None:
    data = '[study.data]\npath = "x.csv"\nscale_min = 1\nscale_max = 4\n'
    (tmp_path / "s.toml").write_text(STUDY.format(data=data))
    with pytest.raises(StudyError, match=r"data: .*mean_column"):
        load_study(tmp_path / "s.toml")
