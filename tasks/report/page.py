"""Assemble the report page from finished blocks: HTML strings in, one HTML string out.

Everything the page shows is escaped here; figures arrive as inline SVG from `plotting.to_svg`.
The page loads nothing: a Content-Security-Policy forbids every outside resource and allows
one inline script, script.js, by its sha256 (sorting, filtering, the drill-down); the
drill-down's data is one JSON block, rendered on click.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import math
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

import polars as pl

from tasks.report.drill import to_script_json
from tasks.study_types import StudyType

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
       margin: 0; background: #fff; }
main { max-width: 1240px; margin: 0 auto; padding: 1.5rem 2rem 4rem; }
h1 { font-size: 1.7rem; margin: 0 0 .3rem; }
h2 { font-size: 1.35rem; margin: 2.4rem 0 .4rem; padding-bottom: .2rem;
     border-bottom: 2px solid #ddd; }
h3 { font-size: 1.08rem; margin: 1.8rem 0 .2rem; }
p { margin: .3rem 0 .6rem; }
p.guide { color: #333; max-width: 52rem; }
p.lead { font-size: 1.05rem; max-width: 56rem; }
p.empty { color: #555; font-style: italic; }
nav > ol { margin: .4rem 0; padding-left: 1.3rem; }
nav ol ol { columns: 2; column-gap: 2rem; margin: .1rem 0 .5rem; padding-left: 1.3rem;
           font-size: .9rem; }
figure { margin: .4rem 0 .5rem; }
figure svg { display: block; }
figcaption { font-size: .8rem; color: #666; }
details { margin: .2rem 0 1rem; }
summary { cursor: pointer; color: #0b5394; font-size: .9rem; }
.scroll { overflow-x: auto; max-height: 32rem; overflow-y: auto; border: 1px solid #e3e3e3;
          scroll-padding-top: 2.2rem; }  /* a row scrolled or tabbed to stops below the header */
table { border-collapse: collapse; font-size: .8rem; font-variant-numeric: tabular-nums; }
th, td { padding: .18rem .5rem; border-bottom: 1px solid #eee; text-align: left;
         white-space: nowrap; }
th { background: #f5f5f5; position: sticky; top: 0; z-index: 1; }
td.num { text-align: right; }
td.null { color: #aaa; }
td.long { white-space: normal; min-width: 24rem; }
code { font-size: .9em; }
p.hint { font-size: .85rem; color: #555; margin: .2rem 0; }
th.sortable { cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " \\25B2"; font-size: .7em; }
th[aria-sort=descending]::after { content: " \\25BC"; font-size: .7em; }
input.filter { display: block; margin: .3rem 0; font: inherit; font-size: .8rem;
               padding: .15rem .4rem; width: 18rem; }
tr[data-drill] { cursor: pointer; }
tr[data-drill]:hover, tr[data-drill]:focus { background: #eef5fc; outline: none; }
tr[data-drill] > td:first-child::before { content: "\\25B8  "; color: #0b5394; }
tr[data-drill][aria-expanded=true] > td:first-child::before { content: "\\25BE  "; }
tr.drill > td { background: #fafafa; white-space: normal; padding: .5rem .8rem 1rem; }
.scroll:has(tr.drill) { max-height: 48rem; }
.drill-box { position: sticky; left: .5rem; max-width: 74rem; }
.drill-head { font-size: .85rem; margin: 0 0 .3rem; }
.drill-note { font-size: .8rem; color: #8a4b00; margin: 0 0 .3rem; }
table.drill-table th { position: static; }
table.drill-table td.text { white-space: normal; min-width: 14rem; max-width: 26rem; }
table.drill-table td.raw { white-space: normal; min-width: 10rem; max-width: 20rem;
                           font-family: ui-monospace, monospace; font-size: .75rem; }
table.drill-table tr.failed td { background: #fff1dc; }
button.reveal { font: inherit; font-size: .75rem; cursor: pointer; }
.answer { background: #f4f8fc; border-left: 4px solid #0b5394; padding: .5rem 1rem .6rem;
          margin: .6rem 0 1rem; max-width: 74rem; }
.answer h2 { font-size: 1.15rem; margin: 0 0 .3rem; border: 0; padding: 0; }
.answer ul { margin: 0; padding-left: 1.2rem; }
.answer li { font-size: 1.02rem; margin: .2rem 0; }
ul.notes { font-size: .8rem; color: #8a4b00; margin: .2rem 0 .6rem; padding-left: 1.2rem;
           max-width: 74rem; }
"""
SCRIPT = (Path(__file__).parent / "script.js").read_text(encoding="utf-8")
SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    f"script-src 'sha256-{SCRIPT_HASH}'"
)
# the header's reading note, per study type present
# the columns that name a row beside its note (those a view has, in this order)
LABEL_COLUMNS = ("study", "judge", "prompt_level", "scale", "reasoning_effort", "rewriter", "axis")
MAX_NOTES = 20  # notes listed under a figure; the rest stay in its table


