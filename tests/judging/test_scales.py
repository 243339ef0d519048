"""Scales: grids, positions and the llama.cpp grammar that only admits grid values."""

import json

import pytest

from tasks.judging.grammar import grammar_text, score_grammar
from tasks.judging.scales import load_scales

SCALES = load_scales()


def test_the_four_paper_scales_and_the_verdict() -> None:
    got = {n: (s.min, s.max, len(s.grid())) for n, s in SCALES.items()}
    assert got == {
        "likert7": (1, 7, 7),
        "bipolar3": (-3, 3, 7),
        "unit": (0, 1, 101),
        "pct100": (0, 100, 101),
        "verdict": (0, 1, 2),
        "winner": (0, 2, 3),
        "rubric_argument": (1, 10, 10),  # the overall score; criteria 1–4 each
        "rubric_application": (1, 10, 10),
        "rewrite": (0, 100000, 0),  # free text: no grid
    }


def test_numeric_scales_keep_their_key_material() -> None:
    """Stored calls stay addressable: only a verdict scale adds `categories` to the key."""
    assert SCALES["likert7"].key_material() == {"name": "likert7", "min": 1, "max": 7, "step": 1}
    assert SCALES["verdict"].key_material()["categories"] == ["FALSE", "TRUE"]


def test_verdict_grammar_and_parse() -> None:
    from tasks.judging.parse import parse_score

    v = SCALES["verdict"]
    assert grammar_text(v) == 'root ::= "{\\"verdict\\": " ("\\"FALSE\\"" | "\\"TRUE\\"") "}"'
    assert parse_score('{"verdict": "TRUE"}', v) == ("ok", 1.0)
    assert parse_score('Sure. {"verdict": "false"}', v) == ("ok", 0.0)
    assert parse_score('{"verdict": true}', v) == ("ok", 1.0)
    assert parse_score('{"verdict": "MAYBE"}', v) == ("out_of_range", None)
    assert parse_score('{"score": 1}', v) == ("unparseable", None)
    assert parse_score("TRUE", v) == ("unparseable", None)


def test_positions_map_onto_each_grid() -> None:
    assert [SCALES["likert7"].from_unit(u) for u in (0, 0.5, 1)] == [1, 4, 7]
    assert SCALES["bipolar3"].from_unit(0.17) == -2  # -3 + 1.02 → snapped
    assert SCALES["unit"].fmt(SCALES["unit"].from_unit(0.583)) == "0.58"
    assert SCALES["pct100"].from_unit(0.7) == 70


def test_grammar_enumerates_exactly_the_grid() -> None:
    text = grammar_text(SCALES["bipolar3"])
    for v in ("-3", "0", "3"):
        assert f'"{v}"' in text
    assert '"4"' not in text and '"-4"' not in text


@pytest.mark.parametrize("name", [n for n, s in SCALES.items() if s.structured])
def test_grammar_compiles_in_llama_cpp(name: str) -> None:
    assert score_grammar(SCALES[name].json_schema()) is not None


def test_fake_judge_answers_verdict_scales() -> None:
    """The tests' fake judge speaks the verdict schema; planted behaviour follows its truth."""
    import json

    from judgelab.testing.fake_provider import FakeJudge

    schema = {"response_format": {"json_schema": {"schema": SCALES["verdict"].json_schema()}}}
    msgs = [{"role": "user", "content": "Q"}]
    out = FakeJudge().completion("hash", msgs, schema)
    assert json.loads(out.choices[0].message.content)["verdict"] in ("TRUE", "FALSE")
    bad = FakeJudge().completion("out_of_range", msgs, schema)
    assert json.loads(bad.choices[0].message.content) == {"verdict": "MAYBE"}


def test_rubric_and_text_answers() -> None:
    from tasks.judging.parse import parse_score

    r = SCALES["rubric_argument"]
    crit = {c: {"score": 3, "justification": "ok"} for c in r.criteria}
    good = {"criteria": crit, "overall": 7, "strengths": "s", "weaknesses": "w"}
    assert parse_score("Here: " + json.dumps(good), r) == ("ok", 7.0)
    assert parse_score(json.dumps(good | {"overall": 11}), r) == ("out_of_range", None)
    bad_crit = {**crit, "claim": {"score": 5, "justification": "x"}}
    assert parse_score(json.dumps(good | {"criteria": bad_crit}), r) == ("out_of_range", None)
    missing = {k: v for k, v in crit.items() if k != "support"}
    assert parse_score(json.dumps(good | {"criteria": missing}), r) == ("unparseable", None)
    assert score_grammar(r.json_schema()) is not None  # compiles in llama.cpp
    text = SCALES["rewrite"]
    assert parse_score("Three words here", text) == ("ok", 3.0)
    assert parse_score("   ", text) == ("unparseable", None)
    assert not text.structured  # no response_format, no grammar: free generation


@pytest.mark.parametrize("task", ["tone_argument", "tone_application"])
def test_every_evaluator_genre_renders_with_its_rubric(task: str) -> None:
    """Genres are data: task.toml's criteria must match the rubric scale of the same genre."""
    from tasks.judging import prompts

    scale = SCALES["rubric_" + task.removeprefix("tone_")]
    for variant in ("plain", "style_attention", "fact_first"):
        text = prompts.render_system(prompts.load_template(task, variant), scale)
        assert all(f"- {c}:" in text for c in scale.criteria)
    assert "style and overall presentation" in prompts.render_system(
        prompts.load_template(task, "style_attention"), scale
    )
