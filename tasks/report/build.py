"""Write the HTML report for some studies: the report's only I/O (warehouse views in, one file
out). What each figure shows lives in `PANELS`; drawing is in figures.py, the page in page.py."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from judgelab.settings import Settings
from tasks import warehouse
from tasks.report import figures
from tasks.report.page import Block, Section, render_page
from tasks.tone.plan import REWRITE_SCALE

TYPES = ("rating", "accuracy", "tone")


@dataclass(frozen=True)
class Panel:
    """One block of the report: a view, how to read it, and how to draw it (None: a table)."""

    view: str
    title: str
    guide: str
    draw: Callable[[pl.DataFrame], Figure | None] | None = None
    why_blank: str = ""  # shown when the view has rows but nothing to draw


PANELS: dict[str, list[Panel]] = {
    "rating": [
        Panel(
            "tbl_rating_performance",
            "Bias and MAE by scale, with 95% CIs (Figure 3)",
            "Each point is one design's bias (left; 0 = no systematic over- or under-rating) or "
            "MAE (right; the dashed line is one human rater against the others) on the common "
            "1–7 scale, with its bootstrap 95% CI; a bias CI that misses 0 is a systematic shift.",
            figures.rating_performance,
            "no design has both a bias and an MAE",
        ),
        Panel(
            "tbl_judge_ranking",
            "Judges ranked by agreement with humans in each prompt × scale cell (Figure 4)",
            "Read down a column: #1 is the judge with the highest Krippendorff's α against the "
            "human ratings in that prompt level × scale cell, and the colour is α itself.",
            figures.judge_ranking,
            "no design has an α",
        ),
        Panel(
            "tbl_ensembles",
            "Ensemble bias reduction by strategy (Figure 5)",
            "Bars show how much averaging three LLM judge designs cuts |bias| and MAE against "
            "the mean of its members' own |bias| and MAE (a strategy needs three judges, scales "
            "or prompt levels to vary, and says so when the study has fewer); baselines such as "
            "VADER are members only in the hatched '+ baselines' bars that "
            "ensemble_baselines = true adds.",
            figures.ensembles,
            "no strategy has an evaluated ensemble of three (too few judges, scales or prompt "
            "levels to vary)",
        ),
        Panel(
            "tbl_ensemble_size",
            "Ensemble |bias| and MAE by ensemble size (Figure 6)",
            "Each line follows one strategy as ensembles of different LLM judges grow from 1 "
            "(the single designs' mean |bias| and MAE) to 5 members, so the step from 1 to 2 is "
            "what a second judge buys; sizes the judges cannot fill have no point, and a dashed "
            "'+ baselines' line (only with ensemble_baselines = true) lets baselines join.",
            figures.ensemble_size,
            "no ensemble size could be filled (n_possible 0)",
        ),
        Panel(
            "tbl_design_impact_single",
            "Changing one design choice (Table 11)",
            "Per choice, the pairs of designs differing only in it: the share whose ratings "
            "differ significantly (sig_pct) or by more than 0.2 (meaningful_pct), and the mean "
            "and largest absolute difference on 1–7.",
        ),
        Panel(
            "tbl_design_impact_all_pairs",
            "Changing several design choices at once (Table 12)",
            "The same over all pairs of designs, by how many of judge, prompt level and scale "
            "differ (n_differ): the shares and differences usually grow with n_differ.",
        ),
    ],
    "accuracy": [
        Panel(
            "tbl_accuracy_by_design",
            "Accuracy and leniency per design and subset (Tables 13–14)",
            "Left: each design's accuracy on all items and on the items its fellow designs "
            "agree on fully, nearly or not (ambiguous); right: leniency, the share of its "
            "errors that accept a wrong answer (100% = every error is a false TRUE).",
            figures.accuracy_by_design,
            "no design scored an item against a truth",
        ),
        Panel(
            "tbl_switch_rates",
            "Verdicts switched by in-context prompts (Table 16)",
            "Against the same judge and effort on the base prompt, green bars are verdicts the "
            "richer prompt turns wrong → right and red bars right → wrong (all items; per subset "
            "in the table); the tick is the net accuracy change.",
            figures.switch_rates,
            "no judge has both a base and an in-context design on shared items",
        ),
    ],
    "tone": [
        Panel(
            "tbl_tone_per_text",
            "Per-text tone gap",
            "Each point is one text's mean score for version A (confident / native) minus "
            "version B (hesitant / non-native); points above 0 are texts the evaluator scored "
            "higher when they only sounded more confident.",
            figures.tone_per_text,
            "no text has both versions scored",
        ),
        Panel(
            "tbl_tone_gaps",
            "Win ratios and verdict flips per evaluator and prompt variant",
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
            "minus those that pass only as version B; above 0 the confident wording buys passes.",
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
            "Each point is one evaluator × prompt variant: its mean gap with 95% CI against the "
            "run-to-run noise of one text's gap; only points outside the grey wedge and with a "
            "CI clear of 0 (filled) are a tone effect distinguishable from noise.",
            figures.tone_noise,
            "no gap has a noise estimate",
        ),
    ],
}
TITLES = {
    "rating": (
        "Rating studies",
        "Designs (judge × prompt level × scale) against human ratings, and what averaging "
        "designs buys.",
    ),
    "accuracy": (
        "Accuracy studies",
        "TRUE/FALSE verdicts on question–answer pairs against the reference label or the "
        "designs' consensus.",
    ),
    "tone": (
        "Tone studies",
        "The same facts worded with high and low confidence: does the evaluator reward the "
        "wording?",
    ),
}

STUDY_TYPES = """
select s.study,
       case when s.study in (select study from stg_tone_versions) then 'tone'
            when s.study in (select study from stg_verdicts) then 'accuracy'
            when s.study in (select study from stg_plan)
              or s.study in (select study from stg_rating_metrics) then 'rating'
       end as type
