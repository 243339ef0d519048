"""`judgelab report`: the offline HTML report of every study a study or suite file names, at
data/reports/STEM.html unless told otherwise."""

from __future__ import annotations

import argparse
from pathlib import Path


def report_path(run_file: str) -> Path:
    """The default report file, data/reports/STEM.html; it never lands outside that folder."""
    from judgelab.settings import Settings
    from tasks.report.build import report_path as path

    return path(Settings(), run_file)


def write_report(run_file: str, out: Path | None = None) -> Path:
    """The HTML report of every study a study or suite file names."""
    from judgelab.settings import Settings
    from judgelab.study import load_study, study_files
    from tasks.report.build import write_report as write

    studies = [load_study(path).name for path in study_files(run_file)]
    return write(Settings(), studies, out or report_path(run_file))


def cmd_report(args: argparse.Namespace) -> int:
    path = write_report(args.study, Path(args.output) if args.output else None)
    print(f"report: {path.resolve().as_uri()}")
    return 0
