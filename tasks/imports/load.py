"""A study's imports read, mapped and checked: one row per imported judgment with its key
(keys.import_key), answer and provenance. Shared by the check at load, the import stage and
the plan stage (a file is read once per process and version: read.read_fields)."""

from __future__ import annotations

import polars as pl

from judgelab.names import check_name
from judgelab.settings import Settings
from judgelab.study import Study
from tasks.imports import mapping, read
from tasks.judging.keys import import_key
from tasks.judging.scales import load_scales
from tasks.kinds import kind

KEY_PARTS = ["judge", "model", "prompt_level", "scale", "item_id", "repeat"]


def imported(study: Study, settings: Settings, items: set[str] | None) -> pl.DataFrame:
    """Every `[[imports]]` row of the study, checked (TableError of one line on the first
    problem; nothing is written here). `items`: the ids an imported item must be one of
    (None: not checked)."""
    scales = load_scales()
    hook = kind(study.type).load("imports")
    frames = []
    for spec in study.imports:
        scale = spec.scale or study.scales[0]
        fields = mapping.fields(spec)
        for f in read.files(spec, settings):
            sha, records = read.read_fields(f, read.file_format(spec, f), spec.records, fields)
            rows = mapping.map_file(spec, scale, f, sha, records)
            frames.append(hook.plan_answers(rows, scales[scale]))
    if not frames:
        return pl.DataFrame()
    rows = pl.concat(frames)
    mapping.check_rows(rows, items, {j.name for j in study.judges})
    _check_names(rows)
    keys = [import_key(*r) for r in rows.select(KEY_PARTS).iter_rows()]
    return mapping.check_duplicates(rows.with_columns(pl.Series("key", keys, dtype=pl.String)))


def _check_names(rows: pl.DataFrame) -> None:
    """Judge names and prompt levels end up in file and table names (judgelab/names.py)."""
    for column in ("judge", "prompt_level"):
        for name in rows[column].unique().to_list():
            try:
                check_name(name, column.replace("_", " "))
            except ValueError as exc:
                mapping.fail(rows.filter(pl.col(column) == name), column, str(exc))
