"""A study's imports read, mapped and checked: one row per imported judgment with its key
(keys.import_key), answer and provenance. Shared by the check at load, the import stage and
the plan stage (a file is read once per process and version: read.read_fields)."""

from __future__ import annotations

import hashlib

import polars as pl

from judgelab.names import check_name
from judgelab.settings import Settings
from judgelab.study import Study
from tasks.imports import mapping, read
from tasks.judging.keys import canonical_json
from tasks.judging.scales import load_scales
from tasks.study_types import StudyType

KEY_PARTS = ["judge", "model", "prompt_level", "scale", "item_id", "repeat"]


def imported(study: Study, settings: Settings, items: set[str] | None) -> pl.DataFrame:
    """Every `[[imports]]` row of the study, checked (TableError of one line on the first
    problem; nothing is written here). `items`: the ids an imported item must be one of
    (None: not checked)."""
    scales = load_scales()
    hook = StudyType.named(study.type).load("imports")
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
    return mapping.check_duplicates(rows.with_columns(keys(rows)))


def keys(rows: pl.DataFrame) -> pl.Series:
    """keys.import_key of every row, its canonical JSON joined from each column's distinct
    values encoded once (100,000 rows: 9 s as one import_key per row, 0.2 s so)."""
    pieces = [pl.lit('["import"')]
    for column in KEY_PARTS:
        if column == "repeat":
            pieces += [pl.lit(","), pl.col(column).cast(pl.String)]
            continue
        distinct = rows[column].unique().to_list()
        encoded = {v: canonical_json(v) for v in distinct}
        pieces += [pl.lit(","), pl.col(column).replace_strict(encoded, return_dtype=pl.String)]
    texts = rows.select(pl.concat_str([*pieces, pl.lit("]")]))[:, 0]
    return pl.Series(
        "key", [hashlib.sha256(t.encode()).hexdigest() for t in texts], dtype=pl.String
    )


def _check_names(rows: pl.DataFrame) -> None:
    """Judge names and prompt levels end up in file and table names (judgelab/names.py)."""
    for column in ("judge", "prompt_level"):
        for name in rows[column].unique().to_list():
            try:
                check_name(name, column.replace("_", " "))
            except ValueError as exc:
                mapping.fail(rows.filter(pl.col(column) == name), column, str(exc))
