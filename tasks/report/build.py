"""Write the HTML report for some studies: the report's only I/O (warehouse views in, one file
out). What each figure shows lives in `PANELS`; drawing is in figures.py, the page in page.py."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from judgelab.names import confined_file
from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging.prompts import PROMPTS_DIR, task_config
from tasks.report import drill, figures
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
        Panel(
            "tbl_variance_components",
            "Where the judge-score variance comes from",
            "Each bar is one source's share of the variance of the judges' 1–7 scores (eta², "
            "sequential sums of squares, df in brackets): a large item share means the judges "
            "follow the texts, a large judge, prompt or scale share means the design moves the "
            "score.",
            figures.variance_components,
            "no component has a share",
        ),
        Panel(
            "tbl_threshold_shares",
            "Share of designs that differ from humans (Table 7)",
            "Per prompt level, model and overall, the percent of designs whose ratings differ "
            "significantly from the humans' (raw, Holm, BH) or whose |bias| or MAE pass the "
            "paper's cuts, out of n_designs.",
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
        Panel(
            "tbl_verdict_impact",
            "How far apart the levels of one design choice are (Table 17)",
            "Per design choice, the mean and largest difference in accuracy and leniency "
            "between designs that differ only in it, the share of such pairs that differ "
            "significantly, and whether the choice is equivalent within the margin.",
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
        Panel(
            "tbl_tone_by_variant",
            "Tone gap by prompt variant",
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
# the calls behind each row of the main tables, for the drill-down (tasks/report/drill.py)
DRILL_CALLS = {
    "rating": """
select s.study, s.task, s.judge, s.prompt_level, s.scale, s.item_id, s."repeat", s.status,
       s.score, round(s.score_1to7, 3) as judge_1to7, round(s.human_1to7, 3) as human_1to7,
       coalesce(j.raw, j.error) as raw
from stg_scores s left join stg_judgments j using (key)
where list_contains(?, s.study)
""",
    "accuracy": """
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
""",
    "tone": """
select p.study, p.task, p.judge as evaluator, p.prompt_level as prompt_variant, v.rewriter,
       v.axis, v.text_id, p.item_id, p."repeat", v.pole, coalesce(j.status, 'missing') as status,
       j.score as overall, coalesce(j.raw, j.error) as raw
from stg_plan p
join stg_tone_versions v on v.study = p.study and v.version_id = p.item_id
left join stg_judgments j using (key)
where list_contains(?, p.study) and v.rewriter <> 'none'
""",
}
CHANGES = """
select study, change, row_key, metric, old_value, new_value, source, finished_at,
       previous_run_id
from tbl_changes where list_contains(?, study)
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


def sensitive(task: str, root: Path = PROMPTS_DIR) -> bool:
    """A task whose texts the report hides until asked: `sensitive = true` in its task.toml
    (toxicity: abusive turns). A task without a task.toml is not marked."""
    try:
        return bool(task_config(task, root).get("sensitive", False))
    except FileNotFoundError:
        return False


def make_block(
    panel: Panel, table: pl.DataFrame, prefix: str, drill_ids: dict[tuple, str] | None = None
) -> Block:
    """Draw a panel's figure from its rows (pure: no I/O); rows with a drill-down (`drill_ids`:
    the view's row key → design id) carry its id."""
    rows = row_ids(panel.view, table, drill_ids or {})
    if panel.draw is None:
        return Block(panel.view, panel.title, panel.guide, table, figure=False, drill=rows)
    fig = panel.draw(table) if table.height else None
    svg = figures.to_svg(fig, prefix) if fig is not None else None
    return Block(
        panel.view, panel.title, panel.guide, table, svg=svg, note=panel.why_blank, drill=rows
    )


def row_ids(view: str, table: pl.DataFrame, drill_ids: dict[tuple, str]) -> tuple | None:
    """Each row's design id (None: nothing behind it), when the view has a drill-down."""
    kinds = [k for k in drill.KINDS.values() if k.view == view]
    if not kinds or not drill_ids or not set(kinds[0].key) <= set(table.columns):
        return None
    return tuple(drill_ids.get(r) for r in table.select(kinds[0].key).iter_rows())


def changes_block(settings: Settings, studies: list[str]) -> Block:
    """What changed since each study's previous run; a first run lists only its judges (every
    number is new then, so listing them says nothing)."""
    changes = warehouse.query(settings, CHANGES, [studies])
    first = changes.filter(pl.col("previous_run_id").is_null())["study"].unique().sort()
    shown = changes.filter(
        pl.col("previous_run_id").is_not_null() | (pl.col("change") == "new judge")
    ).drop("previous_run_id")
    note = f" ({', '.join(first)}: first run, nothing to compare yet)" if first.len() else ""
    return Block(
        "tbl_changes",
        "Since the last run",
        "Judges that made their first calls in the latest run, then every main number that is "
        f"new, changed or gone compared with the run before{note}.",
        shown,
        figure=False,
    )


