"""The `judgelab` command line."""

from __future__ import annotations

import argparse
import gc
import logging
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from judgelab.env import apply_defaults

apply_defaults()  # before Prefect or litellm are imported anywhere

from judgelab import lifecycle, oserrors  # noqa: E402  (standard library only)
from tasks.kinds import kind, kinds  # noqa: E402  (standard library only)

# everything else is imported by the command that needs it: `judgelab --help` stays fast
if TYPE_CHECKING:
    from uuid import UUID

    import polars as pl

    from judgelab.settings import Settings
    from judgelab.study import Study
    from tasks.judging.selftest import SelfTest
    from tasks.power import PowerPlan


def _print_frame(frame: pl.DataFrame) -> None:
    from judgelab.views_cli import fit, terminal_width

    print(fit(frame, terminal_width()), end="")


def _settings() -> Settings:
    from judgelab.settings import Settings

    return Settings()


def load_study(path: str, **kwargs: int | None) -> Study:
    from judgelab.study import load_study as load

    return load(path, **kwargs)


class UsageError(RuntimeError):
    """A mistake the user fixes outside judgelab (a server to start, a variable to set)."""


# the fix, where the message itself cannot know it
FIXES = {
    "FetchError": (
        " — set JUDGELAB_DATA_MIRROR to a folder laid out like ../shared/datasets (see "
        "data/sources.toml for each file's origin and checksum), or run where the origin is "
        "reachable"
    ),
}


class NeverRaised(Exception):
    """Stands for an error class whose module is not imported: nothing can have raised it."""


def loaded(module: str, name: str) -> type[Exception]:
    """The error class `module.name` if that module is imported, else NeverRaised."""
    found = sys.modules.get(module)
    return getattr(found, name) if found is not None else NeverRaised


def expected_errors() -> tuple[type[Exception], ...]:
    """Errors that are the user's to fix: `main` prints them as one sentence."""
    from judgelab.names import UnsafePath
    from judgelab.study import StudyError
    from schemas.validate import TableError
    from tasks.judging.runlock import StudyBusy
    from tasks.sources import FetchError

    # litellm loads in seconds: an error at load must not wait for it (see `loaded`)
    MissingApiKey = loaded("tasks.judging.engine", "MissingApiKey")
    JudgeFailures = loaded("tasks.judging.failures", "JudgeFailures")
    LocalJudgeBroken = loaded("tasks.judging.selftest", "LocalJudgeBroken")
    DuckDBError = loaded("duckdb", "Error")  # `sql`, `show --where`: printed by `main`

    return (
        StudyError,
        UnsafePath,
        TableError,
        FileNotFoundError,
        UsageError,
        StudyBusy,
        FetchError,
        MissingApiKey,
        JudgeFailures,  # cmd_run prints one line per failing judge and exits 1
        LocalJudgeBroken,  # a Dask worker's self-test (the run's own is in preflight)
        DuckDBError,
    )


DEBUG = False  # `judgelab --debug`: an OS error's traceback and Prefect's logs of it are shown


class HideExpected(logging.Filter):
    """Prefect logs a failed stage with its traceback on the terminal (the server still gets
    it); an error that is the user's to fix is printed once, by `main`, as one sentence. So is
    an OS error (disk full, too many open files, no permission), unless `--debug`."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("prefect"):
            return True
        # `cmd_run` prints these itself, once
        if getattr(record, "judge_failure", False) or getattr(record, "printed_by_cli", False):
            return False
        expected = expected_errors()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            return not (isinstance(error, expected) or (not DEBUG and oserrors.find(error)))
        message = record.getMessage()
        if not DEBUG and oserrors.find(Exception(message)):
            return False
        return not any(f"{cls.__name__}" in message for cls in expected)


def quiet_prefect_console() -> None:
    """Call after Prefect is imported (it sets up its console handler on the root logger)."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, HideExpected) for f in handler.filters):
            handler.addFilter(HideExpected())


def checked_studies(run_file: str) -> list[tuple[str, Study]]:
    """Every study file of a run file, parsed and checked before any credential is looked up."""
    from judgelab.check import check_study
    from judgelab.study import study_files

    studies = []
    for path in study_files(run_file):
        study = load_study(path)
        for note in check_study(path, study, imports=False):  # preflight checks them
            print(f"judgelab: note: {note}", file=sys.stderr)
        studies.append((path, study))
    return studies


