"""Scales: grids, positions and the llama.cpp grammar that only admits grid values."""

import json

import pytest

from tasks.judging.grammar import grammar_text, opening_and_grammar
from tasks.judging.parse import parse_score
from tasks.judging.scales import Scale, load_scales

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
        "grade5": (1, 5, 5),  # a type package's (tasks/grading/scales.toml), after the shared
    }
    assert list(SCALES)[-1] == "grade5"


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


@pytest.fixture(scope="module")
def vocab(embedded_judge: str):
    """The embedded model's vocabulary alone (no weights, ~0.2 s): what llama.cpp compiles a
    grammar against, after the model's self-test (embedded_judge)."""
    from llama_cpp import Llama

    from tasks.judging.local_models import model_path

    name = embedded_judge.removeprefix("local/")
    llm = Llama(model_path=str(model_path(name)), vocab_only=True, verbose=False)
    yield llm
    llm.close()


def admits(llm, grammar, text: str) -> bool:
    """Whether llama.cpp's grammar sampler lets the model write `text` and then stop: every
    token of the text, then end-of-text, keeps a finite logit after the tokens before it."""
    import ctypes

    import llama_cpp as lc

    # the compiled grammar's text and root, as llama-cpp-python hands them to its sampler
    sampler = lc.llama_sampler_init_grammar(
        llm._model.vocab, grammar._grammar.encode(), grammar._root.encode()
    )
    assert sampler, "llama.cpp could not parse the grammar"
    try:
        for token in [*llm.tokenize(text.encode(), add_bos=False), llm.token_eos()]:
            candidate = (lc.llama_token_data * 1)(lc.llama_token_data(token, 0.0, 0.0))
            lc.llama_sampler_apply(
                sampler, ctypes.byref(lc.llama_token_data_array(candidate, 1, -1, False))
            )
            if candidate[0].logit == float("-inf"):
                return False
            if token != llm.token_eos():
                lc.llama_sampler_accept(sampler, token)
        return True
    finally:
        lc.llama_sampler_free(sampler)


def off_grid(scale: Scale) -> list[str]:
    """Answers just off the grid: a step beyond each end, and halfway between two values."""
    if scale.categories:
        return ['"MAYBE"', json.dumps(scale.categories[0].lower()), '""']
    half = Scale("half", "", scale.min, scale.max, scale.step / 10)
    return [
        scale.fmt(scale.max + scale.step),
        scale.fmt(scale.min - scale.step),
        half.fmt(scale.min + scale.step / 2),
    ]


@pytest.mark.parametrize("name", [n for n, s in SCALES.items() if s.structured and not s.criteria])
def test_llama_cpp_grammar_admits_the_grid_and_nothing_off_it(name: str, vocab) -> None:
    """What the embedded judge decodes under (the answer's opening is in the prompt, the
    grammar covers the rest): every grid value, which parses back to its own value, and
    nothing off the grid."""
    scale = SCALES[name]
    opening, grammar = opening_and_grammar(scale.json_schema())
    assert opening == f'{{"{scale.field}": '
    for value in scale.grid():
        assert admits(vocab, grammar, f"{value}}}"), value
    assert [parse_score(f"{opening}{v}}}", scale) for v in scale.grid()] == [
        ("ok", pytest.approx(scale.min + k * scale.step)) for k in range(len(scale.grid()))
    ]
    for value in off_grid(scale):
        assert not admits(vocab, grammar, f"{value}}}"), value
    assert not admits(vocab, grammar, scale.grid()[0])  # the closing brace is required


@pytest.mark.parametrize("name", [n for n, s in SCALES.items() if s.criteria])
def test_llama_cpp_rubric_grammar_admits_whole_answers_on_the_grid(name: str, vocab) -> None:
    scale = SCALES[name]
    opening, grammar = opening_and_grammar(scale.json_schema())
    crit = {c: {"score": 3, "justification": "ok"} for c in scale.criteria}
    first = scale.criteria[0]

    def rest(change: dict) -> str:
        """A whole answer with `change`, less the opening the prompt already holds."""
        good = {"criteria": crit, "overall": 7, "strengths": "s", "weaknesses": "w"}
        text = json.dumps(good | change)
        assert text.startswith(opening)
        return text.removeprefix(opening)

    for value in scale.grid():
        assert admits(vocab, grammar, rest({"overall": int(value)})), value
    assert [parse_score(opening + rest({"overall": int(v)}), scale) for v in scale.grid()] == [
        ("ok", float(v)) for v in range(int(scale.min), int(scale.max) + 1)
    ]
    for change in (
        {"overall": int(scale.max) + 1},
        {"overall": int(scale.min) - 1},
        {"criteria": crit | {first: {"score": scale.criterion_max + 1, "justification": "x"}}},
        {"criteria": crit | {first: {"score": 0, "justification": "x"}}},
        {"criteria": crit | {first: {"score": 2, "justification": "x" * 61}}},  # rambling
        {"criteria": {c: v for c, v in crit.items() if c != scale.criteria[-1]}},
    ):
        assert not admits(vocab, grammar, rest(change)), change


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
