"""A study's human-labelled subset (`human_labels = "file.csv"` in [study.analysis]) → item_id,
label: the labels judge-corrected estimates combine with the judge's scores (tbl_corrected).

Two columns, by name: `item_id` (as the study's tables write it: `judgelab show` lists them)
and `label`: a number on the common 1–7 scale in a rating study; true/false (or 1/0) in an
accuracy study, true meaning the answer is correct. Any format reading.read_table reads. Every
problem is reported at once, naming file, line (row for Parquet) and column: blank ids, repeated
ids, labels that are not numbers in [1, 7] or not true/false, ids the study does not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import polars as pl

from schemas.validate import TableError
from tasks.benchmarks.problems import Problems
from tasks.benchmarks.ratingfile import read_roles, repeats, show
from tasks.benchmarks.reading import blank

ROLES = {"id": "item_id", "label": "label"}
VERDICT = {"true": 1.0, "1": 1.0, "1.0": 1.0, "false": 0.0, "0": 0.0, "0.0": 0.0}
LO, HI = 1.0, 7.0


def _value(kind: str) -> pl.Expr:
    text = pl.col("label").str.strip_chars()
    if kind == "verdict":
        return text.str.to_lowercase().replace_strict(
            VERDICT, default=None, return_dtype=pl.Float64
        )
    return text.cast(pl.Float64, strict=False)


def read_labels(
    path: str | Path, kind: Literal["rating", "verdict"], known: pl.Series | None = None
) -> pl.DataFrame:
    """The file's rows → item_id (String), label (Float64: 1–7, or 1.0 / 0.0). `known`: the
    study's item ids; an id outside them is a problem (a typo would quietly label nothing)."""
    path = Path(path)
    if not path.is_file():
        raise TableError(f"human_labels: no file {path}")

    def checks(frame: pl.DataFrame, problems: Problems) -> None:
        if frame.height == 0:
            problems.add(f"{path.name}: no data rows")
            return
        problems.rows(frame.filter(blank("id")), "item_id", lambda r: "empty item id")
        problems.groups(
            repeats(frame.filter(~blank("id")), ["id"]),
            "item_id",
            lambda r: f"item {show(r['id'])} is labelled more than once",
        )
        value = _value(kind)
        problems.rows(frame.filter(blank("label")), "label", lambda r: "empty label")
        if kind == "verdict":
            wrong = ~blank("label") & value.is_null()
            say = "is not true/false (or 1/0)"
        else:
            wrong = ~blank("label") & (
                value.is_null() | ~value.is_finite() | ~value.is_between(LO, HI)
            )
            say = f"is not a number on the common scale [{LO:g}, {HI:g}]"
        problems.rows(frame.filter(wrong), "label", lambda r: f"{show(r['label'])} {say}")
        if known is not None:
            unknown = frame.filter(~blank("id") & ~pl.col("id").is_in(known.implode()))
            problems.rows(
                unknown, "item_id", lambda r: f"{show(r['id'])} is not an item of the study"
            )

    frame = read_roles(path, ROLES, checks)
    return frame.select(pl.col("id").alias("item_id"), _value(kind).alias("label"))


def study_labels(
    human_labels: str | None,
    label_share: float | None,
    seed: int,
    answer_key: pl.DataFrame,
    known: pl.Series,
    kind: Literal["rating", "verdict"],
) -> tuple[pl.DataFrame, str, pl.DataFrame | None] | None:
    """The study's labelled subset as (item_id + label, label source, answer key or None):
    the file's labels, or under label_share a seeded share of `answer_key` (item_id, human:
    the benchmark's own labels), which then stays as the key the estimates aim at. None when
    the study declares neither."""
    from tasks.corrected import share_of_items

    if human_labels is not None:
        return read_labels(human_labels, kind, known), "file", None
    if label_share is None:
        return None
    chosen = share_of_items(answer_key["item_id"], label_share, seed)
    labels = answer_key.filter(pl.col("item_id").is_in(chosen.implode()))
    return labels.select("item_id", pl.col("human").alias("label")), "share", answer_key
