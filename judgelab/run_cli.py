"""`judgelab run` and `reparse`: a study's flow, then what it did: the calls made per judge,
where each study's judgments come from, its main tables and headline, and the report's path."""

from __future__ import annotations

import argparse
import sys
import time

from judgelab import (
    lifecycle,  # standard library only
    prefect_home,
)
from judgelab.preflight import preflight
from judgelab.report_cli import report_path
from judgelab.user_errors import quiet_prefect_console
from judgelab.views_cli import print_frame
from tasks.study_types import StudyType  # standard library only


def cmd_run(args: argparse.Namespace) -> int:
    import os

    if not os.environ.get("PREFECT_API_URL"):
        # the temporary server's database: fail in a blink, before Prefect is imported (it
        # warns about the folder) or its server restarts, again and again, for minutes
        prefect_home.writable_prefect_home()
    lifecycle.guard_tree()  # our Prefect server and workers die with us, even on SIGKILL
    lifecycle.raise_on_signals()
    failures = []
    # before the server starts (a judge that cannot run writes nothing): the litellm import of
    # the provider and key checks overlaps the embedded model's probe
    studies = [study for _, study in preflight(args.study)]  # parsed once, for the run too
    with prefect_home.prefect_api() as api_ready:  # a temporary server boots meanwhile
        from flows.suite import study_suite
        from tasks.judging.failures import JudgeFailures

        quiet_prefect_console()
        sample = 0 if args.full else args.sample_size
        api_ready()
        started = time.perf_counter()
        try:
            results = study_suite(suite_file=args.study, sample_size=sample, studies=studies)
        except JudgeFailures as exc:  # the results are published; the run still fails
            results, failures = exc.results, exc.failures
    print_calls(results, failures)
    print(f"finished in {time.perf_counter() - started:.0f} s\n")
    print_tables(results)
    print(
        "\nEvery table: .venv/bin/judgelab tables; one of them: .venv/bin/judgelab show NAME"
        f"\nWhole benchmark: .venv/bin/judgelab run {args.study} --full"
    )
    report = report_path(args.study)  # the run's last stage wrote it
    if report.is_file():
        print(f"\nreport (figures and tables, works offline): {report.resolve()}")
        print(f"open it: {report.resolve().as_uri()}")
    for failure in failures:
        print(f"judgelab: {failure.line}", file=sys.stderr)
    return 1 if failures else 0


def print_calls(results: list[dict], failures: list) -> None:
    """Per study: its notes, the calls each judge (and the canary) had stored and made, the
    canary's alerts (an alert that fails the run is printed with the failures), its workers."""
    for result in results:
        for note in result.get("notes", []):  # logged on the run; printed here, once
            print(f"judgelab: note: {note}", file=sys.stderr)
        for judge, c in result["before"].items():
            made = result["made"].get(judge, {})
            n_made = sum(made.values())
            detail = ", ".join(f"{k} {v}" for k, v in sorted(made.items())) or "nothing to do"
            print(
                f"{result['study']} · judge {judge}: {c['planned']} planned, {c['stored']} "
                f"already stored, {n_made} judge calls made ({detail})"
            )
        canary = result.get("canary") or {}
        for judge, c in canary.get("before", {}).items():
            n_made = sum(canary["made"].get(judge, {}).values())
            print(
                f"{result['study']} · canary {canary['bucket']} · judge {judge}: "
                f"{c['planned']} planned, {c['stored']} already stored, {n_made} calls made"
            )
        for line in canary.get("alerts", []):
            if line not in {f.line for f in failures}:  # on_alert = "fail": printed below
                print(f"judgelab: {line}", file=sys.stderr)
        if len(result["workers"]) > 1:
            print(f"{result['study']} · shards ran on {len(result['workers'])} workers")


def print_tables(results: list[dict]) -> None:
    """Where each study's judgments come from, then each type's main table as its report
    module prints it, the notes on its rows and the type's headline."""
    import polars as pl

    from judgelab.settings import Settings
    from tasks import warehouse
    from tasks.report import provenance

    settings = Settings()
    with warehouse.reading(settings):  # one reader for all of it
        names = [r["study"] for r in results]
        sources = provenance.labels(provenance.study_sources(settings, names))
        for study in names:  # imported or called, as the store says
            print(f"{study}: {sources.get(study, 'no judgments')}")
        print()
        for k in StudyType.every():
            studies = [r["study"] for r in results if r["type"] == k.name]
            if not studies:
                continue
            sql = f"select * from {k.main_view} where list_contains(?, study)"
            table = warehouse.query(settings, sql, [studies])
            print(f"{k.main_view}:")
            for part in k.load("report").console(settings, studies, table):
                print(part) if isinstance(part, str) else print_frame(part)
            if "note" in table.columns:  # a design's small n or failed calls, a baseline's caveat
                from tasks.report.page import row_label

                for row in table.filter(pl.col("note").is_not_null()).iter_rows(named=True):
                    print(f"note on {row_label(row)}: {row['note']}")
            if k.headline:  # what the tables say, computed (tasks/<type>/ headline)
                for study, said in k.load("headline")(settings, studies).items():
                    print(f"\n{study}: {said.full}")


def cmd_reparse(args: argparse.Namespace) -> int:
    """Re-parse each study of a study or suite file (one reparse run per study)."""
    from flows.reparse import reparse_study
    from judgelab.study import study_files

    quiet_prefect_console()
    for path in study_files(args.study):
        result = reparse_study(study_file=str(path))
        print(
            f"{path}: re-parsed {result['checked']} stored answers: {result['changed']} "
            f"changed; 0 judge calls made"
        )
    return 0
