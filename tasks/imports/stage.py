"""The import stage and the plan's imported rows, for every study type whose record reads
imports (tasks/study_types.py `imports`): read tables, call the pure transforms, write."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
from prefect import task

from judgelab.settings import Settings
from judgelab.study import Study
from tasks import warehouse
from tasks.imports import load, rows
from tasks.judging import store
from tasks.runlog import run_logger
from tasks.study_types import StudyType


def sampled_imports(study: Study, settings: Settings) -> tuple[pl.DataFrame, int]:
    """The study's imported judgments on its sampled items, and how many imported rows fall
    outside the sample. With the whole benchmark (`sample_size = 0`) an item the study lacks
    is an error; a sample leaves the others out (counted, and said by the import stage)."""
    if not study.imports:
        return pl.DataFrame(), 0
    table, column = StudyType.named(study.type).load("imports").ITEMS
    items = set(warehouse.read_table(settings, table, study.items_part, [column])[column])
    found = load.imported(study, settings, items if study.sample_size == 0 else None)
    if found.is_empty():
        return found, 0
    kept = found.filter(pl.col("item").is_in(list(items)))
    return kept, found.height - kept.height


def plan_rows(study: Study, settings: Settings) -> pl.DataFrame:
    """The plan's rows of the imported judges (none without imports)."""
    return rows.plan_rows(study, sampled_imports(study, settings)[0])


@task(name="import")
def import_stage(study: Study, settings: Settings, run_id: str) -> int:
    """Imported answers not yet stored, or changed in their file, → one store part (the
    newest row per key wins); returns the rows written (0 when the files are unchanged).
    Imported rows outside the study's sample are left out, and the run log says how many."""
    found, outside = sampled_imports(study, settings)
    if outside:
        run_logger(__name__).warning(
            "%s: %d of %d imported rows are on items outside the sample (sample_size = %d) "
            "and are left out; sample_size = 0 analyses them all",
            study.name,
            outside,
            outside + found.height,
            study.sample_size,
        )
    if found.is_empty():
        return 0
    stored = store.latest_rows(settings.store_dir, ["key", *rows.ANSWER])
    new = rows.changed(found, stored)
    if new.is_empty():
        return 0
    store.write_part(settings.store_dir, rows.store_rows(new, run_id, datetime.now(UTC)))
    return new.height
