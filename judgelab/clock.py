"""The run's clock and the canary's date buckets. JUDGELAB_NOW (an ISO date or date-time, UTC
unless it says otherwise) stands in for now, so a test runs a study "on" three dates and an
operator can redo a past bucket."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

from judgelab.study import BUCKET

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def now() -> datetime:
    text = os.environ.get("JUDGELAB_NOW", "").strip()
    if not text:
        return datetime.now(UTC)
    at = datetime.fromisoformat(text)
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def bucket(every: str, at: datetime | None = None) -> str:
    """The start of the bucket `at` (default: now) falls in, counted in steps of `every` from
    1970-01-01 UTC: "2026-12-01" for day buckets, "2026-12-01T12" for hour buckets. The same
    text names the bucket in call keys, table parts and tables."""
    match = BUCKET.match(every)
    if match is None:
        raise ValueError(f'a bucket length looks like "1d", "7d" or "12h", got {every!r}')
    n, unit = int(match.group(1)), match.group(2)
    step = timedelta(days=n) if unit == "d" else timedelta(hours=n)
    at = (at or now()).astimezone(UTC)
    start = EPOCH + ((at - EPOCH) // step) * step
    return f"{start:%Y-%m-%d}" if unit == "d" else f"{start:%Y-%m-%dT%H}"
