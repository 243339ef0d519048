"""What the drill-down reads from the warehouse: the calls behind each main table's rows, the
texts of their items, and which studies' texts stay hidden until asked; `drill.payload`
shapes them (pure)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging.prompts import task_config
from tasks.report import drill
from tasks.study_types import StudyType


def sensitive(task: str, root: Path | None = None) -> bool:
    """A task whose texts the report hides until asked: `sensitive = true` in its task.toml
    (toxicity: abusive turns). A task without a task.toml is not marked."""
    try:
        return bool(task_config(task, root).get("sensitive", False))
    except FileNotFoundError:
        return False


def drill_data(
    settings: Settings, studies: list[str], types: dict[str, str]
) -> tuple[dict[str, dict[tuple, str]], dict]:
    """The calls behind the main tables' rows, the texts of the items shown, and which
    studies' texts stay hidden until asked (tasks/report/drill.py shapes them)."""
    calls, specs = {}, {}
    for kind in StudyType.every():
        of_kind = [s for s in studies if types[s] == kind.name]
        if of_kind:
            report = kind.load("report")
            calls[kind.name] = warehouse.query(settings, report.DRILL_SQL, [of_kind])
            specs[kind.name] = report.DRILL
    tasks = {
        (study, task)
        for frame in calls.values()
        for study, task in frame.select("study", "task").unique().iter_rows()
    }
    hidden = {study for study, task in tasks if task and sensitive(task)}
    items = sorted({i for frame in calls.values() for i in frame["item_id"].drop_nulls()})
    return drill.payload(calls, specs, item_texts(settings, items), hidden)


def item_texts(settings: Settings, items: list[str]) -> dict[str, str]:
    """The text of each item: a rating item's text, a tone version's wording, or an accuracy
    item's question and answer as the judge saw them (qa_items has no view of its own)."""
    texts = dict(
        warehouse.query(
            settings,
            "select item_id, text from stg_items where list_contains(?, item_id) union all "
            "select version_id, text from stg_tone_versions where list_contains(?, version_id)",
            [items, items],
        ).rows()
    )
    qa = sorted((settings.warehouse_dir / "qa_items").glob("*.parquet"))
    if qa:
        frame = pl.concat(
            [pl.read_parquet(f, columns=["item_id", "text"]) for f in qa], how="vertical_relaxed"
        )
        texts |= dict(frame.filter(pl.col("item_id").is_in(items)).rows())
    for kind in StudyType.every():  # a type whose items have no text table says where its texts are
        sql = getattr(kind.load("report"), "TEXTS_SQL", None)
        if sql:
            texts |= dict(warehouse.query(settings, sql, [items]).rows())
    return texts
