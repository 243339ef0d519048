"""What `judgelab run` and `serve` check before anything runs or a server starts: every study
file parses, every judge has a provider and its credentials, every embedded model decodes here,
and the imported files are sound."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from judgelab.user_errors import UsageError

if TYPE_CHECKING:
    from judgelab.study import Study
    from tasks.judging.selftest import SelfTest


def checked_studies(run_file: str) -> list[tuple[str, Study]]:
    """Every study file of a run file, parsed and checked before any credential is looked up."""
    from judgelab.check import check_study
    from judgelab.study import load_study, study_files

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
        check_credentials(studies)
    except BaseException:
        selftest.stop()
        raise
    passed(selftest)
    for _, study in studies:
        check_imports(study)
    return studies


def check_credentials(studies: list) -> None:
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
