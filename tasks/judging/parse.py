"""Parse a raw judge answer into (status, score). A failed parse never becomes a score."""

from __future__ import annotations

import json
import math
import re

from tasks.judging.scales import Scale

OK, UNPARSEABLE, OUT_OF_RANGE, ERROR = "ok", "unparseable", "out_of_range", "error"
STATUSES = (OK, UNPARSEABLE, OUT_OF_RANGE, ERROR)
_OBJECT = re.compile(r"\{[^{}]*\}", re.S)


def _verdict(obj: object, scale: Scale) -> tuple[str, float | None] | None:
    """A verdict answer: its category's index; any other string is out of range."""
    value = obj.get("verdict") if isinstance(obj, dict) else None
    if isinstance(value, bool):  # {"verdict": true} means TRUE
        value = str(value).upper()
    if not isinstance(value, str):
        return None
    upper = [c.upper() for c in scale.categories]
    if value.strip().upper() not in upper:
        return OUT_OF_RANGE, None
    return OK, float(upper.index(value.strip().upper()))


def parse_score(raw: str | None, scale: Scale) -> tuple[str, float | None]:
    """Take the first JSON object with a numeric `score` (or, on a verdict scale, a `verdict`
    naming a category); code fences and chatter tolerated."""
    if not raw:
        return UNPARSEABLE, None
    for candidate in _OBJECT.findall(raw):
        try:
            obj = json.loads(candidate)
        except ValueError:
            continue
        if scale.categories:
            found = _verdict(obj, scale)
            if found is not None:
                return found
            continue
        score = obj.get("score") if isinstance(obj, dict) else None
        if (
            isinstance(score, bool)
            or not isinstance(score, int | float)
            or not math.isfinite(score)
        ):
            continue
        if not scale.contains(float(score)):
            return OUT_OF_RANGE, None
        return OK, float(score)
    return UNPARSEABLE, None
