"""GBNF grammars for llama.cpp: the answer can only be `{"score": v}` with v on the scale's grid.

A grammar is split into the answer's fixed opening (`{"score": `), which the local provider
writes into the prompt as the start of the assistant turn instead of decoding it token by
token, and a grammar for the rest. `grammar_text` joins the two: the whole answer's grammar.
"""

from __future__ import annotations

import json
from functools import cache

from tasks.judging.scales import Scale


def _lit(text: str) -> str:
    """A GBNF string literal."""
    return json.dumps(text)


def answer_grammar(scale: Scale, max_chars: int = 60) -> tuple[str, str]:
    """(opening, grammar of the rest). Grids are enumerated (a few hundred values at most):
    tight grammars decode fastest here. A rubric's strings are kept short, so a small local
    model cannot ramble."""
    if not scale.criteria:
        values = " | ".join(_lit(v) for v in scale.grid())
        return f'{{"{scale.field}": ', f'root ::= ({values}) "}}"'
    first, *rest = scale.criteria
    justification = _lit(', "justification": ')
    criterion = f'[1-{scale.criterion_max}] {justification} str "}}"'
    others = [_lit(f', {json.dumps(c)}: {{"score": ') + " " + criterion for c in rest]
    overall = " | ".join(_lit(v) for v in scale.grid())
    closing = [_lit('}, "overall": '), f"({overall})", _lit(', "strengths": '), "str"]
    closing += [_lit(', "weaknesses": '), "str", '"}"']
    string = f'str ::= "\\"" [^"\\\\\\n]{{1,{max_chars}}} "\\""'
    opening = f'{{"criteria": {{{json.dumps(first)}: {{"score": '
    return opening, f"root ::= {' '.join([criterion, *others, *closing])}\n{string}"


def grammar_text(scale: Scale) -> str:
    """The whole answer's grammar: the opening as a literal, then the rest."""
    opening, rest = answer_grammar(scale)
    return rest.replace("root ::= ", f"root ::= {_lit(opening)} ", 1)


def _scale_from_schema(schema: dict) -> Scale:
    if "criteria" in schema["properties"]:
        props = schema["properties"]
        crit = props["criteria"]["properties"]
        first = next(iter(crit.values()))["properties"]["score"]
        overall = props["overall"]
        return Scale(
            "schema",
            "",
            float(overall["minimum"]),
            float(overall["maximum"]),
            1.0,
            criteria=tuple(crit),
            criterion_max=int(first["maximum"]),
        )
    enums = [(k, v["enum"]) for k, v in schema["properties"].items() if "enum" in v]
    if enums:  # a categorical answer under its key: {"verdict": …}, {"winner": …}
        ((key, categories),) = enums
        key = "" if key == "verdict" else key
        return Scale("schema", "", 0.0, len(categories) - 1.0, 1.0, tuple(categories), key=key)
    s = schema["properties"]["score"]
    step = 1.0 if s["type"] == "integer" else float(s.get("multipleOf", 0.01))
    return Scale(
        name="schema", label="", min=float(s["minimum"]), max=float(s["maximum"]), step=step
    )


@cache
def _compiled(text: str):
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(text, verbose=False)


def score_grammar(schema: dict):
    """A compiled grammar for a whole `{"score": …}` / `{"verdict": …}` (`{"winner": …}`) /
    rubric answer."""
    return _compiled(grammar_text(_scale_from_schema(schema)))


def opening_and_grammar(schema: dict) -> tuple[str, object]:
    """The answer's fixed opening and the compiled grammar of the rest (cached per scale)."""
    opening, rest = answer_grammar(_scale_from_schema(schema))
    return opening, _compiled(rest)
