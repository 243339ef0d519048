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
    """A categorical answer under the scale's key (`verdict`, `winner`): its category's index;
    any other string is out of range."""
    value = obj.get(scale.field) if isinstance(obj, dict) else None
    if isinstance(value, bool):  # {"verdict": true} means TRUE
        value = str(value).upper()
    if not isinstance(value, str):
        return None
    upper = [c.upper() for c in scale.categories]
    if value.strip().upper() not in upper:
        return OUT_OF_RANGE, None
    return OK, float(upper.index(value.strip().upper()))


def rubric(raw: str | None, scale: Scale) -> dict | None:
    """The outermost JSON object of a rubric answer (nested, so the flat pattern won't do)."""
    if not raw or "{" not in raw:
        return None
    try:
        obj = json.loads(raw[raw.index("{") : raw.rindex("}") + 1])
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _rubric(raw: str | None, scale: Scale) -> tuple[str, float | None]:
    """ok when every criterion has a score in 1..criterion_max and overall is on the scale."""
    obj = rubric(raw, scale)
    crit = obj.get("criteria") if obj else None
    overall = obj.get("overall") if obj else None
    if not isinstance(crit, dict) or not _number(overall):
        return UNPARSEABLE, None
    scores = [
        (crit.get(c) or {}).get("score") if isinstance(crit.get(c), dict) else None
        for c in scale.criteria
    ]
    if not all(_number(s) for s in scores):
        return UNPARSEABLE, None
    if not scale.contains(float(overall)) or not all(1 <= s <= scale.criterion_max for s in scores):
        return OUT_OF_RANGE, None
    return OK, float(overall)


def _number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def parse_score(raw: str | None, scale: Scale) -> tuple[str, float | None]:
    """Take the first JSON object with a numeric `score` (or, on a categorical scale, its key
    naming a category: `verdict`, `winner`); code fences and chatter tolerated."""
    if scale.text:  # free text (a rewrite): ok when non-empty; the score is its word count
        words = len((raw or "").split())
        return (OK, float(words)) if words else (UNPARSEABLE, None)
    if scale.criteria:
        return _rubric(raw, scale)
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