@dataclass(frozen=True)
class Block:
    """One figure or table: its heading, a one-sentence reading guide and its source view.

    `svg` is the drawn figure; a figure block without one shows `note` (why nothing is drawn)
    in one line. A table block (`figure=False`) shows its table openly."""

    view: str
    title: str
    guide: str
    table: pl.DataFrame
    figure: bool = True
    svg: str | None = None
    note: str | None = None
    drill: tuple[str | None, ...] | None = None  # per row: its drill-down's design id
    skipped: str | None = None  # the studies the figure leaves out, and why (one line)


@dataclass(frozen=True)
class Answer:
    """One study's line at the top of the page: its computed headline (None: nothing yet)."""

    study: str
    type: str
    headline: str | None


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    intro: str
    blocks: list[Block] = field(default_factory=list)
    lead: tuple[str, ...] = ()  # computed sentences shown first, one paragraph each


def fmt_value(value: object) -> str:
    """A cell as the reader sees it: views round their numbers already, so show them as they
    are (no trailing zeros); tiny values such as p-values in scientific notation."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if value != 0 and abs(value) < 1e-3:
            return f"{value:.2e}"
        return f"{round(value, 4):.10g}"
    if isinstance(value, list | tuple):
        return ", ".join(fmt_value(v) for v in value)
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return str(value)


def render_table(
    frame: pl.DataFrame, view: str, drill: tuple[str | None, ...] | None = None
) -> str:
    numeric = [dtype.is_numeric() for dtype in frame.dtypes]
    head = "".join(f"<th>{escape(c)}</th>" for c in frame.columns)
    rows = []
    for i, row in enumerate(frame.iter_rows()):
        cells = []
        for value, is_num in zip(row, numeric, strict=True):
            if value is None:
                cls = "null"
            elif is_num:
                cls = "num"
            else:  # long text (a baseline's caveat) wraps instead of widening the table
                cls = "long" if isinstance(value, str) and len(value) > 40 else ""
            attr = f' class="{cls}"' if cls else ""
            cells.append(f"<td{attr}>{escape(fmt_value(value))}</td>")
        design = drill[i] if drill else None
        attr = f' data-drill="{escape(design)}"' if design else ""
        rows.append(f"<tr{attr}>" + "".join(cells) + "</tr>")
    return (
        f'<div class="scroll"><table data-view="{escape(view)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _rows(n: int) -> str:
    return f"{n} row{'s' if n != 1 else ''}"


def row_label(row: dict) -> str:
    """A view row's name for its note: its LABEL_COLUMNS joined, e.g. "s · j1 · base · likert7"."""
    return " · ".join(str(row[c]) for c in LABEL_COLUMNS if row.get(c) is not None)


def render_notes(frame: pl.DataFrame, view: str) -> str:
    """The rows' notes (a `note` column: too few items for a test, no scored item, a
    baseline's caveat) listed under the figure drawn from them, each with its row's name, so
    the caveat is read with the number, not only in the folded table."""
    if "note" not in frame.columns:
        return ""
    noted = frame.filter(pl.col("note").is_not_null())
    if noted.is_empty():
        return ""
    items = [
        f"<li><strong>{escape(row_label(r))}</strong>: {escape(r['note'])}</li>"
        for r in noted.head(MAX_NOTES).iter_rows(named=True)
    ]
    if noted.height > MAX_NOTES:
        items.append(f"<li>{noted.height - MAX_NOTES} more in the table below</li>")
    return f'<ul class="notes" data-view="{escape(view)}">{"".join(items)}</ul>'