from (select unnest(?::varchar[]) as study) s
"""
WHAT_RAN = """
with wanted as (select unnest(?::varchar[]) as study),
rewrite as (select ?::varchar as scale),  -- rewriter calls are not judge designs
plan as (
    select p.study,
           string_agg(distinct p.judge, ', ' order by p.judge) filter (where not rw) as judges,
           string_agg(distinct p.judge, ', ' order by p.judge) filter (where rw) as rewriter,
           count(distinct (p.judge, p.prompt_level, p.scale, p.reasoning_effort))
               filter (where not rw) as judge_designs
    from (select *, scale = (select scale from rewrite) as rw from stg_plan) p
    where p.study in (select study from wanted)
    group by p.study
),
baselines as (
    select study, string_agg(judge, ', ' order by judge) as baselines, count(*) as n_baselines
    from stg_baselines where study in (select study from wanted) group by study
),
calls as (
    select study,
           count(*) as calls_planned,
           count(*) filter (where status <> 'missing') as calls_stored,
           count(*) filter (where status in ('unparseable', 'out_of_range')) as parse_fail,
           count(*) filter (where status = 'error') as error,
           count(*) filter (where status = 'missing') as missing
    from fct_calls where study in (select study from wanted) group by study
),
cost as (
    select study,
           sum(prompt_tokens) + sum(completion_tokens) as tokens,
           round(sum(cost_usd), 4) as cost_usd,
           count(*) filter (where cost_usd is null) as unpriced_judges
    from tbl_design_cost
    where prompt_level = '(all)' and study in (select study from wanted) group by study
)
select w.study, p.judges, b.baselines, p.rewriter,
       coalesce(p.judge_designs, 0) + coalesce(b.n_baselines, 0) as designs,
       c.calls_planned, c.calls_stored, c.parse_fail, c.error, c.missing,
       k.tokens, k.cost_usd, k.unpriced_judges