def self_test(studies: list[tuple[str, Study]]) -> SelfTest:
    """The embedded models' one-decode probe, started (tasks/judging/selftest.py)."""
    from tasks.judging.selftest import SelfTest

    roles = [j for _, s in studies for j in [*s.judges, s.rewriter] if j]
    return SelfTest([j.model for j in roles])


def passed(selftest: SelfTest) -> None:
    from tasks.judging.selftest import LocalJudgeBroken

    try:
        selftest.wait()
    except LocalJudgeBroken as exc:
        raise UsageError(str(exc)) from None


def preflight(run_file: str) -> list[tuple[str, Study]]:
    """Every study file parses, every judge's model has a provider and its credentials, and
    every embedded model decodes on this machine, before anything runs or a server starts;
    then the imported files are checked (fetching a source writes data/raw: a run that cannot
    judge writes nothing)."""
    from judgelab.check import check_imports

    studies = checked_studies(run_file)
    selftest = self_test(studies)  # in a child process, while litellm loads here
    try:
        _check_credentials(studies)
    except BaseException:
        selftest.stop()
        raise
    passed(selftest)
    for _, study in studies:
        check_imports(study)
    return studies


def _check_credentials(studies: list) -> None:
    """Notes of each study, then a UsageError for the first judge without its key."""
    from tasks.costs import price
    from tasks.judging.engine import IN_PROCESS, missing_credentials, unknown_provider

    for path, study in studies:
        for note in study.notes():
            print(f"judgelab: note: {note}", file=sys.stderr)
        for judge in [*study.judges, *([study.rewriter] if study.rewriter else [])]:
            problem = unknown_provider(judge)
            if problem:
                raise UsageError(f"judge {judge.name!r} in {path}: {problem}")
            # a judge on the user's own server (api_base) has no list price: no note for it
            hosted = not judge.model.startswith(IN_PROCESS) and not judge.api_base
            if hosted and price(judge.model, 1, 1) is None:
                print(
                    f"judgelab: note: judge {judge.name!r} ({judge.model}): litellm's price "
                    "table does not list this model; its cost will show as unknown",
                    file=sys.stderr,
                )
            missing = missing_credentials(judge)
            if missing:
                names = " and ".join(missing)
                raise UsageError(
                    f"judge {judge.name!r} ({judge.model}) in {path} needs {names}: export "
                    f"{missing[0]}=... or add it to .env (see .env.example), then run again"
                )


def cmd_run(args: argparse.Namespace) -> int:
    import os

    if not os.environ.get("PREFECT_API_URL"):
        # the temporary server's database: fail in a blink, before Prefect is imported (it
        # warns about the folder) or its server restarts, again and again, for minutes
        lifecycle.writable_prefect_home()
    lifecycle.guard_tree()  # our Prefect server and workers die with us, even on SIGKILL
    lifecycle.raise_on_signals()
    failures = []
    # before the server starts (a judge that cannot run writes nothing): the litellm import of
    # the provider and key checks overlaps the embedded model's probe
    studies = preflight(args.study)
    with lifecycle.prefect_api() as api_ready:  # a temporary server boots meanwhile
        from flows.suite import study_suite
        from tasks.judging.failures import JudgeFailures

        quiet_prefect_console()
        sample = 0 if args.full else args.sample_size
        api_ready()
        started = time.perf_counter()
        try:
            results = study_suite(suite_file=args.study, sample_size=sample)
        except JudgeFailures as exc:  # the results are published; the run still fails
            results, failures = exc.results, exc.failures
    import polars as pl

    from tasks import warehouse

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
    print(f"finished in {time.perf_counter() - started:.0f} s\n")
    from tasks.report import provenance

    names = [r["study"] for r in results]
    sources = provenance.labels(provenance.study_sources(_settings(), names))
    for study in names:  # imported or called, as the store says
        print(f"{study}: {sources.get(study, 'no judgments')}")
    print()
    for k in kinds():
        studies = [r["study"] for r in results if r["type"] == k.name]
        if not studies:
            continue
        sql = f"select * from {k.main_view} where list_contains(?, study)"
        table = warehouse.query(_settings(), sql, [studies])
        print(f"{k.main_view}:")
        for part in k.load("report").console(_settings(), studies, table):
            print(part) if isinstance(part, str) else _print_frame(part)
        if "note" in table.columns:  # a design's small n or failed calls, a baseline's caveat
            from tasks.report.page import row_label

            for row in table.filter(pl.col("note").is_not_null()).iter_rows(named=True):
                print(f"note on {row_label(row)}: {row['note']}")
        if k.headline:  # what the tables say, computed (tasks/<type>/ headline)
            for study, said in k.load("headline")(_settings(), studies).items():
                print(f"\n{study}: {said}")
    print(
        "\nEvery table: .venv/bin/judgelab tables; one of them: .venv/bin/judgelab show NAME"
        f"\nWhole benchmark: .venv/bin/judgelab run {args.study} --full"
    )
    report = report_path(args.study)  # the run's last stage wrote it
    if report.is_file():
        print(f"\nreport (figures and tables, works offline): {report.resolve()}")
    for failure in failures:
        print(f"judgelab: {failure.line}", file=sys.stderr)
    return 1 if failures else 0