def render_block(block: Block, anchor: str) -> str:
    view = escape(block.view)
    parts = [
        f'<article class="block" id="{anchor}">',
        f"<h3>{escape(block.title)}</h3>",
        f'<p class="guide">{escape(block.guide)}</p>',
    ]
    if block.table.is_empty():
        parts.append(
            f'<p class="empty" data-view="{view}">No rows in <code>{view}</code> '
            "for these studies.</p>"
        )
    elif not block.figure:
        parts.append(_hint(block))
        parts.append(render_table(block.table, block.view, block.drill))
    else:
        if block.skipped:
            parts.append(f'<p class="empty" data-view="{view}">{escape(block.skipped)}.</p>')
        if block.svg is None and (block.note is not None or not block.skipped):
            note = f": {block.note}" if block.note else ""
            parts.append(
                f'<p class="empty" data-view="{view}">Nothing to draw from '
                f"<code>{view}</code> ({_rows(block.table.height)}){escape(note)}.</p>"
            )
        elif block.svg is not None:
            parts.append(
                f'<figure data-view="{view}">{block.svg}<figcaption>Source: <code>{view}</code>'
                f" ({_rows(block.table.height)}).</figcaption></figure>"
            )
        parts.append(render_notes(block.table, block.view))
        click = " · click a row for the calls behind it" if _drills(block) else ""
        parts.append(
            f'<details data-view="{view}"><summary>Table <code>{view}</code> · '
            f"{_rows(block.table.height)}{click}</summary>"
            f"{render_table(block.table, block.view, block.drill)}</details>"
        )
    parts.append("</article>")
    return "\n".join(parts)


def _drills(block: Block) -> bool:
    return any(block.drill or ())


def _hint(block: Block) -> str:
    if not _drills(block):
        return ""
    return (
        '<p class="hint">Click a row for the calls behind it: items, human and judge scores, '
        "parse status and raw answers.</p>"
    )


def render_answers(answers: list[Answer]) -> str:
    """The page's opening: each study's headline, before what ran and what it cost, each
    linked to its type's section."""
    if not answers:
        return ""
    items = "".join(
        f'<li data-study="{escape(a.study)}"><strong>{escape(a.study)}</strong> '
        f'(<a href="#{escape(a.type)}">{escape(a.type)}</a>): '
        + (
            escape(a.headline)
            if a.headline
            else "nothing to report yet: no design has a number (see its section)."
        )
        + "</li>"
        for a in answers
    )
    return f'<div id="answer" class="answer"><h2>In short</h2><ul>{items}</ul></div>'


def count_figures(sections: list[Section]) -> int:
    return sum(
        1 for s in sections for b in s.blocks if b.figure and b.svg is not None and b.table.height
    )


def render_page(
    studies: list[str],
    source: str,
    sections: list[Section],
    types: set[str] | frozenset[str] = frozenset(),
    drill_data: dict | None = None,
    answers: list[Answer] | None = None,
) -> str:
    """The whole page: the studies' headlines (`answers`) first, then the header's note,
    contents, one <section> per part, every figure counted in the `judgelab-figures` meta tag;
    the header's note on scales fits the study `types` present, and `drill_data`
    (tasks/report/drill.py) is embedded once for the script."""
    toc, body = [], []
    for s in sections:
        links = []
        blocks = []
        for i, b in enumerate(s.blocks, 1):
            anchor = f"{s.key}-{i}"
            links.append(f'<li><a href="#{anchor}">{escape(b.title)}</a></li>')
            blocks.append(render_block(b, anchor))
        toc.append(f'<li><a href="#{s.key}">{escape(s.title)}</a><ol>{"".join(links)}</ol></li>')
        body.append(
            f'<section id="{s.key}" class="part">\n<h2>{escape(s.title)}</h2>\n'
            + "".join(f'<p class="lead">{escape(line)}</p>\n' for line in s.lead)
            + f"<p>{escape(s.intro)}</p>\n"
            + "\n".join(blocks)
            + "\n</section>"
        )
    names = ", ".join(studies)
    notes = " ".join(k.load("report").SCALE_NOTE for k in StudyType.every() if k.name in types)
    glossary = (
        '; the <a href="#glossary">glossary</a> says what each column holds'
        if any(s.key == "glossary" for s in sections)
        else ""
    )
    data = (
        f'<script type="application/json" id="drill-data">{to_script_json(drill_data)}</script>'
        if drill_data
        else ""
    )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="judgelab-figures" content="{count_figures(sections)}">
<title>judgelab report: {escape(names)}</title>
<style>{CSS}</style>
</head>
<body>
<main>
<header>
<h1>judgelab report</h1>
{render_answers(answers or [])}
<p>Studies: <strong>{escape(names)}</strong>. Read from <code>{escape(source)}</code>; every
figure is drawn from the view named under it, and that view's rows for these studies are in the
table below it; click a column header to sort, and a row of a main table for the calls behind
it{glossary}. {escape(notes)}</p>
</header>
<nav><h2>Contents</h2><ol>{"".join(toc)}</ol></nav>
{chr(10).join(body)}
</main>
{data}
<script>{SCRIPT}</script>
</body>
</html>
"""
