"""Writes the generated reference pages at `mkdocs build` time (mkdocs-gen-files runs it), so
they cannot drift from the code: every view of sql/ with its description and columns, every
table of schemas/, and every command's help.

A view's columns are what DuckDB says after publishing all views from an empty warehouse
(warehouse.publish_views gives every table an empty typed part first); its description is its
SQL file's opening comment, the first sentence being what `judgelab tables` prints. A table's
columns are its pandera DataFrameModel's."""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))  # this checkout's code, not an installed copy

import pandera.polars as pa  # noqa: E402

from judgelab import cli  # noqa: E402
from judgelab.settings import Settings  # noqa: E402
from judgelab.views_cli import comment_lines, describe, report_groups  # noqa: E402
from tasks import warehouse  # noqa: E402
from tasks.study_types import package_paths  # noqa: E402

LAYERS = {
    "reports": "Report views (`tbl_*`): one per paper table or figure; what `judgelab show` "
    "prints and the report draws.",
    "marts": "Marts (`fct_*`): facts the report views are built from.",
    "staging": "Staging (`stg_*`, `dim_order`): the stage tables renamed and cast, one view per "
    "table, and the sort orders.",
}


def prose(text: str) -> str:
    """Comment text as one markdown paragraph: characters markdown would read as markup are
    escaped (backticks stay code)."""
    parts = re.split(r"(`[^`]*`)", text)  # odd parts are code spans, left as they are
    for i in range(0, len(parts), 2):
        plain = parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        parts[i] = re.sub(r"([\\*_\[\]])", r"\\\1", plain)
    return "".join(parts)


def cell(text: str) -> str:
    return prose(text).replace("|", "\\|")


def view_columns() -> dict[str, list[list[str]]]:
    """(column, DuckDB type) of every view, from views published over an empty warehouse."""
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder))
        warehouse.publish_views(settings)
        return warehouse.view_columns(settings)


def tables_read(sql_file: Path) -> list[str]:
    return sorted(set(warehouse.TABLE_REF.findall(sql_file.read_text())))


def views_page() -> str:
    columns = view_columns()
    files = {f.stem: f for f in warehouse.view_files()}
    groups = {v: g for g, views in report_groups().items() for v in views}
    out = [
        "# SQL views",
        "",
        "Every view in `data/judgelab.duckdb`, generated from `sql/` when the site is built: the",
        "description is the SQL file's opening comment (its first sentence is what `judgelab",
        "tables` prints), the columns are what DuckDB reports for the published view. Query one",
        'with `judgelab show VIEW` or `judgelab sql "select * from VIEW"`; the tables the',
        "staging views read are on [Tables](tables.md).",
        "",
    ]
    for layer in ("reports", "marts", "staging"):
        out += [f"## {layer.capitalize()}", "", LAYERS[layer], ""]
        for name, path in files.items():
            if path.parent.name != layer:
                continue
            lines = comment_lines(path)
            first = describe(path)
            rest = " ".join(lines)[len(first) :].strip()
            out += [f"### {name}", "", f"**{prose(first)}**", ""]
            if rest:
                out += [prose(rest), ""]
            facts = [f"`sql/{layer}/{path.name}`"]
            if name in groups:
                facts.append(f"study type: {groups[name]}")
            read = tables_read(path)
            if read:
                facts.append("reads " + ", ".join(f"[`{t}`](tables.md#{t})" for t in read))
            out += ["; ".join(facts), ""]
            out += ["| column | type |", "|---|---|"]
            out += [f"| `{c}` | {kind} |" for c, kind in columns.get(name, [])]
            out.append("")
    return "\n".join(out)


def schema_modules() -> list[str]:
    """Table names: the modules of schemas/ (and of a type package's tasks/<type>/schemas/)
    that hold one DataFrameModel."""
    names = []
    folders = [ROOT / "schemas", *package_paths("schemas")]
    for path in sorted((p for f in folders for p in f.glob("*.py")), key=lambda p: p.stem):
        module = importlib.import_module(warehouse.schema_module(path.stem))
        models = [
            v
            for v in vars(module).values()
            if isinstance(v, type)
            and issubclass(v, pa.DataFrameModel)
            and v is not pa.DataFrameModel
            and v.__module__ == module.__name__
        ]
        if len(models) == 1:
            names.append(path.stem)
    return names


def _checks(column: object) -> str:
    said = []
    for check in column.checks:  # type: ignore[attr-defined]
        stats = {k: v for k, v in (check.statistics or {}).items() if v is not None}
        args = ", ".join(f"{k}={v!r}" for k, v in stats.items())
        said.append(f"{check.name}({args})" if args else str(check.name))
    return "; ".join(said)


def tables_page() -> str:
    readers: dict[str, list[str]] = {}
    for f in warehouse.view_files():
        for table in tables_read(f):
            readers.setdefault(table, []).append(f.stem)
    out = [
        "# Tables",
        "",
        "The Parquet tables under `data/warehouse/<table>/` that stages write and views read,",
        "generated from `schemas/`: one pandera DataFrameModel per table, checked at every stage",
        "boundary. `strict`: no other column may appear.",
        "",
    ]
    for name in schema_modules():
        module = importlib.import_module(warehouse.schema_module(name))
        model = warehouse.table_schema(name)
        schema = model.to_schema()
        doc = " ".join((module.__doc__ or "").split())
        out += [f"## {name}", ""]
        if doc:
            out += [prose(doc), ""]
        facts = [f"`{module.__name__.replace('.', '/')}.py` ({model.__name__})"]
        if schema.strict:
            facts.append("strict")
        if name in readers:
            facts.append(
                "read by " + ", ".join(f"[`{v}`](views.md#{v})" for v in sorted(readers[name]))
            )
        out += ["; ".join(facts), ""]
        out += ["| column | type | nullable | unique | checks |", "|---|---|---|---|---|"]
        for column_name, column in schema.columns.items():
            out.append(
                f"| `{column_name}` | {column.dtype} | {'yes' if column.nullable else ''} | "
                f"{'yes' if column.unique else ''} | {cell(_checks(column))} |"
            )
        out.append("")
    return "\n".join(out)


def _commands(parser: argparse.ArgumentParser, path: list[str]) -> list[tuple[str, str]]:
    """(command, help text) of the parser and every subcommand under it, depth first."""
    found = [(" ".join(path), parser.format_help())]
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, [*path, name])
    return found


def cli_page() -> str:
    out = [
        "# Command line",
        "",
        "Every command's `--help`, generated from `judgelab/arguments.py` when the site is built.",
        "",
    ]
    for command, text in _commands(cli.build_parser(), ["judgelab"]):
        out += [f"## {command}", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(out)


PAGES = {
    "reference/views.md": views_page,
    "reference/tables.md": tables_page,
    "reference/cli.md": cli_page,
}

try:
    import mkdocs_gen_files
except ImportError:  # run by hand: print the pages
    mkdocs_gen_files = None

if mkdocs_gen_files is not None and __name__ != "__main__":
    for page, make in PAGES.items():
        with mkdocs_gen_files.open(page, "w") as fh:
            fh.write(make())
        mkdocs_gen_files.set_edit_path(page, "gen_reference.py")
elif __name__ == "__main__":
    for page, make in PAGES.items():
        print(f"<!-- {page} -->\n{make()}")