def _run_now(deployment_id: UUID) -> None:
    """A run of the deployment due now (`serve --every`: the first run, ahead of the
    schedule's slots), named as scheduled runs are (a run made here keeps the name it is
    created with: Prefect would give it a random one)."""
    from prefect.client.orchestration import get_client

    from flows.names import name_for

    with get_client(sync_client=True) as client:
        suite_file = client.read_deployment(deployment_id).parameters["suite_file"]
        client.create_flow_run_from_deployment(deployment_id, name=name_for(suite_file))


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve one scheduled deployment per study file until stopped (Ctrl-C)."""
    import os

    if not os.environ.get("PREFECT_API_URL"):
        raise UsageError(
            "judgelab serve needs a Prefect server for its schedules: start one with "
            "`prefect server start` and set PREFECT_API_URL=http://127.0.0.1:4200/api"
        )
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from prefect.client.schemas.objects import ConcurrencyLimitConfig
    from prefect.schedules import Cron, Interval

    from flows.suite import study_suite

    lifecycle.raise_on_signals()  # until the runner starts and takes them over
    for path in args.study:
        preflight(path)  # a broken study file or a missing key fails now, not at 3 a.m.
    if args.every:
        # the first run at once, a run of its own made when the deployment is registered,
        # then every N s from now: `--every 3600` gives a current report (and shows a broken
        # setup) at once, then hourly. Not a schedule slot a few seconds ahead: the server
        # makes no run for a slot already past when the deployment arrives, and on a busy
        # machine it had passed, so the first run came one interval late
        anchor = datetime.now(ZoneInfo(args.timezone))  # past when registered: slot 1 is +N
        schedule = Interval(args.every, anchor_date=anchor, timezone=args.timezone)
        when = f"every {args.every} s from start"
    else:
        schedule, when = Cron(args.cron, timezone=args.timezone), f"{args.cron} ({args.timezone})"
    deployments = [
        study_suite.to_deployment(
            name=Path(path).stem,
            schedule=schedule,
            parameters={
                "suite_file": str(Path(path).resolve()),
                "sample_size": 0 if args.full else args.sample_size,
            },
            tags=["judgelab"],
            description=f"judgelab run {path}, {when}",
            # a run still going when the next comes due: the new one is cancelled, so
            # late runs never pile up behind a long one (the next slot runs as usual)
            concurrency_limit=ConcurrencyLimitConfig(limit=1, collision_strategy="CANCEL_NEW"),
        )
        for path in args.study
    ]
    lifecycle.guard_tree()  # the flow-run processes die with us, even on SIGKILL
    registered = _run_now if args.every else None
    return lifecycle.serve(deployments, limit=args.limit, registered=registered)


def cmd_plan(args: argparse.Namespace) -> int:
    """Planned, stored and missing calls per judge, with a token and cost estimate."""
    import polars as pl

    from judgelab.check import check_study

    study = load_study(args.study, sample_size=0 if args.full else args.sample_size)
    # before the stages load (and write) anything; a data file's rows are kept for the load
    notes = check_study(args.study, study, keep=True)
    from tasks import costs
    from tasks.judging import store

    settings = _settings()
    for note in [*notes, *study.notes()]:
        print(f"judgelab: note: {note}", file=sys.stderr)
    counts, notes, plan, lines = kind(study.type).load("stages").preview(study, settings)
    for line in lines:
        print(line)
    for note in notes:
        print(f"judgelab: note: {note}", file=sys.stderr)
    missing = plan.join(store.done_keys(settings.store_dir), on="key", how="anti")
    est = costs.estimate(missing).rename({"calls": "est_calls"})
    table = (
        pl.DataFrame(
            [{"judge": j, **c} for j, c in counts.items()],
            schema={
                "judge": pl.String,
                "planned": pl.Int64,
                "stored": pl.Int64,
                "missing": pl.Int64,
            },
        )
        .join(est.drop("est_calls"), on="judge", how="left")
        .rename(
            {
                "prompt_tokens": "est_prompt_tokens",
                "completion_tokens": "est_completion_tokens",
                "cost_usd": "est_cost_usd",
            }
        )
    )
    _print_frame(table)
    print(
        "Estimates cover the missing calls only: prompt tokens ≈ characters / 4, completion "
        "tokens = max_tokens; prices from litellm's offline table (null = unknown model)."
    )
    print(power_line(study, settings, plan["item_id"].n_unique()))
    return 0


def power_plan(
    study: Study, settings: Settings, args: argparse.Namespace | None = None, full: bool = True
) -> PowerPlan:
    """The power plan of a study: from its stored pilot table if there is one (and not
    --assume), else from the stated assumptions. Flags left unset keep the defaults."""
    from dataclasses import fields

    from tasks import power, warehouse

    def given(cls: type) -> dict:
        values = {f.name: getattr(args, f.name, None) for f in fields(cls)}
        return {k: v for k, v in values.items() if v is not None}

    pilot = None
    if not getattr(args, "assume", False):
        try:
            pilot = warehouse.read_table(
                settings, kind(study.type).load("power").pilot_table, study.name
            )
        except FileNotFoundError:
            pilot = None
    return power.plan_study(
        study,
        pilot,
        power.Targets(**given(power.Targets)),
        power.Assumptions(**given(power.Assumptions)),
        diff=getattr(args, "diff", None),
        full=full,
    )


def power_line(study: Study, settings: Settings, n: int) -> str:
    """`plan`'s one-line verdict on the planned sample (no simulation: it stays fast)."""
    from tasks import power

    if kind(study.type).power is None:
        return f"power: not covered: {kind(study.type).power_note}"
    return "power: " + power.verdict_line(power_plan(study, settings, full=False), n)


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


