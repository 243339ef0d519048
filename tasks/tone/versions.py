"""Assemble the tone test's versions: originals, rule-based rewrites and LLM rewrites."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from schemas.tone_versions import ToneVersions
from schemas.validate import validate
from tasks.tone.axes import Axis, strip_change_list

ORIGINAL, NONE = "original", "none"
COLUMNS = list(ToneVersions.to_schema().columns)


def originals(study: str, texts: pl.DataFrame) -> pl.DataFrame:
    return texts.select(
        pl.lit(study).alias("study"),
        ("original:" + pl.col("text_id")).alias("version_id"),
        "text_id",
        pl.lit(NONE).alias("axis"),
        pl.lit(ORIGINAL).alias("pole"),
        pl.lit(NONE).alias("rewriter"),
        pl.lit(NONE).alias("model"),
        pl.lit("ok").alias("status"),
        "text",
        pl.lit(None, pl.String).alias("raw"),
    )


def lexical(study: str, lexical_versions: pl.DataFrame) -> pl.DataFrame:
    """tasks.tone.lexical's versions in this table's shape (a text it cannot move stays as
    it is and then fails the direction check)."""
    return lexical_versions.select(
        pl.lit(study).alias("study"),
        "version_id",
        "text_id",
        "axis",
        "pole",
        "rewriter",
        pl.lit("rules").alias("model"),
        pl.lit("ok").alias("status"),
        "text",
        pl.lit(None, pl.String).alias("raw"),
    )


def llm(study: str, plan: pl.DataFrame, judgments: pl.DataFrame) -> pl.DataFrame:
    """Rewrite calls (plan ⋈ newest judgment) → versions; a failed or missing call keeps its
    status and no text, so it is counted as a failed rewrite, never silently dropped."""
    joined = plan.join(judgments.select("key", "status", "raw"), on="key", how="left")
    axis_pole = pl.col("prompt_level").str.split_exact(":", 1)
    return joined.select(
        pl.lit(study).alias("study"),
        pl.format("{}:{}:{}", "judge", "prompt_level", "item_id").alias("version_id"),
        pl.col("item_id").alias("text_id"),
        axis_pole.struct.field("field_0").alias("axis"),
        axis_pole.struct.field("field_1").alias("pole"),
        pl.col("judge").alias("rewriter"),
        "model",
        pl.col("status").fill_null("missing"),
        pl.when(pl.col("status") == "ok")
        .then(pl.col("raw").map_elements(strip_change_list, return_dtype=pl.String))
        .alias("text"),
        "raw",
    )


def as_written(
    study: str, texts: pl.DataFrame, axes: Mapping[str, Axis], rewriter: str
) -> pl.DataFrame:
    """The LLM rewriter's version of each pole that is the original (verbosity's `unpadded`,
    formatting's `prose`): the text itself, asked of no model (model "none"). Its evaluation
    messages equal the original's, so it shares the original's calls and costs nothing."""
    parts = [
        originals(study, texts).with_columns(
            pl.format("{}:{}:{}:{}", pl.lit(rewriter), pl.lit(name), pl.lit(pole), "text_id").alias(
                "version_id"
            ),
            pl.lit(name).alias("axis"),
            pl.lit(pole).alias("pole"),
            pl.lit(rewriter).alias("rewriter"),
        )
        for name, axis in axes.items()
        for pole, spec in axis.poles.items()
        if spec.original
    ]
    return pl.concat(parts) if parts else originals(study, texts).clear()


def all_versions(*parts: pl.DataFrame) -> pl.DataFrame:
    return validate(pl.concat([p.select(COLUMNS) for p in parts]), ToneVersions)
