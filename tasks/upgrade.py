"""Bring warehouse parts written by an earlier judgelab to today's column names, in place, so
the views still publish and `tbl_changes` compares an old run with a new one.

Issue 15 renamed the tone tables' `evaluator` / `prompt_variant` to `judge` / `prompt_level`
(the names every other study type uses). Without this, an old tone part breaks every publish
(DuckDB: column "judge" not found) and the first run after an upgrade lists every tone row of
`tbl_changes` as removed and re-added. Only derived tables change; stored answers and their
call keys are untouched."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import polars as pl

RENAMED = {"evaluator": "judge", "prompt_variant": "prompt_level"}
TONE_TABLES = (
    "tone_scores",
    "tone_version_scores",
    "tone_gaps",
    "tone_threshold_sweep",
    "tone_criterion_gaps",
    "tone_human_relation",
)
# tone_gaps rows in the run ledger were named "evaluator=x · prompt_variant=y · rewriter=..."
OLD_ROW_KEY = r"^evaluator=(.*) · prompt_variant="
NEW_ROW_KEY = "judge=${1} · prompt_level="


def renamed_columns(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.rename({old: new for old, new in RENAMED.items() if old in frame.columns})


def renamed_row_keys(history: pl.DataFrame) -> pl.DataFrame:
    """metric_history rows with the old tone row keys renamed; other rows as they were."""
    old = (pl.col("source") == "tone_gaps") & pl.col("row_key").str.contains(OLD_ROW_KEY)
    new = pl.col("row_key").str.replace(OLD_ROW_KEY, NEW_ROW_KEY)
    return history.with_columns(pl.when(old).then(new).otherwise("row_key").alias("row_key"))


def _replace(path: Path, frame: pl.DataFrame) -> None:
    tmp = path.parent / f".tmp-{uuid.uuid4().hex}"
    frame.write_parquet(tmp)
    os.replace(tmp, path)


def upgrade_warehouse(warehouse_dir: Path) -> list[Path]:
    """Rewrite the parts that still use the old names; return them (none on a current one).
    Cheap when there is nothing to do: tone parts by their schema, the ledger by one scan."""
    changed = []
    for table in TONE_TABLES:
        for path in sorted((warehouse_dir / table).glob("*.parquet")):
            if RENAMED.keys() & pl.read_parquet_schema(path).keys():
                _replace(path, renamed_columns(pl.read_parquet(path)))
                changed.append(path)
    history = sorted((warehouse_dir / "metric_history").glob("*.parquet"))
    if history:
        old = (
            pl.scan_parquet(history, include_file_paths="path")
            .filter(pl.col("source") == "tone_gaps", pl.col("row_key").str.contains(OLD_ROW_KEY))
            .select("path")
            .unique()
            .collect()
        )
        for path in map(Path, old["path"]):
            _replace(path, renamed_row_keys(pl.read_parquet(path)))
            changed.append(path)
    return changed