def cmd_power(args: argparse.Namespace) -> int:
    """How many items each study needs (no calls): CI half-widths per design, power between
    two designs, equivalence; then the verdict on the planned sample."""
    from dataclasses import fields

    import polars as pl

    from judgelab.study import study_files
    from tasks import power, warehouse

    settings = _settings()
    for path in study_files(args.study):
        study = load_study(path, sample_size=args.sample_size)
        print(f"{study.name} ({study.type} study)")
        if kind(study.type).power is None:
            print(f"not covered: {kind(study.type).power_note}\n")
            continue
        plan = power_plan(study, settings, args)
        stated = [f.name for f in fields(power.Assumptions) if getattr(args, f.name) is not None]
        ignored = f" (stated {', '.join(stated)} ignored; --assume uses them)"
        print(plan.basis + (ignored if stated and plan.basis.startswith("pilot") else ""))
        _print_frame(plan.designs.with_columns(pl.selectors.float().round(3)))
        for line in power.question_lines(plan):
            print(line)
        n = study.sample_size
        if n == 0:  # the whole benchmark: its size is known once the study is planned
            try:
                n = warehouse.read_table(settings, "plan", study.name, ["item_id"])
                n = n["item_id"].n_unique()
            except FileNotFoundError:
                n = 0
        if n >= 2:
            print("planned: " + power.verdict_line(plan, n))
        else:
            print("planned: the whole benchmark (run `judgelab plan` first to count it)")
        if study.canary is not None:
            for line in canary_power(study, settings, n):
                print(line)
        print()
    return 0


def canary_power(study, settings, n_items: int) -> list[str]:
    """The canary's cost per bucket and, for ratings, the shift it can see, with the repeat
    noise of its stored batches when there are some (median over designs)."""
    from tasks import power, warehouse
    from tasks.judging.efforts import effort_designs

    watched = study.canary.judges or [j.name for j in study.judges]
    designs = {
        j.name: len(study.prompt_levels)
        * len(study.scales)
        * len(effort_designs(j, study.reasoning_efforts))
        for j in study.judges
        if j.name in watched
    }
    try:
        noise = warehouse.read_table(settings, "drift", study.name, ["noise_sd"])["noise_sd"]
        noise_sd = noise.median()
    except FileNotFoundError:
        noise_sd = None
    return power.canary_lines(study, designs, noise_sd, n_items)


