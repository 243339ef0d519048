"""`judgelab check`: the gate rules of a study (or a rules file) over the warehouse, as lines or
JUnit XML, and an exit code a CI job can act on."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judgelab.user_errors import UsageError


def cmd_check(args: argparse.Namespace) -> int:
    """Gate rules over the warehouse (no calls): exit 0 when every rule passes, 1 when any
    fails; a rule that cannot be evaluated is a usage error (2)."""
    from judgelab.settings import Settings
    from judgelab.study import load_study, study_files
    from tasks import gate

    settings = Settings()
    given = gate.load_rules(args.rules) if args.rules else None
    results, paths = [], study_files(args.study)
    for path in paths:
        study = load_study(path)
        if given is None and not study.rules and len(paths) > 1:
            print(f"judgelab: note: {path} has no [[rules]]; not checked", file=sys.stderr)
        results += gate.run_gate(settings, study.name, given or study.rules)
    if not results:
        raise UsageError(f"{args.study}: no rules to check and no --rules FILE: {gate.HOW_TO_ADD}")
    lines = "\n".join(r.line for r in results) + "\n"
    out = gate.junit_xml(results, Path(args.study).stem) if args.format == "junit" else lines
    if args.output:
        Path(args.output).write_text(out, encoding="utf-8")
    print(lines if args.output else out, end="")
    return 1 if any(not r.passed for r in results) else 0
