"""The `judgelab` command line's arguments: one subcommand per command, each naming the function
that runs it and ending its help with one example. The command modules import only the standard
library at start-up: `judgelab --help` stays fast."""

from __future__ import annotations

import argparse

from judgelab.batches_cli import cmd_batches
from judgelab.data_cli import cmd_fetch
from judgelab.gate_cli import cmd_check
from judgelab.plan_cli import cmd_plan
from judgelab.power_cli import cmd_power
from judgelab.report_cli import cmd_report
from judgelab.run_cli import cmd_reparse, cmd_run
from judgelab.serve_cli import cmd_serve
from judgelab.show_cli import cmd_show, cmd_sql, cmd_tables


# argparse names a type function in its message for a bad value ("invalid _positive value")
def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def _share(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {text}")
    return value


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=24, width=100)


def _size_options(parser: argparse.ArgumentParser) -> None:
    """--sample-size / --full, shared by run, serve and plan."""
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--sample-size", type=int, metavar="N", help="items to sample (overrides the study file)"
    )
    size.add_argument(
        "--full", action="store_true", help="use every item of the benchmark (no sampling)"
    )


def _view_options() -> argparse.ArgumentParser:
    """The one parser `show` and `export` share (they differ only in the default format)."""
    views = argparse.ArgumentParser(add_help=False)
    views.add_argument("view", help="a view name from `judgelab tables`, e.g. tbl_runs")
    views.add_argument(
        "--columns", metavar="A,B", help="only these columns, in this order (comma-separated)"
    )
    views.add_argument(
        "--where", metavar="SQL", help="only rows matching this SQL condition, e.g. \"study = 'x'\""
    )
    views.add_argument("--limit", type=int, metavar="N", help="at most N rows")
    views.add_argument(
        "--format",
        choices=["text", "csv", "md", "latex"],
        help="output format (default: %(default)s)",
    )
    views.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of printing")
    return views


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="judgelab",
        description="How far can you trust an LLM judge? Studies of design sensitivity and "
        "tone bias, with every result in SQL.",
        epilog="example: judgelab run studies/rating.toml --sample-size 20",
        formatter_class=lambda prog: argparse.RawDescriptionHelpFormatter(
            prog, max_help_position=14, width=110
        ),
    )
    p.add_argument(
        "--debug",
        action="store_true",
        help="show the traceback of an OS error (disk full, too many open files, ...)",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, example: str, **kwargs: object) -> argparse.ArgumentParser:
        """A subcommand whose help ends with one example."""
        return sub.add_parser(
            name,
            help=summary,
            description=summary[0].upper() + summary[1:] + ".",
            epilog=f"example: {example}",
            formatter_class=_formatter,
            **kwargs,
        )

    run = command(
        "run",
        "run a study or suite end to end, print its main tables, write its report",
        "judgelab run studies/rating.toml --sample-size 20",
    )
    run.add_argument("study", help="study or suite file, e.g. studies/rating.toml")
    _size_options(run)
    run.set_defaults(func=cmd_run)

    serve = command(
        "serve",
        "serve study files as scheduled deployments on a Prefect server",
        "judgelab serve studies/rating.toml --cron '0 3 * * *' --timezone Europe/Berlin",
    )
    serve.add_argument("study", nargs="+", help="study or suite files, one deployment each")
    when = serve.add_mutually_exclusive_group()
    when.add_argument("--cron", default="0 3 * * *", help='schedule (default "0 3 * * *")')
    when.add_argument(
        "--every",
        type=int,
        metavar="SECONDS",
        help="run at this interval instead, the first run at once",
    )
    serve.add_argument("--timezone", default="UTC", help="timezone of the schedule (default UTC)")
    serve.add_argument("--limit", type=int, default=1, help="runs at once (default 1)")
    _size_options(serve)
    serve.set_defaults(func=cmd_serve)

    plan = command(
        "plan",
        "planned, stored and missing calls per judge, with a cost estimate",
        "judgelab plan studies/rating.toml --full",
    )
    plan.add_argument("study", help="study or suite file, e.g. studies/rating.toml")
    _size_options(plan)
    plan.set_defaults(func=cmd_plan)

    pw = command(
        "power",
        "items needed for CI widths, power and equivalence (no calls; pilot data)",
        "judgelab power studies/rating.toml --assume --sd 0.9 --bias-hw 0.05",
    )
    pw.add_argument("study", help="study or suite file; pilot data = its stored tables")
    pw.add_argument("--sample-size", type=int, help="the planned n to judge (default the study's)")
    pw.add_argument("--assume", action="store_true", help="ignore stored pilot data")
    pw.add_argument("--diff", type=_positive, help="difference to detect (default meaningful_diff)")
    pw.add_argument("--power", type=_share, help="target power (default 0.8)")
    for flag, parse, what in [
        ("--bias-hw", _positive, "target 95%% CI half-width on bias (default 0.1)"),
        ("--mae-hw", _positive, "… on MAE (default 0.1)"),
        ("--alpha-hw", _positive, "… on Krippendorff's α (default 0.05)"),
        ("--acc-hw", _share, "… on accuracy, a fraction (default 0.05)"),
        ("--sd", _positive, "assumed sd of judge − human over items (default 0.8)"),
        ("--bias", float, "assumed bias (default 0.2)"),
        ("--alpha", _share, "assumed α judge vs human (default 0.85)"),
        ("--diff-sd", _positive, "assumed sd of design A − design B over items (default 0.5)"),
        ("--accuracy", _share, "assumed accuracy (default 0.75)"),
        ("--discordant", _share, "assumed share of items two designs differ on (default 0.2)"),
        ("--label-hw", _positive, "human labels for a ±this CI on the judge-corrected mean"),
        ("--judge-sd", _positive, "… assumed sd of the judge's scores (default 1.2; verdicts 0.5)"),
    ]:
        pw.add_argument(flag, type=parse, help=what)
    pw.set_defaults(func=cmd_power)

    reparse = command(
        "reparse",
        "re-parse stored answers and rebuild the tables (no calls)",
        "judgelab reparse studies/rating.toml",
    )
    reparse.add_argument(
        "study", help="study file, or suite file (each study), whose stored answers to re-parse"
    )
    reparse.set_defaults(func=cmd_reparse)

    data = command(
        "data",
        "fetch and checksum benchmark files: data fetch [SOURCE ...]",
        "judgelab data fetch vader",
    ).add_subparsers(dest="data_cmd", required=True, metavar="fetch")
    fetch = data.add_parser(
        "fetch",
        help="download and checksum benchmark files into data/raw",
        epilog="example: judgelab data fetch vader",
        formatter_class=_formatter,
    )
    fetch.add_argument(
        "sources", nargs="*", help="source names from data/sources.toml (default all)"
    )
    fetch.set_defaults(func=cmd_fetch)

    sql = command(
        "sql",
        "run an ad-hoc SQL query against the warehouse (works during a run)",
        'judgelab sql "select study, judge, mae from tbl_rating_performance order by mae"',
    )
    sql.add_argument("query", help="one DuckDB SQL query over the views of `judgelab tables`")
    sql.set_defaults(func=cmd_sql)

    tables = command(
        "tables",
        "list the report views by study type, each with its description",
        "judgelab tables --all",
    )
    tables.add_argument(
        "--all", action="store_true", help="also list the internal stg_ (staging) and fct_ views"
    )
    tables.set_defaults(func=cmd_tables)

    show = command(
        "show",
        "print one view as a table fitted to the terminal (or csv, md, latex)",
        'judgelab show tbl_rating_performance --columns study,judge,bias,mae --where "mae > 1"',
        parents=[_view_options()],
    )
    show.set_defaults(func=cmd_show, format="text")

    export = command(
        "export",
        "write one view as CSV, Markdown or LaTeX",
        "judgelab export tbl_rating_performance --format latex -o table.tex",
        parents=[_view_options()],
    )
    export.set_defaults(func=cmd_show, format="csv")

    check = command(
        "check",
        "evaluate gate rules over the warehouse (no calls): exit 0 pass, 1 fail",
        "judgelab check studies/rating.toml --rules rules.toml --format junit --output gate.xml",
    )
    check.add_argument("study", help="study or suite file that has been run")
    check.add_argument("--rules", metavar="FILE", help="TOML with [[rules]] (default the study's)")
    check.add_argument(
        "--format", choices=["text", "junit"], default="text", help="output (default text)"
    )
    check.add_argument("--output", "-o", metavar="FILE", help="write to FILE (lines still printed)")
    check.set_defaults(func=cmd_check)

    report = command(
        "report",
        "write the offline HTML report (figures + tables) of a study or suite",
        "judgelab report studies/all.toml -o report.html",
    )
    report.add_argument("study", help="study or suite file that has been run")
    report.add_argument("--output", "-o", help="HTML file (default data/reports/STEM.html)")
    report.set_defaults(func=cmd_report)

    batches = command(
        "batches",
        "list the provider batches in flight (study, judge, size, age, state) or cancel one",
        "judgelab batches --cancel batch_abc123",
    )
    batches.add_argument("--all", action="store_true", help="also list finished batches")
    batches.add_argument("--cancel", metavar="BATCH", help="cancel this batch (id from the list)")
    batches.set_defaults(func=cmd_batches)
    return p
