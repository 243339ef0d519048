"""Parse a raw judge answer into (status, score). A failed parse never becomes a score."""

from __future__ import annotations

import json
import math
import re

from tasks.judging.scales import Scale

OK, UNPARSEABLE, OUT_OF_RANGE, ERROR = "ok", "unparseable", "out_of_range", "error"
STATUSES = (OK, UNPARSEABLE, OUT_OF_RANGE, ERROR)
_OBJECT = re.compile(r"\{[^{}]*\}", re.S)


def parse_score(raw: str | None, scale: Scale) -> tuple[str, float | None]:
    """Take the first JSON object with a numeric `score` (code fences and chatter tolerated)."""
    if not raw:
        return UNPARSEABLE, None
    for candidate in _OBJECT.findall(raw):
        try:
            obj = json.loads(candidate)
        except ValueError:
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
