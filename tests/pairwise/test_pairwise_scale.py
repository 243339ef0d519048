"""The winner scale through the categorical engine: its own JSON key in the schema, the grammar,
the parser and the fake judge, while the verdict scale (and every stored key) stays as it was."""

from __future__ import annotations

import json

import pytest

from judgelab.testing.fake_provider import FakeJudge
from tasks.judging.grammar import _scale_from_schema, grammar_text
from tasks.judging.parse import parse_score
from tasks.judging.scales import load_scales

SCALES = load_scales()
WINNER = SCALES["winner"]


def test_winner_answers_under_its_own_key() -> None:
    assert WINNER.field == "winner" and WINNER.categories == ("A", "B", "tie")
    assert WINNER.json_schema()["properties"] == {
        "winner": {"type": "string", "enum": ["A", "B", "tie"]}
    }
    assert WINNER.answer_hint() == '{"winner": "A"} or {"winner": "B"} or {"winner": "tie"}'
    assert grammar_text(_scale_from_schema(WINNER.json_schema())) == (
        'root ::= "{\\"winner\\": " ("\\"A\\"" | "\\"B\\"" | "\\"tie\\"") "}"'
    )
    # the verdict scale: no key of its own, so its key material and grammar are unchanged
    verdict = SCALES["verdict"]
    assert "key" not in verdict.key_material() and verdict.field == "verdict"
    assert grammar_text(_scale_from_schema(verdict.json_schema())) == grammar_text(verdict)
    assert '"{\\"verdict\\": "' in grammar_text(verdict)
    assert WINNER.key_material()["key"] == "winner"


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ('{"winner": "A"}', ("ok", 0.0)),
        ('```json\n{"winner": "b"}\n```', ("ok", 1.0)),
        ('{"winner": "Tie"}', ("ok", 2.0)),
        ('{"winner": "C"}', ("out_of_range", None)),
        ('{"verdict": "A"}', ("unparseable", None)),  # the verdict key is not this scale's
        ("Answer A is better.", ("unparseable", None)),  # prose never becomes a winner
    ],
)
def test_parse_winner(raw: str, parsed: tuple) -> None:
    assert parse_score(raw, WINNER) == parsed


def test_fake_judge_answers_the_winner_scale() -> None:
    fmt = {"type": "json_schema", "json_schema": {"schema": WINNER.json_schema()}}
    messages = [{"role": "user", "content": "Context:\nq\n\nAnswer A:\nx\n\nAnswer B:\ny"}]

    def answer(model: str, **params: object) -> str:
        reply = FakeJudge().completion(model, messages, {"response_format": fmt, **params})
        return reply.choices[0].message.content

    assert parse_score(answer("hash"), WINNER)[0] == "ok"
    assert parse_score(answer("unparseable"), WINNER)[0] == "unparseable"
    assert parse_score(answer("out_of_range"), WINNER)[0] == "out_of_range"
    always_first = answer("planted", first_bias=0.5, truth="/nonexistent", seed=0)
    assert json.loads(always_first) == {"winner": "A"}  # 2 × 0.5: the first position, always
