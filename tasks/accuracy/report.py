"""Accuracy studies in the report: verdicts against the reference label or the designs' consensus.
What each part of the report shows for this type; the shared code (tasks/report/build.py,
summary.py, page.py, drill.py) finds it through the type's record (tasks/study_types.py)."""

from __future__ import annotations

import polars as pl

from tasks.accuracy import figures
from tasks.accuracy.headline import headline as study_headline
from tasks.report import figures as report_figures
from tasks.report.drill import DrillSpec
from tasks.report.panel import Headline, Panel

TITLE = "Accuracy studies"
INTRO = (
    "TRUE/FALSE verdicts on question–answer pairs against the reference label or the "
    "designs' consensus."
)
# the header's reading note when a study of this type is in the report
SCALE_NOTE = (
    "Accuracy and leniency are percentages of the items a design resolved; an "
    "accuracy design is judge × prompt level (× reasoning effort)."
)
# the view with the run's main numbers (the summary artifact) and the columns read first
MAIN_NUMBERS = (
    "tbl_accuracy_by_design",
    [
        "study",
        "judge",
        "prompt_level",
        "reasoning_effort",
        "n_scored",
        "acc_pct",
        "leniency_pct",
    ],
)
# the figures and tables of this type's section, in order
PANELS: list[Panel] = [
    Panel(
        "tbl_accuracy_by_design",
        "Accuracy and leniency per design and subset (the designs behind Tables 13–16)",
        "Left: each design's accuracy on all items and on the items its fellow designs "
        "agree on fully, nearly or not (ambiguous); right: leniency, the share of its "
        "errors that accept a wrong answer (100% = every error is a false TRUE).",
        figures.accuracy_by_design,
        "no design scored an item against a truth",
    ),
    Panel(
        "tbl_switch_rates",
        "Verdicts switched by in-context prompts, per judge (switch rates of Tables 14–16)",
        "Against the same judge and effort on the base prompt, green bars are verdicts the "
        "richer prompt turns wrong → right and red bars right → wrong (all items; per subset "
        "in the table); the tick is the net accuracy change.",
        figures.switch_rates,
        "no judge has both a base and an in-context design on shared items",
    ),
    Panel(
        "tbl_corrected",
        "Judge-corrected estimates from a few human labels",
        "Per design, the share of answers truly correct with 95% CIs: the judge's TRUE-rate "
        "alone (off by its leniency), corrected by the labelled items (prediction-powered "
        "inference; Rogan–Gladen from its sensitivity and specificity on them) and those "
        "labels alone, with every item's own label dashed under label_share; a PPI interval "
        "narrower than the labels' one is labels saved.",
        report_figures.corrected,
        "no design has a corrected estimate (too few labelled items)",
    ),
    Panel(
        "tbl_verdict_impact",
        "How far apart the levels of one design choice are (Table 17)",
        "Per design choice, the mean and largest difference in accuracy and leniency "
        "between designs that differ only in it, the share of such pairs that differ "
        "significantly, and whether the choice is equivalent within the margin.",
    ),
]
# the calls behind each row of the main table, for the drill-down
DRILL_SQL = """
select v.study, p.task, v.judge, v.prompt_level, v.reasoning_effort, v.item_id, v."repeat",
       v.status, try_cast(v.verdict as boolean) as verdict, v.reference,
       coalesce(j.raw, j.error) as raw
from stg_verdicts v
left join stg_plan p
  on p.study = v.study and p.judge = v.judge and p.prompt_level = v.prompt_level
 and p.reasoning_effort is not distinct from v.reasoning_effort
 and p.item_id = v.item_id and p."repeat" = v."repeat"
left join stg_judgments j on j.key = p.key
where list_contains(?, v.study)
"""
DRILL = DrillSpec(
    "tbl_accuracy_by_design",
    ("study", "judge", "prompt_level", "reasoning_effort"),
    ("repeat", "reference", "verdict", "status", "raw"),
    (pl.col("verdict") != pl.col("reference")).cast(pl.Int8),
)


def console(settings: object, studies: list[str], table: pl.DataFrame) -> list:
    """What `judgelab run` prints of the main table."""
    return [table.drop("model", "truth_source")]


def headlines(settings: object, studies: list[str]) -> dict[str, Headline]:
    """Each study's headline (tasks/accuracy/headline.py) from its report views; a study whose
    items one voter resolved says so first (tasks/accuracy/consensus.py `one_voter_notes`)."""
    from tasks import warehouse
    from tasks.accuracy.consensus import one_voter_notes
    from tasks.report.calibration_note import with_calibration

    def rows(view: str, order: str = "") -> pl.DataFrame:
        sql = f"select * from {view} where list_contains(?, study){order}"
        return warehouse.query(settings, sql, [studies])

    designs, impact = rows("tbl_accuracy_by_design"), rows("tbl_verdict_impact")
    voters = one_voter_notes(rows("stg_consensus", " order by study, item_id"))
    said = {}
    for s in studies:
        mine = pl.col("study") == s
        h = study_headline(designs.filter(mine), impact.filter(mine))
        note = voters.get(s)
        said[s] = Headline(h.top or note or "", " ".join(x for x in (note, h.full) if x))
    said = with_calibration(said, rows("tbl_calibration"), studies)
    return {s: h for s, h in said.items() if h.full}