def cmd_reparse(args: argparse.Namespace) -> int:
    from flows.reparse import reparse_study

    quiet_prefect_console()
    result = reparse_study(study_file=args.study)
    print(
        f"re-parsed {result['checked']} stored answers: {result['changed']} changed; "
        f"0 judge calls made"
    )
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    from tasks.sources import fetch

    for path in fetch(args.sources or None, _settings()):
        print(path)
    return 0


def cmd_sql(args: argparse.Namespace) -> int:
    from tasks import warehouse

    _print_frame(warehouse.query(_settings(), args.query))
    return 0


def cmd_tables(args: argparse.Namespace) -> int:
    from judgelab.views_cli import listing
    from tasks import warehouse

    print("\n".join(listing(warehouse.view_files(), every=args.all)))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Gate rules over the warehouse (no calls): exit 0 when every rule passes, 1 when any
    fails; a rule that cannot be evaluated is a usage error (2)."""
    from judgelab.study import study_files
    from tasks import gate

    settings = _settings()
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


def report_path(run_file: str) -> Path:
    """The default report file, data/reports/STEM.html; it never lands outside that folder."""
    from tasks.report.build import report_path as path

    return path(_settings(), run_file)


def write_report(run_file: str, out: Path | None = None) -> Path:
    """The HTML report of every study a study or suite file names."""
    from judgelab.study import study_files
    from tasks.report.build import write_report as write

    studies = [load_study(path).name for path in study_files(run_file)]
    return write(_settings(), studies, out or report_path(run_file))


def cmd_report(args: argparse.Namespace) -> int:
    path = write_report(args.study, Path(args.output) if args.output else None)
    print(f"report: {path.resolve().as_uri()}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Print or export one view, optionally narrowed to some columns, rows and a row count."""
    from judgelab.views_cli import fit, terminal_width, view_query
    from tasks import export, warehouse

    settings = _settings()
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
    ]:
        pw.add_argument(flag, type=parse, help=what)
    pw.set_defaults(func=cmd_power)

    reparse = command(
        "reparse",
        "re-parse stored answers and rebuild the tables (no calls)",
        "judgelab reparse studies/rating.toml",
    )
    reparse.add_argument("study", help="study file whose stored answers to re-parse")
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
    return p


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # progress lines (calls done / planned, rate, ETA, failures) when stderr is not a terminal
    progress = logging.getLogger("judgelab.progress")
    progress.setLevel(logging.INFO)
    progress.propagate = False
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s progress %(message)s", "%H:%M:%S"))
    progress.addHandler(handler)
    args = build_parser().parse_args(argv)
    global DEBUG
    DEBUG = args.debug
    try:
        return args.func(args)
    except lifecycle.Stopped as stop:  # before or after the flow run: nothing to cancel
        lifecycle.say(f"{signal.Signals(stop.signum).name}: stopped")
        return 128 + stop.signum
    except BaseException as exc:
        return failed(exc, args.debug)


def failed(exc: BaseException, debug: bool) -> int:
    """One line for an error that is the user's to fix, and exit code 2; anything else
    raises. An OS error (disk full, too many open files, no permission), however deep it was
    raised, names its path and cause; `--debug` raises it with its traceback."""
    if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
        raise exc  # KeyboardInterrupt, SystemExit; a Rust panic (polars) may be an OS error
    found = oserrors.find(exc)
    if found is not None and debug:
        raise exc
    if found is not None and found.filename:
        return os_error_line(found)
    try:
        expected = expected_errors()  # imports: fails too when no file can be opened
    except OSError:
        expected = ()
    if isinstance(exc, expected):
        from judgelab.views_cli import one_line

        text = one_line(exc) if isinstance(exc, loaded("duckdb", "Error")) else str(exc)
        print(f"judgelab: {text}{FIXES.get(type(exc).__name__, '')}", file=sys.stderr)
        return 2
    if found is not None:
        return os_error_line(found)
    raise exc


def os_error_line(err: OSError) -> int:
    print(f"judgelab: {oserrors.line(err)}", file=sys.stderr)
    # objects half built when the error struck (an event loop without its self-pipe after
    # EMFILE) report "Exception ignored in ..." as they are collected: noise after this line
    sys.unraisablehook = lambda unraisable: None
    return 2


def console() -> NoReturn:
    """The `judgelab` command: `main`, then an exit without the interpreter's final garbage
    collections. Those walk every object the libraries made (2.1 s after a rerun; 0.2 s with
    the objects frozen, measured); atexit hooks and stream flushes still run, and what the
    command opened it closed itself."""
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    console()
