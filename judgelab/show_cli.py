"""`judgelab sql`, `tables`, `show` and `export`: the warehouse's views on the terminal or in a
file (what they print is shaped in views_cli.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from judgelab.user_errors import UsageError
from judgelab.views_cli import fit, listing, print_frame, terminal_width, view_query


def cmd_sql(args: argparse.Namespace) -> int:
    from judgelab.settings import Settings
    from tasks import warehouse

    print_frame(warehouse.query(Settings(), args.query))
    return 0


def cmd_tables(args: argparse.Namespace) -> int:
    from tasks import warehouse

    print("\n".join(listing(warehouse.view_files(), every=args.all)))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Print or export one view, optionally narrowed to some columns, rows and a row count."""
    from judgelab.settings import Settings
    from tasks import export, warehouse

    settings = Settings()
    known = warehouse.query(settings, f"{export.select_view(args.view)} limit 0").columns
    try:
        sql, params = view_query(args.view, known, args.columns, args.where, args.limit)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    frame = warehouse.query(settings, sql, params)
    if args.format == "text":
        text = fit(frame, None if args.output else terminal_width(), " (choose with --columns)")
    else:
        text = export.render(frame, args.format)
    if args.output:
        Path(args.output).write_text(text)
        print(f"{args.view}: {frame.height} rows → {args.output}")
    else:
        print(text, end="" if text.endswith("\n") else "\n")
    return 0
