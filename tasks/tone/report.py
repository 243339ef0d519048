"""Tone studies in the report: does the evaluator reward the wording when the facts are the same?
What each part of the report shows for this type; the shared code (tasks/report/build.py,
summary.py, page.py, drill.py) finds it through the type's record (tasks/study_types.py)."""

from __future__ import annotations

import polars as pl

from judgelab.settings import Settings
from tasks.report.drill import DrillSpec
from tasks.report.panel import Headline, Panel
from tasks.tone import figures
from tasks.tone.headline import headline as study_headline

TITLE = "Tone studies"
INTRO = (
    "The same facts in two styles (confidence, fluency, verbosity, formatting): does the "
    "evaluator reward the wording or the layout?"
)
# the header's reading note when a study of this type is in the report
SCALE_NOTE = (
    "Tone gaps are on the evaluator's overall 1–10 score; version A is an axis's first pole "
    "(confident, native, padded, bullets), B its second."
)
# the view with the run's main numbers (the summary artifact) and the columns read first
MAIN_NUMBERS = (
    "tbl_tone_gaps",
    ["study", "judge", "prompt_level", "n_texts", "gap", "win_ratio", "noise"],
)
# the figures and tables of this type's section, in order
PANELS: list[Panel] = [
    Panel(
        "tbl_tone_per_text",
        "Per-text tone gap",
        "Each point is one text's mean score for version A minus version B on one axis (A: "
        "confident, native, padded or bullets; B: hesitant, non-native, as written or prose), "
        "so points above 0 are texts the evaluator scored higher for the style of A alone.",
        figures.tone_per_text,
        "no text has both versions scored",
    ),
    Panel(
        "tbl_tone_gaps",
        "Win ratios and verdict flips per judge and prompt level",
        "Left: texts where version A beats B per text where B beats A (1 = no preference); "
        "right: the share of texts whose accept/reject verdict at the task's threshold "
        "depends on the tone alone, either way.",
        figures.tone_gaps,
        "no text was scored on both versions",
    ),
    Panel(
        "tbl_tone_flips",
        "Verdict flips across pass marks",
        "For every pass mark from 1 to 10, the share of texts that pass only as version A "
        "minus those that pass only as version B; above 0 the style of version A buys passes.",
        figures.tone_flips,
        "no pass mark has a net flip",
    ),
    Panel(
        "tbl_rewrite_pass_rates",
        "Rewrite pass rates",
        "Only rewrites that keep the facts, the length and the meaning while moving the "
        "tone are scored: the left bars show how many passed, the right why the rest failed.",
        figures.rewrite_pass_rates,
        "no rewrite was checked",
    ),
    Panel(
        "tbl_tone_gaps",
        "Noise versus effect",
        "Each point is one judge × prompt level: its mean gap with 95% CI against the "
        "run-to-run noise of one text's gap; only points outside the grey wedge and with a "
        "CI clear of 0 (filled) are a tone effect distinguishable from noise.",
        figures.tone_noise,
        "no gap has a noise estimate",
    ),
    Panel(
        "tbl_tone_by_variant",
        "Tone gap by prompt level",
        "The gap A − B with its 95% CI under the plain, style-attention (a positive "
        "control: a gap should show) and fact-first (a defence) prompts side by side, and "
        "whether the control shows a gap and the defence removes it.",
    ),
    Panel(
        "tbl_tone_criteria",
        "Which rubric criteria carry the tone gap",
        "Per rubric criterion, the mean score of version A and B over the texts scored on "
        "both, the gap with its 95% CI and the paired Wilcoxon test.",
    ),
]
# the calls behind each row of the main table, for the drill-down
DRILL_SQL = """
select p.study, p.task, p.judge, p.prompt_level, v.rewriter,
       v.axis, v.text_id, p.item_id, p."repeat", v.pole, coalesce(j.status, 'missing') as status,
       j.score as overall, coalesce(j.raw, j.error) as raw
from stg_plan p
join stg_tone_versions v on v.study = p.study and v.version_id = p.item_id
left join stg_judgments j using (key)
where list_contains(?, p.study) and v.rewriter <> 'none'
"""
DRILL = DrillSpec(
    "tbl_tone_gaps",
    ("study", "judge", "prompt_level", "rewriter", "axis"),
    ("repeat", "pole", "overall", "status", "raw"),
    pl.lit(0),  # no truth to disagree with: each text's versions together
    "text_id",
)

# the gap columns `judgelab run` prints after the pass rates
GAP_COLUMNS = [
    "study",
    "judge",
    "prompt_level",
    "rewriter",
    "axis",
    "contrast",
    "n_texts",
    "gap",
    "gap_lo",
    "gap_hi",
    "wilcoxon_p",
    "noise",
    "distinguishable",
    "win_ratio",
    "flip_a_pass_pct",
    "flip_b_pass_pct",
]


def console(settings: Settings, studies: list[str], table: pl.DataFrame) -> list:
    """What `judgelab run` prints: the rewrites' pass rates, then the gaps."""
    from tasks import warehouse

    sql = "select * from tbl_tone_gaps where list_contains(?, study)"
    gaps = warehouse.query(settings, sql, [studies])
    return [
        table.drop("study"),
        "Only rewrites that pass every check are scored; a low pass rate means few versions "
        "(the embedded 135M model rarely keeps facts and length while moving the tone).\n"
        "tbl_tone_gaps (gap = pole A − pole B, see contrast; overall 1–10):",
        gaps.select(GAP_COLUMNS),
    ]


def headlines(settings: object, studies: list[str]) -> dict[str, Headline]:
    """Each study's headline (tasks/tone/headline.py) from tbl_tone_gaps."""
    from tasks import warehouse

    sql = "select * from tbl_tone_gaps where list_contains(?, study)"
    gaps = warehouse.query(settings, sql, [studies])
    said = {s: study_headline(gaps.filter(pl.col("study") == s)) for s in studies}
    return {s: h for s, h in said.items() if h.full}
