"""GBNF grammars for llama.cpp: the answer can only be `{"score": v}` with v on the scale's grid."""

from __future__ import annotations

import json
from functools import cache

from tasks.judging.scales import Scale


def grammar_text(scale: Scale) -> str:
    """Enumerate the grid (a few hundred values at most): tight grammars decode fastest here."""
    values = " | ".join(json.dumps(v) for v in scale.grid())
    return f'root ::= "{{\\"{scale.field}\\": " ({values}) "}}"'


def _scale_from_schema(schema: dict) -> Scale:
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
    return _compiled(grammar_text(_scale_from_schema(schema)))
