"""Parsing: only a numeric in-range score is a score; everything else keeps its status."""

import pytest

from tasks.judging.parse import OK, OUT_OF_RANGE, UNPARSEABLE, parse_score
from tasks.judging.scales import load_scales

SCALES = load_scales()


@pytest.mark.parametrize(
    ("raw", "scale", "expected"),
    [
        ('{"score": 5}', "likert7", (OK, 5.0)),
        ('```json\n{"score": -2}\n```', "bipolar3", (OK, -2.0)),
        ('Sure! {"score": 0.25} is my answer', "unit", (OK, 0.25)),
        ('{"score": 8}', "likert7", (OUT_OF_RANGE, None)),
        ('{"score": -0.1}', "unit", (OUT_OF_RANGE, None)),
        ('{"score": "5"}', "likert7", (UNPARSEABLE, None)),
        ('{"score": true}', "likert7", (UNPARSEABLE, None)),
        ('{"score": NaN}', "likert7", (UNPARSEABLE, None)),
        ("I would say 5.", "likert7", (UNPARSEABLE, None)),
        ("", "likert7", (UNPARSEABLE, None)),
        (None, "likert7", (UNPARSEABLE, None)),
        ('{"rating": 5}', "likert7", (UNPARSEABLE, None)),
    ],
)
def test_parse_score(raw: str | None, scale: str, expected: tuple) -> None:
    assert parse_score(raw, SCALES[scale]) == expected
