"""Re-parse stored answers (after a parser fix) without calling any model."""

from __future__ import annotations

import json

import polars as pl

from tasks.judging.parse import ERROR, OK, parse_score
from tasks.judging.scales import Scale


def reparse_row(answers: list[str], scale: Scale) -> tuple[str, float | None, str | None]:
    """The first answer that parses wins, as it would have during the run; else the last."""
    status, score = ERROR, None
    for raw in answers:
        status, score = parse_score(raw, scale)
        if status == OK:
            return status, score, raw
    return status, score, answers[-1] if answers else None


def reparse(rows: pl.DataFrame, scales: dict[str, Scale]) -> pl.DataFrame:
    """`rows`: newest store rows with their plan `scale`. Returns the rows whose status or
    score changes, with the new values; `error` rows have no answers and are left alone."""
    changed = []
    for r in rows.filter(pl.col("status") != ERROR).iter_rows(named=True):
        answers = json.loads(r["answers"]) if r["answers"] else [r["raw"]]
        status, score, raw = reparse_row(answers, scales[r["scale"]])
        if (status, score) != (r["status"], r["score"]):
            changed.append({**r, "status": status, "score": score, "raw": raw})
    return pl.DataFrame(changed, schema=rows.schema)
