"""Re-parsing stored answers: first good answer wins, errors untouched, only changes returned."""

import json

import polars as pl

from tasks.judging.reparse import reparse, reparse_row
from tasks.judging.scales import load_scales

SCALES = load_scales()


def test_first_parseable_answer_wins() -> None:
    s = SCALES["likert7"]
    assert reparse_row(["nonsense", '{"score": 9}', '{"score": 3}'], s) == (
        "ok",
        3.0,
        '{"score": 3}',
    )
    assert reparse_row(["nonsense", '{"score": 9}'], s) == ("out_of_range", None, '{"score": 9}')


def test_only_changed_rows_come_back() -> None:
    rows = pl.DataFrame(
        {
            "key": ["a", "b", "c", "d"],
            "status": ["unparseable", "ok", "error", "ok"],
            "score": [None, 4.0, None, 0.5],
            "raw": ["Score: 5", '{"score": 4}', None, '{"score": 0.5}'],
            # "a" was stored by an older parser that missed the JSON in its second answer
            "answers": [
                json.dumps(["Score: 5", '```{"score": 5}```']),
                json.dumps(['{"score": 4}']),
                "[]",
                json.dumps(['{"score": 0.5}']),
            ],
            "scale": ["likert7", "likert7", "likert7", "likert7"],  # "d": 0.5 is off the 1–7 scale
        }
    )
    out = reparse(rows, SCALES).sort("key")
    assert out["key"].to_list() == ["a", "d"]
    assert out["raw"][0] == '```{"score": 5}```'  # the answer that now parses
    assert out["status"].to_list() == ["ok", "out_of_range"]
    assert out["score"].to_list() == [5.0, None]
