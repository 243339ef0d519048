"""Errors that are the user's to fix, each printed as one line: which errors they are, the fix a
message cannot know, Prefect's console kept quiet about them, and an OS error's line (its path
and cause, however deep it was raised)."""

from __future__ import annotations

import logging
import sys

from judgelab import oserrors  # standard library only


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
