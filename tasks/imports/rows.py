"""Imported judgments as the tables they join, pure Polars: the plan's rows for imported
judges, and the store rows an import stage writes (only answers that changed)."""

from __future__ import annotations

import json
from datetime import datetime

import polars as pl

from judgelab.study import Study
from schemas.plan import Plan
from schemas.validate import validate
from tasks.judging.parts import SCHEMA

PROMPT_VERSION = "import"  # an imported judge's prompt is its own, never a template of ours
EFFORT = "n/a"  # no reasoning-effort control was ours to set
ANSWER = ["status", "score", "raw", "source_row"]  # what a new import row must differ in


def plan_rows(study: Study, imported: pl.DataFrame) -> pl.DataFrame:
    """One plan row per imported judgment: no messages, no params (nothing is ever sent)."""
    columns = list(Plan.to_schema().columns)
    if imported.is_empty():
        return pl.DataFrame(schema={c: pl.Int64 if c == "repeat" else pl.String for c in columns})
    out = imported.select(
        "key",
        pl.col("key").alias("base_key"),
        pl.lit(study.name).alias("study"),
        "judge",
        "model",
        pl.lit(study.task).alias("task"),
        "prompt_level",
        pl.lit(PROMPT_VERSION).alias("prompt_version"),
        "scale",
        pl.lit(EFFORT).alias("reasoning_effort"),
        "item_id",
        "repeat",
        pl.lit("[]").alias("messages"),
        pl.lit("{}").alias("params"),
    )
    return validate(out, Plan)


def changed(imported: pl.DataFrame, stored: pl.DataFrame) -> pl.DataFrame:
    """Imported rows whose key the store lacks, or holds with another answer or row number
    (`stored`: the newest row per key with ANSWER). The file's sha256 is not compared: an
    edit changes it for every row, and only the edited rows are new answers."""
    if imported.is_empty():
        return imported
    joined = imported.join(stored.select("key", *ANSWER), on="key", how="left", suffix="_stored")
    same = pl.all_horizontal(pl.col(c).eq_missing(pl.col(f"{c}_stored")) for c in ANSWER)
    return joined.filter(~same).select(imported.columns)


def store_rows(rows: pl.DataFrame, run_id: str, now: datetime) -> pl.DataFrame:
    """Imported judgments as judgments-store rows: source "import", no request sent."""
    return rows.select(
        "key",
        pl.col("key").alias("base_key"),
        "model",
        pl.lit(None, pl.String).alias("endpoint"),
        "status",
        pl.when(pl.col("status") == "ok").then(pl.col("score")).alias("score"),
        "raw",
        pl.Series(
            "answers",
            [json.dumps([r] if r is not None else [], ensure_ascii=False) for r in rows["raw"]],
            dtype=pl.String,
        ),
        pl.lit(None, pl.String).alias("error"),
        pl.lit(0, pl.Int64).alias("attempts"),
        pl.lit(0.0).alias("latency_s"),
        pl.lit(None, pl.Int64).alias("prompt_tokens"),
        pl.lit(None, pl.Int64).alias("completion_tokens"),
        pl.lit(None, pl.Float64).alias("cost_usd"),
        pl.lit(run_id).alias("run_id"),
        pl.lit(now).dt.cast_time_unit("us").dt.convert_time_zone("UTC").alias("created_at"),
        pl.lit("import").alias("source"),
        "source_sha256",
        pl.col("source_row").cast(pl.Int64),
        pl.lit(None, pl.Int64).alias("cached_tokens"),
        pl.lit(None, pl.Int64).alias("cache_write_tokens"),
        pl.lit(None, pl.String).alias("batch_id"),
        pl.lit(None, pl.String).alias("probs"),
    ).cast(SCHEMA)
