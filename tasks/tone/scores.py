"""Evaluation answers of the tone test → `tone_scores`, one row per planned evaluation call."""

from __future__ import annotations

import json

import polars as pl

from schemas.tone_scores import ToneScores
from schemas.validate import validate
from tasks.judging.parse import rubric
from tasks.judging.scales import Scale


def criteria_json(raw: str | None, scale: Scale) -> str | None:
    """{criterion: score} from a rubric answer, as JSON (the justifications stay in `raw`)."""
    obj = rubric(raw, scale) or {}
    crit = obj.get("criteria")
    if not isinstance(crit, dict):
        return None
    return json.dumps({c: crit[c]["score"] for c in scale.criteria}, sort_keys=True)


def tone_score_rows(
    plan: pl.DataFrame,
    judgments: pl.DataFrame,
    versions: pl.DataFrame,
    texts: pl.DataFrame,
    scales: dict[str, Scale],
) -> pl.DataFrame:
    """eval plan ⋈ newest judgment ⋈ versions ⋈ texts. Only ok answers carry an overall score
    and criteria; planned calls not stored yet are `missing`."""
    joined = (
        plan.join(judgments.select("key", "status", "score", "raw"), on="key", how="left")
        .join(
            versions.select("version_id", "text_id", "axis", "pole", "rewriter"),
            left_on="item_id",
            right_on="version_id",
            how="left",
        )
        .join(texts.select("text_id", "human_score"), on="text_id", how="left")
        .with_columns(pl.col("status").fill_null("missing"))
    )
    crit = [
        criteria_json(raw, scales[s]) if status == "ok" else None
        for raw, s, status in joined.select("raw", "scale", "status").iter_rows()
    ]
    out = joined.select(
        "study",
        "judge",
        "model",
        "prompt_level",
        "text_id",
        "axis",
        "pole",
        "rewriter",
        "repeat",
        "status",
        pl.when(pl.col("status") == "ok").then(pl.col("score")).alias("overall"),
        pl.Series("criteria", crit, dtype=pl.String),
        pl.col("human_score").cast(pl.Float64),
    )
    return validate(out, ToneScores)
