"""Write the HTML report for some studies: the report's only I/O (warehouse views in, one file
out). What each study type's section shows lives in its report module (tasks/<type>/report.py,
found through tasks/study_types.py, drawing in tasks/<type>/figures.py); the shared drawing is in
plotting.py and figures.py, the page in page.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import polars as pl

from judgelab import tempfiles
from judgelab.names import confined_file
from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging.scales import REWRITE_SCALE
from tasks.report import figures, glossary, plotting, provenance
from tasks.report.drill_rows import drill_data
from tasks.report.figcache import FigureCache
from tasks.report.page import Answer, Block, Section, render_page
from tasks.report.panel import Draw, Headline, Panel
from tasks.study_types import StudyType

Render = Callable[[Draw, pl.DataFrame, str], str | None]  # (draw, rows, id prefix) → SVG

STUDY_TYPES = """
select study, arg_max(study_type, finished_at) as type
from stg_runs where list_contains(?, study) group by study
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
-- a judgment is a plan row (item × design × repeat); a call is a distinct request of a judge
-- (identical texts share one: the count `judgelab plan` and `judgelab run` print)
calls as (
    select study,
           count(*) as judgments,
           count(distinct (judge, key)) as calls_planned,
           count(distinct (judge, key)) filter (where status <> 'missing') as calls_stored,
           count(distinct (judge, key)) filter (where status in ('unparseable', 'out_of_range'))
               as parse_fail,
           count(distinct (judge, key)) filter (where status = 'error') as error,
           count(distinct (judge, key)) filter (where status = 'missing') as missing
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
       c.judgments, c.calls_planned, c.calls_stored, c.parse_fail, c.error, c.missing,
       k.tokens, k.cost_usd, k.unpriced_judges
from wanted w
left join plan p using (study)
left join baselines b using (study)
left join calls c using (study)
left join cost k using (study)
"""
# each study's LLM judges (not its baselines, not its rewriter), for the figures that need two
JUDGES = """
select study, list(distinct judge order by judge) as judges
from stg_plan where list_contains(?, study) and scale <> ? group by study
"""
CALL_OUTCOMES = """
pivot (select distinct study, judge, key, status from fct_calls where list_contains(?, study))
on status in ('ok', 'unparseable', 'out_of_range', 'error', 'missing')
using count(*) group by study, judge order by study, judge
"""
# the calls behind each row of the main tables, for the drill-down (tasks/report/drill.py)
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
    """Each study's type, as its latest run in the ledger (`runs`) recorded it; a study with no
    run is an error (a typo would otherwise give an empty report that looks like a real one)."""
    found = dict(warehouse.query(settings, STUDY_TYPES, [studies]).rows())
    unknown = [s for s in studies if found.get(s) is None]
    if unknown:
        known = warehouse.query(settings, "select distinct study from stg_runs order by 1")
        raise ValueError(
            f"no study {', '.join(map(repr, unknown))} in {settings.duckdb_path}; "
            f"known: {', '.join(known['study']) or 'none'}"
        )
    return found


def judges_of(settings: Settings, studies: list[str]) -> dict[str, list[str]]:
    """Each study's LLM judges as its plan lists them (a study without a plan: none)."""
    found = dict(warehouse.query(settings, JUDGES, [studies, REWRITE_SCALE]).rows())
    return {s: found.get(s) or [] for s in studies}


def too_few_judges(
    panel: Panel, table: pl.DataFrame, judges: dict[str, list[str]] | None
) -> tuple[pl.DataFrame, str | None]:
    """The rows of the studies with enough judges for the panel's figure, and a line naming
    the others ("one-rating has one judge (j1)"); every row when `judges` is not known."""
    if panel.min_judges < 2 or judges is None or "study" not in table.columns:
        return table, None
    few = [s for s in plotting.ordered(table, "study") if len(judges.get(s, [])) < panel.min_judges]
    if not few:
        return table, None
    said = "; ".join(
        f"{s} has {len(judges.get(s, [])) or 'no'} judge"
        + (f" ({', '.join(judges[s])})" if judges.get(s) else "s")
        for s in few
    )
    line = (
        f"Not drawn for {', '.join(few)}: this figure compares {panel.min_judges} or more "
        f"judges, and {said}; the rows are in the table below"
    )
    return table.filter(~pl.col("study").is_in(few)), line


def make_block(
    panel: Panel,
    table: pl.DataFrame,
    prefix: str,
    drill_ids: dict[tuple, str] | None = None,
    render: Render = plotting.render,
    judges: dict[str, list[str]] | None = None,
) -> Block:
    """Draw a panel's figure from its rows (`render`: draw and write SVG, or find it in a
    FigureCache); rows with a drill-down (`drill_ids`: the view's row key → design id) carry
    its id. A figure that needs more judges than a study has (`judges`: each study's) leaves
    that study out and says so in one line; its rows stay in the table."""
    rows = row_ids(panel.view, table, drill_ids or {})
    if panel.draw is None:
        return Block(panel.view, panel.title, panel.guide, table, figure=False, drill=rows)
    drawn, skipped = too_few_judges(panel, table, judges)
    svg = render(panel.draw, drawn, prefix) if drawn.height else None
    return Block(
        panel.view,
        panel.title,
        panel.guide,
        table,
        svg=svg,
        note=panel.why_blank if drawn.height else None,  # None: no study left to draw
        drill=rows,
        skipped=skipped,
    )


def row_ids(view: str, table: pl.DataFrame, drill_ids: dict[tuple, str]) -> tuple | None:
    """Each row's design id (None: nothing behind it), when the view has a drill-down."""
    specs = [
        k.load("report").DRILL for k in StudyType.every() if k.load("report").DRILL.view == view
    ]
    if not specs or not drill_ids or not set(specs[0].key) <= set(table.columns):
        return None
    return tuple(drill_ids.get(r) for r in table.select(specs[0].key).iter_rows())


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


def summary_section(
    settings: Settings,
    studies: list[str],
    types: dict[str, str],
    sources: dict[str, str],
    render: Render,
) -> Section:
    """What ran, each study labelled imported or live (`sources`: provenance.labels), and
    the calls by outcome."""
    ran = warehouse.query(settings, WHAT_RAN, [studies, REWRITE_SCALE])
    ran = ran.insert_column(1, pl.Series("type", [types[s] for s in ran["study"]]))
    ran = ran.insert_column(
        2, pl.Series("source", [sources.get(s) for s in ran["study"]], dtype=pl.String)
    ).sort(pl.col("study").replace_strict({s: i for i, s in enumerate(studies)}))
    outcomes = warehouse.query(settings, CALL_OUTCOMES, [studies])
    blocks = [
        changes_block(settings, studies),
        Block(
            "fct_calls",
            "What ran",
            "One row per study: where its judgments come from (imported from files or live "
            "calls, as the store records them), its judges and designs, its judgments (item × "
            "design × repeat) and the judge calls behind them (items with identical text share "
            "one call, so calls can be fewer: `judgelab plan` and `judgelab run` count calls), "
            "how many calls were planned and stored, how many answers could not be parsed "
            "(parse_fail) or failed (error), and the tokens and cost (null when the price of a "
            "model is unknown).",
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
            render=render,
        ),
    ]
    return Section(
        "summary",
        "Summary",
        f"{len(studies)} stud{'y' if len(studies) == 1 else 'ies'}: "
        + ", ".join(f"{s} ({types[s]})" for s in studies)
        + ". Results first; requests, tokens and cost at the end.",
        blocks,
        tuple(f"{s}: {sources[s]}." for s in studies if s in sources),
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


def drift_section(settings: Settings, studies: list[str], render: Render) -> Section | None:
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
            render=render,
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


CALIBRATION_GUIDE = (
    "Each panel is one design: its judge's probability of the event (TRUE for a verdict, A for "
    "a pairwise winner: the answer shown first is better), binned in tenths, against how often "
    "the event was true in that bin (the reference label, else the designs' consensus, for "
    "accuracy; the human preference for pairwise); a point's area is its calls, and a "
    "calibrated judge lies on the dashed diagonal; the table gives each design's Brier score, "
    "ECE with its 95% interval over items, and the ECE a calibrated judge would reach by "
    "chance (ece_null_hi)."
)


def calibration_section(settings: Settings, studies: list[str], render: Render) -> Section | None:
    """Reliability diagrams and calibration numbers of the studies with a calibration table
    (accuracy and pairwise: tasks/calibration.py). None when no design here has a scored call:
    until judges store distributions the section would only say so (as the drift section),
    and tbl_calibration says it per design (n_no_probs, note)."""
    table = _rows_of(settings, "tbl_calibration", studies)
    scored = table.filter(pl.col("n_scored") > 0)
    if scored.is_empty():
        return None
    key = ["study", "judge", "prompt_level", "reasoning_effort"]
    bins = _rows_of(settings, "tbl_calibration_bins", studies).join(
        table.select(*key, "event", "ece", "brier"), on=key, how="left"
    )
    svg = render(figures.reliability, bins, "calibration-1")
    block = Block(
        "tbl_calibration",
        "Reliability diagrams: is the judge as sure as it is right?",
        CALIBRATION_GUIDE,
        table,
        svg=svg,
        note=None if svg else "no bin with a number to draw",
    )
    said = (
        f"{scored.height} of {table.height} designs have probabilities; "
        f"{int(table['n_no_probs'].sum())} answered calls have none and are left out."
    )
    flagged = scored.filter(pl.col("miscalibrated").fill_null(False))
    if flagged.height:
        said += (
            f" {flagged.height} design{'s' * (flagged.height != 1)} beyond what a calibrated "
            "judge shows by chance (ece > ece_null_hi)."
        )
    watched = [s for s in studies if s in set(scored["study"])]
    return Section(
        "calibration",
        "Calibration",
        "How sure the judge was against how often it was right, from the probability it gave "
        f"each verdict or winner. Studies: {', '.join(watched)}. " + said,
        [block],
    )


def cost_section(settings: Settings, studies: list[str]) -> Section:
    block = Block(
        "tbl_design_cost",
        "Requests, tokens and cost per design",
        "Per design cell, calls stored and requests sent (retries and re-asks included), "
        "with an (all) row per judge; cost is null for models without a known price. The "
        "price actually paid is split into online and provider-batch calls (batch rates), "
        "and prompt tokens read from the provider's cache are priced at its cache rate.",
        _rows_of(settings, "tbl_design_cost", studies),
        figure=False,
    )
    return Section("costs", "Costs", "What the judge calls cost.", [block])


def report_path(settings: Settings, run_file: str | Path) -> Path:
    """data/reports/STEM.html for a study or suite file; it never lands outside that folder,
    nor outside data/ through a symlinked `reports` folder."""
    name = f"{Path(run_file).stem}.html"
    return confined_file(settings.data_dir / "reports", name, root=settings.data_dir)


def lead(said: dict[str, Headline], sources: dict[str, str]) -> tuple[str, ...]:
    """A type section's opening lines: each study's headline (`said`), after where its
    judgments come from; an imported study is labelled even without a headline."""
    lines = []
    for study, source in sources.items():
        if study in said:
            lines.append(f"{study} ({source}): {said[study].full}")
        elif "imported" in source:
            lines.append(f"{study}: {source}.")
    return tuple(lines)


def write_report(settings: Settings, studies: list[str], out: Path) -> Path:
    """Write one self-contained HTML report for these studies to `out` and return its path.

    Sections appear only for the study types present; a view without rows for these studies
    says so in one line instead of drawing an empty figure."""
    studies = list(dict.fromkeys(studies))
    if not studies:
        raise ValueError("name at least one study")
    with warehouse.reading(settings):  # one reader for the page's ~50 queries
        html = _page(settings, studies, Path(out))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfiles.replacing(out) as tmp:
        tmp.write_text(html, encoding="utf-8")
    return out


def _page(settings: Settings, studies: list[str], out: Path) -> str:
    """The report's HTML (its figures drawn or taken from the figure cache, which is pruned
    of the figures this page did not use)."""
    types = study_types(settings, studies)
    ids, data = drill_data(settings, studies, types)
    cache = FigureCache(settings.data_dir / "cache" / "figures" / out.stem)
    sources = provenance.labels(provenance.study_sources(settings, studies))
    judges = judges_of(settings, studies)
    sections = [summary_section(settings, studies, types, sources, cache.render)]
    said: dict[str, Headline] = {}  # computed once: the page's top and each section's lead
    for kind in StudyType.every():
        of_kind = [s for s in studies if types[s] == kind.name]
        if not of_kind:
            continue
        report = kind.load("report")
        blocks = [
            make_block(
                panel,
                _rows_of(settings, panel.view, of_kind),
                f"{kind.name}-{i}",
                ids.get(panel.view),
                cache.render,
                judges,
            )
            for i, panel in enumerate(report.PANELS, 1)
        ]
        intro = f"{report.INTRO} Studies: {', '.join(of_kind)}."
        of_type = kind.load("headline")(settings, of_kind) if kind.headline else {}
        said |= of_type
        own = {s: sources[s] for s in of_kind if s in sources}
        sections.append(Section(kind.name, report.TITLE, intro, blocks, lead(of_type, own)))
    calibration = calibration_section(settings, studies, cache.render)
    sections += [calibration] if calibration else []
    drift = drift_section(settings, studies, cache.render)
    sections += [drift] if drift else []
    sections.append(cost_section(settings, studies))
    sections.append(glossary.section(sections))
    answers = [Answer(s, types[s], said[s].top if s in said else None) for s in studies]
    html = render_page(
        studies, str(settings.duckdb_path), sections, set(types.values()), data, answers
    )
    cache.prune()
    return html