def summary_section(settings: Settings, studies: list[str], types: dict[str, str]) -> Section:
    ran = warehouse.query(settings, WHAT_RAN, [studies, REWRITE_SCALE])
    ran = ran.insert_column(1, pl.Series("type", [types[s] for s in ran["study"]])).sort(
        pl.col("study").replace_strict({s: i for i, s in enumerate(studies)})
    )
    outcomes = warehouse.query(settings, CALL_OUTCOMES, [studies])
    blocks = [
        changes_block(settings, studies),
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
                "Each bar is one judge's planned calls in one study (n at its end), split by "
                "what the store holds: ok, unparseable or out of range (re-asked and still "
                "failed), error (retried next run) or missing (not made yet).",
                figures.call_outcomes,
            ),
            outcomes,
            "summary-1",
        ),
    ]
    return Section(
        "summary",
        "Summary",
        f"{len(studies)} stud{'y' if len(studies) == 1 else 'ies'}: "
        + ", ".join(f"{s} ({types[s]})" for s in studies)
        + ". Results first; requests, tokens and cost at the end.",
        blocks,
    )


DRIFT_PANEL = Panel(
    "tbl_drift",
    "Canary drift over time",
    "Each panel is one watched judge: a line per design (n canary items, R repeats) follows "
    "the shift of its canary answers from the reference batch, bucket by bucket, with its CI "
    "over the shaded band the judge's own repeat noise stays inside (±noise for a mean shift "
    "on 1–7, 0 to noise for a verdict flip rate), and a ringed point is flagged: its CI lies "
    "wholly outside that band.",
    figures.drift,
    "only the reference batch so far (a shift needs a second bucket)",
)


def drift_section(settings: Settings, studies: list[str]) -> Section | None:
    """The canary's drift per study and its alerts; None when no study here has a canary
    batch (the section would only say so)."""
    rows = _rows_of(settings, "tbl_drift", studies)
    if rows.is_empty():
        return None
    alerts = _rows_of(settings, "tbl_drift_alerts", studies)
    watched = [s for s in studies if s in set(rows["study"])]
    blocks = [
        make_block(
            replace(DRIFT_PANEL, title=f"{DRIFT_PANEL.title}: {study}"),
            rows.filter(pl.col("study") == study),
            f"drift-{i}",
        )
        for i, study in enumerate(watched, 1)
    ]
    blocks.append(
        Block(
            "tbl_drift_alerts",
            "Drift alerts",
            "The flagged batches only: a judge whose canary answers moved beyond its own "
            "run-to-run noise since the reference bucket (a model changed behind its name, or "
            "a setting did).",
            alerts,
            figure=False,
        )
    )
    n = alerts.height
    said = (
        f"{n} drift alert{'s' if n != 1 else ''}, listed below: a batch is flagged when its "
        "shift CI lies wholly outside its judge's noise band."
        if n
        else "No drift alerts: every canary batch's shift CI overlaps its judge's noise band."
    )
    return Section(
        "drift",
        "Drift",
        f"The canary items judged again once per date bucket. Studies: {', '.join(watched)}. "
        + said,
        blocks,
    )


def cost_section(settings: Settings, studies: list[str]) -> Section:
    block = Block(
        "tbl_design_cost",
        "Requests, tokens and cost per design",
        "Per design cell, calls stored and requests sent (retries and re-asks included), "
        "with an (all) row per judge; cost is null for models without a known price.",
        _rows_of(settings, "tbl_design_cost", studies),
        figure=False,
    )
    return Section("costs", "Costs", "What the judge calls cost.", [block])


def drill_data(
    settings: Settings, studies: list[str], types: dict[str, str]
) -> tuple[dict[str, dict[tuple, str]], dict]:
    """The calls behind the main tables' rows, the texts of the items shown, and which
    studies' texts stay hidden until asked (tasks/report/drill.py shapes them)."""
    calls = {}
    for kind, sql in DRILL_CALLS.items():
        of_kind = [s for s in studies if types[s] == kind]
        if of_kind:
            calls[kind] = warehouse.query(settings, sql, [of_kind])
    tasks = {
        (study, task)
        for frame in calls.values()
        for study, task in frame.select("study", "task").unique().iter_rows()
    }
    hidden = {study for study, task in tasks if task and sensitive(task)}
    items = sorted({i for frame in calls.values() for i in frame["item_id"].drop_nulls()})
    return drill.payload(calls, item_texts(settings, items), hidden)


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
    return texts


def report_path(settings: Settings, run_file: str | Path) -> Path:
    """data/reports/STEM.html for a study or suite file; it never lands outside that folder."""
    return confined_file(settings.data_dir / "reports", f"{Path(run_file).stem}.html")


def write_report(settings: Settings, studies: list[str], out: Path) -> Path:
    """Write one self-contained HTML report for these studies to `out` and return its path.

    Sections appear only for the study types present; a view without rows for these studies
    says so in one line instead of drawing an empty figure."""
    studies = list(dict.fromkeys(studies))
    if not studies:
        raise ValueError("name at least one study")
    types = study_types(settings, studies)
    ids, data = drill_data(settings, studies, types)
    sections = [summary_section(settings, studies, types)]
    for kind in TYPES:
        of_kind = [s for s in studies if types[s] == kind]
        if not of_kind:
            continue
        blocks = [
            make_block(
                panel, _rows_of(settings, panel.view, of_kind), f"{kind}-{i}", ids.get(panel.view)
            )
            for i, panel in enumerate(PANELS[kind], 1)
        ]
        title, intro = TITLES[kind]
        sections.append(Section(kind, title, f"{intro} Studies: {', '.join(of_kind)}.", blocks))
    drift = drift_section(settings, studies)
    sections += [drift] if drift else []
    sections.append(cost_section(settings, studies))
    html = render_page(studies, str(settings.duckdb_path), sections, set(types.values()), data)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".tmp-{uuid.uuid4().hex}"
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, out)
    return out
