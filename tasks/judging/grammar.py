"""GBNF grammars for llama.cpp: the answer can only be `{"score": v}` with v on the scale's grid."""

from __future__ import annotations

import json
from functools import cache

from tasks.judging.scales import Scale


def grammar_text(scale: Scale) -> str:
    """Enumerate the grid (a few hundred values at most): tight grammars decode fastest here."""
    values = " | ".join(json.dumps(v) for v in scale.grid())
    return f'root ::= "{{\\"{scale.field}\\": " ({values}) "}}"'


def rubric_grammar_text(scale: Scale, max_chars: int = 60) -> str:
    """A rubric answer: each criterion's score on its grid and a short justification string,
    the overall score on the scale's grid, strengths and weaknesses (strings kept short, so a
    small local model cannot ramble)."""
    overall = " | ".join(json.dumps(v) for v in scale.grid())
    crit = ' ", " '.join(
        f'"\\"{c}\\": {{\\"score\\": " [1-{scale.criterion_max}] ", \\"justification\\": " str "}}"'
        for c in scale.criteria
    )
    return "\n".join(
        [
            f'root ::= "{{\\"criteria\\": {{" {crit} "}}, \\"overall\\": " ({overall}) '
            '", \\"strengths\\": " str ", \\"weaknesses\\": " str "}"',
            f'str ::= "\\"" [^"\\\\\\n]{{1,{max_chars}}} "\\""',
        ]
    )


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
    if "verdict" in schema["properties"]:
        categories = tuple(schema["properties"]["verdict"]["enum"])
        return Scale("schema", "", 0.0, len(categories) - 1.0, 1.0, categories)
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
    """A compiled grammar for a `{"score": …}` or `{"verdict": …}` schema (cached per scale)."""
    scale = _scale_from_schema(schema)
    return _compiled(rubric_grammar_text(scale) if scale.criteria else grammar_text(scale))
