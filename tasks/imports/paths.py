"""Paths into a JSON record (`results[0]["swap = True"].winner`) and file-path patterns
(`evaluators/{judge}/{prompt_level}/result.json`): parsed once, applied per record."""

from __future__ import annotations

import json
import re
from functools import cache

Step = str | int
_STEP = re.compile(
    r"""\.?(?P<name>[^.\[\]"']+)|\[(?P<index>-?\d+)\]|\[(?P<quoted>"(?:[^"\\]|\\.)*"|'[^']*')\]"""
)
MISSING = object()  # a path that leads nowhere in a record


class PathSyntaxError(ValueError):
    """A field path or file pattern that cannot be read; the message says where."""


@cache
def parse(path: str) -> tuple[Step, ...]:
    """`a.b[0]["c d"]` → ("a", "b", 0, "c d")."""
    steps: list[Step] = []
    pos = 0
    while pos < len(path):
        m = _STEP.match(path, pos)
        if m is None or m.end() == pos:
            raise PathSyntaxError(f"path {path!r}: cannot read it from character {pos + 1}")
        if m["name"] is not None:
            steps.append(m["name"].strip())
        elif m["index"] is not None:
            steps.append(int(m["index"]))
        else:
            quoted = m["quoted"]
            steps.append(json.loads(quoted) if quoted[0] == '"' else quoted[1:-1])
        pos = m.end()
    if not steps:
        raise PathSyntaxError("an empty path")
    return tuple(steps)


def get(record: object, steps: tuple[Step, ...]) -> object:
    """The value at `steps`, or MISSING when a key or index is not there."""
    value = record
    for step in steps:
        if isinstance(step, int):
            found = isinstance(value, list) and -len(value) <= step < len(value)
        else:
            found = isinstance(value, dict) and step in value
        if not found:
            return MISSING
        value = value[step]
    return value


def text(value: object) -> str | None:
    """A JSON scalar as the text a label map or template sees (1 → "1", true → "true");
    None for null, MISSING, or a list or object (not one value)."""
    if value is MISSING or value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value)


_NAME = re.compile(r"\{([A-Za-z_]\w*)\}")


@cache
def pattern(template: str) -> re.Pattern[str]:
    """A file pattern as a regex matching the end of a path: each `{name}` one path part."""
    pieces, pos = [], 0
    for m in _NAME.finditer(template):
        pieces += [re.escape(template[pos : m.start()]), f"(?P<{m[1]}>[^/]+)"]
        pos = m.end()
    pieces.append(re.escape(template[pos:]))
    try:
        return re.compile(r"(?:^|/)" + "".join(pieces) + "$")
    except re.error as exc:  # a name used twice
        raise PathSyntaxError(f"pattern {template!r}: {exc}") from None


def names(template: str) -> list[str]:
    """The `{name}`s of a template string."""
    return _NAME.findall(template)
