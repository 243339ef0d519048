"""Grading studies in the report: grades against a reference answer, checked against the labels.
What each part of the report shows for this type; the shared code (tasks/report/build.py,
summary.py, page.py, drill.py) finds it through the type's record (tasks/study_types.py)."""

from __future__ import annotations

import polars as pl

from schemas.scores import readout_label
from tasks.grading import figures
from tasks.report.drill import DrillSpec
from tasks.report.panel import Headline, Panel

TITLE = "Grading studies"
INTRO = (
    "Candidate answers graded 1–5 against a reference answer (reference-guided grading), "
    "the grades set against each candidate's right/wrong label."
)
# the header's reading note when a study of this type is in the report
SCALE_NOTE = (
    "Grades are 1–5; bias and MAE put grade and label on 1–7 (right 7, wrong 1); a grading "
    "design is judge × prompt level."
)
# the view with the run's main numbers (the summary artifact) and the columns read first
MAIN_NUMBERS = (
    "tbl_grading_by_design",
    ["study", "judge", "prompt_level", "n_items", "grade_right", "grade_wrong", "separation"],
)
PANELS: list[Panel] = [
    Panel(
        "tbl_grading_by_design",
        "Grades of right and wrong candidates per design, and MAE against the labels",
        "Left: each design's mean grade of the candidates labelled right (filled) and wrong "
        "(open); the longer the line between them, the better the judge tells them apart. "
        "Right: MAE against the label on 1–7 with its bootstrap 95% CI.",
        figures.grades_by_label,
        "no design graded both a right and a wrong candidate",
    ),
]
# the calls behind each row of the main table, for the drill-down
DRILL_SQL = """
select s.study, s.task, s.judge, s.prompt_level, s.scale, s.item_id, s."repeat", s.status,
       s.score, s.human_1to7 = 7 as correct, coalesce(j.raw, j.error) as raw
from stg_grading_scores s left join stg_judgments j using (key)
where list_contains(?, s.study)
"""
DRILL = DrillSpec(
    "tbl_grading_by_design",
    ("study", "judge", "prompt_level", "scale"),
    ("repeat", "correct", "score", "status", "raw"),
    (pl.col("score") - pl.when(pl.col("correct")).then(5.0).otherwise(1.0)).abs(),
)
# where the drill-down finds an item's text (the question, reference and candidate)
TEXTS_SQL = "select item_id, text from stg_grading_items where list_contains(?, item_id)"


def headline(rows: pl.DataFrame) -> Headline:
    """One study's answer from its designs (tbl_grading_by_design rows): the design that tells
    right from wrong candidates best, and how far the designs' separations spread (top: the
    best design's separation only)."""
    graded = rows.filter(pl.col("separation").is_not_null())
    if graded.is_empty():
        return Headline("", "")
    ranked = graded.sort(["separation", "mae"], descending=[True, False], nulls_last=True)
    best = ranked.row(0, named=True)
    design = f"{best['judge']} · {best['prompt_level']}" + readout_label(best.get("readout"))
    top = f"{design} separates right from wrong candidates best: {best['separation']:g} of 4."
    full = (
        f"{design} tells right from wrong candidates best: separation {best['separation']:g} "
        "grade points (4 = perfectly apart)"
    )
    if graded.height > 1:
        lo, hi = graded["separation"].min(), graded["separation"].max()
        full += f"; across {graded.height} designs it spans {lo:g}–{hi:g}"
    return Headline(top, full + ".")


def headlines(settings: object, studies: list[str]) -> dict[str, Headline]:
    """Each study's headline from tbl_grading_by_design, as published."""
    from tasks import warehouse

    sql = "select * from tbl_grading_by_design where list_contains(?, study)"
    table = warehouse.query(settings, sql, [studies])
    said = {study: headline(rows) for (study,), rows in table.group_by("study")}
    return {s: said[s] for s in studies if s in said and said[s].full}


def console(settings: object, studies: list[str], table: pl.DataFrame) -> list:
    """What `judgelab run` prints of the main table."""
    return [
        table.select(
            "study",
            "judge",
            pl.col("prompt_level").alias("prompt"),
            pl.col("n_items").alias("n"),
            pl.col("parse_fail_pct").alias("fail%"),
            pl.col("grade_right").alias("right"),
            pl.col("grade_wrong").alias("wrong"),
            "separation",
            "mae",
            "kripp_alpha",
        )
    ]
