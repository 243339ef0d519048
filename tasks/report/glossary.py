"""The report's glossary of column names, generated from what the views already say about their
columns, never written for the report: a view's SQL opening comment (what `judgelab tables`
and the docs' view reference show) defines a column as `name: meaning` or `name = meaning`
(several names: `p_holm / p_bh: …`), and a table's pandera model (schemas/) gives a field its
trailing `# comment`. A column the view's comment does not define takes its table's comment;
one neither defines is left out (the full descriptions stay in the docs).

Pure over text: `definitions` reads one comment, `field_notes` one schema module's source;
`glossary` puts them together for the views a report shows, and `section` makes them the
page's Glossary section."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from judgelab.views_cli import comment_lines, describe
from tasks import warehouse
from tasks.report.page import Block, Section

NAME = r"[a-z][a-z0-9_]*"
# a definition's opening, where a clause starts (a line, after ". ", "; ", ": ", "? ", "("):
# names (joined by "/" or ","), an optional "(…)", then ":" or " =" — "per choice: …" is prose
MARKER = re.compile(
    rf"(?:^|(?<=[.;:?!(]\s)|(?<=\())`?({NAME}(?:`?\s*[/,]\s*`?{NAME})*)`?"
    r"(?:\s*\([^()]*\))?\s*(?::|\s=)\s",
    re.M,
)
SENTENCE_END = re.compile(r"\.(?=\s+[A-Z(`]|\s*$)")
VIEW_REF = re.compile(r"\b((?:stg|fct|dim)_\w+)\b")
FIELD = re.compile(rf"^\s{{4}}({NAME}):\s*[^=#\s][^=#]*(?:=[^#]*)?(?:#\s*(.+))?$")
SCHEMAS_DIR = warehouse.PROJECT_ROOT / "schemas"


@dataclass(frozen=True)
class Term:
    column: str
    meaning: str
    source: str  # where the meaning is written: "tbl_x" (its SQL comment) or "schemas/t.py"
    views: tuple[str, ...]  # the report's views that show the column with this meaning


def _depths(text: str) -> list[int]:
    """Parenthesis depth at each character of `text`."""
    depth, out = 0, []
    for ch in text:
        if ch == ")":
            depth = max(0, depth - 1)
        out.append(depth)
        if ch == "(":
            depth += 1
    return out


def definitions(comment: str, columns: set[str], start: int = 0) -> dict[str, str]:
    """{column: meaning} for the columns `comment` (its lines joined by newlines) defines after
    `start` (the view's one-sentence description). A meaning runs from its marker to the next
    marker at its parenthesis depth, the end of its sentence or the ")" that closes the
    parenthesis it sits in, whichever comes first; a marker whose names are not all columns
    is text, not a definition."""
    depth = _depths(comment)
    found = []
    for m in MARKER.finditer(comment, start):
        names = [n.strip("`") for n in re.split(r"`?\s*[/,]\s*`?", m.group(1))]
        if all(n in columns for n in names):
            found.append((m.start(), m.end(), names, depth[m.start()]))
    out: dict[str, str] = {}
    for i, (_, end, names, level) in enumerate(found):
        stop = len(comment)
        for start, _, _, other in found[i + 1 :]:
            if other <= level:
                stop = start
                break
        for at in range(end, stop):  # the parenthesis around the definition closes
            if depth[at] < level:
                stop = at
                break
        body = comment[end:stop]
        cut = next(
            (e for e in SENTENCE_END.finditer(body) if depth[end + e.start()] == level), None
        )
        meaning = " ".join((body[: cut.end()] if cut else body).split()).rstrip(";,").strip()
        if meaning and meaning[-1] not in ".)":
            meaning += "."
        for name in names:
            out.setdefault(name, meaning)
    return {k: v for k, v in out.items() if len(v) > 1}


def field_notes(source: str) -> dict[str, str | None]:
    """{field: its trailing comment, or None} of a schema module's source
    (`name: type = …  # note`)."""
    notes: dict[str, str | None] = {}
    for line in source.splitlines():
        m = FIELD.match(line)
        if m:
            note = (m.group(2) or "").strip()
            notes.setdefault(m.group(1), note or None)
    return notes


def tables_behind(view: str, files: dict[str, Path]) -> list[str]:
    """The warehouse tables a view reads, through the staging views and marts it selects from."""
    seen, todo, tables = set(), [view], []
    while todo:
        name = todo.pop(0)
        if name in seen or name not in files:
            continue
        seen.add(name)
        sql = files[name].read_text(encoding="utf-8")
        tables += [t for t in warehouse.TABLE_REF.findall(sql) if t not in tables]
        todo += VIEW_REF.findall(sql)
    return tables


def _schema_meanings(
    view: str, columns: list[str], files: dict[str, Path]
) -> dict[str, tuple[str, str]]:
    """{column: (its schema comment, its table)} for the columns that are a field of exactly
    one table the view reads (a column two tables have, such as a joined table's `bias`, is
    ambiguous), when the comment reads alone (four words or more, not a "…" continuing the
    line above)."""
    owners: dict[str, list[str]] = {}
    notes: dict[str, str | None] = {}
    for table in tables_behind(view, files):
        path = SCHEMAS_DIR / f"{table}.py"
        if not path.is_file():
            continue
        for field in warehouse.table_schema(table).to_schema().columns:  # inherited ones too
            owners.setdefault(field, []).append(table)
        for field, note in field_notes(path.read_text(encoding="utf-8")).items():
            notes[f"{table}.{field}"] = note
    out = {}
    for column in columns:
        tables = owners.get(column, [])
        note = notes.get(f"{tables[0]}.{column}") if len(tables) == 1 else None
        if note and len(note.split()) >= 4 and not note.startswith(("…", "...")):
            out[column] = (note if note.endswith(".") else f"{note}.", tables[0])
    return out


def glossary(views: dict[str, list[str]]) -> list[Term]:
    """The terms for the columns of these views ({view: its columns as shown}), by column
    name; a column defined alike in several views is one term listing them."""
    files = {f.stem: f for f in warehouse.view_files()}
    merged: dict[tuple[str, str], Term] = {}
    for view, columns in views.items():
        if view not in files:
            continue
        lines = comment_lines(files[view])
        text = "\n".join(lines)
        said = {
            c: (m, view)
            for c, m in definitions(text, set(columns), len(describe(files[view]))).items()
        }
        for column, (meaning, table) in _schema_meanings(view, columns, files).items():
            said.setdefault(column, (meaning, f"schemas/{table}.py"))
        for column, (meaning, source) in said.items():
            old = merged.get((column, meaning))
            merged[(column, meaning)] = (
                Term(column, meaning, old.source, (*old.views, view))
                if old
                else Term(column, meaning, source, (view,))
            )
    return sorted(merged.values(), key=lambda t: (t.column, t.views))


def section(sections: list[Section]) -> Section:
    """The column names of every table the page shows, each with the meaning its view's
    description (or its table's schema) gives it (`glossary`)."""
    shown: dict[str, list[str]] = {}
    for section in sections:
        for block in section.blocks:
            if block.table.is_empty():  # one line says so: no table, no columns to explain
                continue
            columns = shown.setdefault(block.view, [])
            columns += [c for c in block.table.columns if c not in columns]
    terms = glossary(shown)
    frame = pl.DataFrame(
        {
            "column": [t.column for t in terms],
            "meaning": [t.meaning for t in terms],
            "in": [", ".join(t.views) for t in terms],
            "written in": [t.source for t in terms],
        },
        schema=dict.fromkeys(["column", "meaning", "in", "written in"], pl.String),
    )
    n_columns = len({(v, c) for v, cs in shown.items() for c in cs})
    n_named = len({(v, t.column) for t in terms for v in t.views})
    block = Block(
        "glossary",
        "Column names",
        "Each column of the tables above whose view says what it holds, as its SQL file's "
        "opening comment (or its table's schema) says it; a name with two meanings has a "
        "row for each.",
        frame,
        figure=False,
    )
    return Section(
        "glossary",
        "Glossary",
        f"{n_named} of the {n_columns} columns shown are described here, from their views' "
        "descriptions; the rest (names such as study or judge, and columns their view's "
        "comment does not define) are not. `judgelab tables` and the docs' view reference "
        "give each view's whole description.",
        [block],
    )