from wanted w
left join plan p using (study)
left join baselines b using (study)
left join calls c using (study)
left join cost k using (study)
"""
CALL_OUTCOMES = """
pivot (select study, judge, status from fct_calls where list_contains(?, study))
on status in ('ok', 'unparseable', 'out_of_range', 'error', 'missing')
using count(*) group by study, judge order by study, judge
"""


def _rows_of(settings: Settings, view: str, studies: list[str]) -> pl.DataFrame:
    """A report view's rows for these studies, in the view's order (names come from PANELS)."""
    return warehouse.query(
        settings, f"select * from {view} where list_contains(?, study)", [studies]
    )


def study_types(settings: Settings, studies: list[str]) -> dict[str, str]:
    """Each study's type, read from the tables its stages wrote; an unknown study is an error
    (a typo would otherwise give an empty report that looks like a real one)."""
    found = dict(warehouse.query(settings, STUDY_TYPES, [studies]).rows())
    unknown = [s for s in studies if found.get(s) is None]
    if unknown:
        known = warehouse.query(settings, "select distinct study from stg_plan order by 1")
        raise ValueError(
            f"no study {', '.join(map(repr, unknown))} in {settings.duckdb_path}; "
            f"known: {', '.join(known['study']) or 'none'}"
        )
    return found


def make_block(panel: Panel, table: pl.DataFrame, prefix: str) -> Block:
    """Draw a panel's figure from its rows (pure: no I/O)."""
    if panel.draw is None:
        return Block(panel.view, panel.title, panel.guide, table, figure=False)
    fig = panel.draw(table) if table.height else None
    svg = figures.to_svg(fig, prefix) if fig is not None else None
    return Block(panel.view, panel.title, panel.guide, table, svg=svg, note=panel.why_blank)


def summary_section(settings: Settings, studies: list[str], types: dict[str, str]) -> Section:
    ran = warehouse.query(settings, WHAT_RAN, [studies, REWRITE_SCALE])
    ran = ran.insert_column(1, pl.Series("type", [types[s] for s in ran["study"]])).sort(
        pl.col("study").replace_strict({s: i for i, s in enumerate(studies)})
    )
    outcomes = warehouse.query(settings, CALL_OUTCOMES, [studies])
    cost = _rows_of(settings, "tbl_design_cost", studies)
    blocks = [
        Block(
            "fct_calls",
            "What ran",
            "One row per study: its judges and designs, how many judge calls were planned and "
            "stored, how many answers could not be parsed (parse_fail) or failed (error), and "
            "the tokens and cost (null when the price of a model is unknown).",
            ran,
            figure=False,
        ),
        make_block(
            Panel(
                "fct_calls",
                "Judge calls by outcome",
                "Each bar is one judge's planned calls in one study, split by what the store "
                "holds: ok, unparseable or out of range (re-asked and still failed), error "
                "(retried next run) or missing (not made yet).",
                figures.call_outcomes,
            ),
            outcomes,
            "summary-1",
        ),
        Block(
            "tbl_design_cost",
            "Requests, tokens and cost per design",
            "Per design cell, calls stored and requests sent (retries and re-asks included), "
            "with an (all) row per judge; cost is null for models without a known price.",
            cost,
            figure=False,
        ),
    ]
    return Section(
        "summary",
        "Summary",
        f"{len(studies)} stud{'y' if len(studies) == 1 else 'ies'}: "
        + ", ".join(f"{s} ({types[s]})" for s in studies)
        + ".",
        blocks,
    )


def write_report(settings: Settings, studies: list[str], out: Path) -> Path:
    """Write one self-contained HTML report for these studies to `out` and return its path.

    Sections appear only for the study types present; a view without rows for these studies
    says so in one line instead of drawing an empty figure."""
    studies = list(dict.fromkeys(studies))
    if not studies:
        raise ValueError("name at least one study")
    types = study_types(settings, studies)
    sections = [summary_section(settings, studies, types)]
    for kind in TYPES:
        of_kind = [s for s in studies if types[s] == kind]
        if not of_kind:
            continue
        blocks = [
            make_block(panel, _rows_of(settings, panel.view, of_kind), f"{kind}-{i}")
            for i, panel in enumerate(PANELS[kind], 1)
        ]
        title, intro = TITLES[kind]
        sections.append(Section(kind, title, f"{intro} Studies: {', '.join(of_kind)}.", blocks))
    html = render_page(studies, str(settings.duckdb_path), sections)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".tmp-{uuid.uuid4().hex}"
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, out)
    return out
