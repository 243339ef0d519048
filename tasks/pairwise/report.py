"""Pairwise studies in the report: does the order of two answers decide which one wins?
What each part of the report shows for this type; the shared code (tasks/report/build.py,
summary.py, page.py, drill.py) finds it through the type's record (tasks/study_types.py)."""

from __future__ import annotations

import polars as pl

from tasks.pairwise import figures
from tasks.pairwise.headline import headlines as study_headline
from tasks.report import figures as report_figures
from tasks.report.drill import DrillSpec
from tasks.report.panel import Headline, Panel

TITLE = "Pairwise studies"
INTRO = (
    "Two answers to one context, each pair judged in both orders: position consistency, "
    "position bias, win rates and agreement with the human preference."
)
# the header's reading note when a study of this type is in the report
SCALE_NOTE = (
    "Pairwise judges answer A, B or tie, A being the answer shown first; position bias is the "
    "share of decisive answers won by the first position minus 50, in percentage points."
)
# the view with the run's main numbers (the summary artifact) and the columns read first
MAIN_NUMBERS = (
    "tbl_pairwise_position",
    [
        "study",
        "judge",
        "prompt_level",
        "reasoning_effort",
        "n_pairs",
        "consistency_pct",
        "bias_pp",
        "bias_lo_pp",
        "bias_hi_pp",
        "p_holm",
        "tie_pct",
    ],
)
# the figures and tables of this type's section, in order
PANELS: list[Panel] = [
    Panel(
        "tbl_pairwise_position",
        "Position bias and position consistency per design",
        "Left: how far the answer shown first wins more than half of the decisive verdicts, "
        "with a 95% interval over pairs, a filled point flagged by the sign test over pairs "
        "(Holm-adjusted over the study's designs); right: the share of pairs whose winner "
        "survives swapping the two answers (MT-Bench's swap).",
        figures.position_bias,
        "no design has a decisive verdict",
    ),
    Panel(
        "tbl_pairwise_agreement",
        "Win rates and agreement with the human choice",
        "Per design, how often answer a wins (both orders pooled, so position cancels), how "
        "often the human-preferred answer wins, and how often the order-combined verdict (a "
        "win only when it wins in both orders, else a tie) is the human's label, as MT-Bench "
        "counts agreement: with ties (a tie agrees with a human tie) and without (pairs where "
        "neither says tie).",
    ),
    Panel(
        "tbl_pairwise_order_accuracy",
        "Accuracy in each order and positional agreement (LLMBar's counts)",
        "Per design, as the LLMBar paper counts them: how often the human-preferred answer wins "
        "with answer a shown first (correct_False) and with b first (correct_True), in both, "
        "and how often both orders give the same outcome (equal); a tie or a failed call is "
        "never correct, two orders without a winner count as equal. Pairs the human called a "
        "tie have no preferred answer and are left out.",
    ),
    Panel(
        "tbl_verdict_tests",
        "Does a design choice change whether the judge picks the human's choice?",
        "Each call right or wrong against the human preference (a tie is wrong; a failed call "
        "and a pair the human called a tie are left out): Cochran's Q over all designs on the "
        "calls every design made, and a chi-square screen per choice, Holm / BH adjusted; "
        "McNemar and TOST for each pair of designs differing in one choice are in "
        "tbl_verdict_impact_pairs.",
    ),
    Panel(
        "tbl_variance_components",
        "Where the right-or-wrong variance comes from",
        "Each bar is one source's share of the variance of right-or-wrong (eta², sequential "
        "sums of squares, df in brackets): judge, prompt level, the order of the two answers, "
        "the pair, and their two-way terms.",
        report_figures.variance_components,
        "no component has a share",
    ),
    Panel(
        "tbl_d_study",
        "How many judges, prompts and orders to average over (D-study)",
        "The G-study of right-or-wrong (tbl_variance_components, method random_ems: pair × "
        "judge × prompt level × order on the largest balanced subset) projected to a mean over "
        "n judges, n prompt levels and n orders: Eρ² (solid) says how reliably that mean ranks "
        "the pairs by difficulty and Φ (dashed) how reliably it pins their absolute rate, that is, "
        "what the paper's advice to average over two to three models and designs buys.",
        report_figures.d_study,
        "no G coefficient: the items do not vary",
    ),
]
# the calls behind each row of the main table, for the drill-down; a plan's item id is
# `<pair>#ab` (answer a shown first) or `<pair>#ba`, so a pair's two orders sit together
DRILL_SQL = """
select v.study, p.task, v.judge, v.prompt_level, v.reasoning_effort, p.item_id, v."repeat",
       v.shown_first, v.preferred, v.position, v.winner, v.status,
       coalesce(j.raw, j.error) as raw
from stg_pairwise_verdicts v
join stg_plan p
  on p.study = v.study and p.judge = v.judge and p.prompt_level = v.prompt_level
 and p.reasoning_effort is not distinct from v.reasoning_effort
 and p.item_id = v.pair_id || '#' || (case v.shown_first when 'a' then 'ab' else 'ba' end)
 and p."repeat" = v."repeat"
left join stg_judgments j on j.key = p.key
where list_contains(?, v.study)
"""
DRILL = DrillSpec(
    "tbl_pairwise_position",
    ("study", "judge", "prompt_level", "reasoning_effort"),
    ("repeat", "shown_first", "preferred", "position", "winner", "status", "raw"),
    (pl.col("winner") != pl.col("preferred")).cast(pl.Int8),
)
# the text of a drill-down row: the user message the judge saw (context, answer A, answer B)
TEXTS_SQL = """
select distinct item_id, json_extract_string(messages, '$[#-1].content') as text
from stg_plan where list_contains(?, item_id)
"""

AGREEMENT_COLUMNS = [
    "study",
    "judge",
    "prompt_level",
    "reasoning_effort",
    "n_decisive",
    "a_win_pct",
    "preferred_win_pct",
    "n_labelled_units",
    "human_acc_pct",
    "human_acc_decisive_pct",
]


def console(settings: object, studies: list[str], table: pl.DataFrame) -> list:
    """What `judgelab run` prints: position consistency and bias, then win rates and agreement."""
    from tasks import warehouse

    sql = "select * from tbl_pairwise_agreement where list_contains(?, study)"
    agreement = warehouse.query(settings, sql, [studies])
    return [
        table.drop("model", "n_pairs_first", "n_pairs_second"),
        "bias_pp: first-position wins beyond 50% of decisive verdicts (95% CI over pairs); "
        "flagged: sign test over pairs, Holm-adjusted.\ntbl_pairwise_agreement:",
        agreement.select(AGREEMENT_COLUMNS),
    ]


def headlines(settings: object, studies: list[str]) -> dict[str, Headline]:
    """Each study's headline (tasks/pairwise/headline.py) from its verdicts, as stored."""
    from tasks import warehouse
    from tasks.report.calibration_note import with_calibration

    sql = "select * from {} where list_contains(?, study)"
    verdicts = warehouse.query(settings, sql.format("stg_pairwise_verdicts"), [studies])
    said = {study: study_headline(rows) for (study,), rows in verdicts.group_by("study")}
    calibration = warehouse.query(settings, sql.format("tbl_calibration"), [studies])
    said = with_calibration(said, calibration, studies)
    return {s: said[s] for s in studies if s in said and said[s].full}
