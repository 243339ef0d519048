"""The suite flow: every study a suite file lists (or one study file), each as a subflow."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from prefect import flow
from prefect.states import State

from flows.common import drifted_state, task_runner
from flows.run_names import run_name
from flows.study import for_type
from judgelab import lifecycle, owners
from judgelab.settings import Settings
from judgelab.study import Study, load_study, study_files
from tasks import warehouse
from tasks.judging.failures import JudgeFailures, failures_in_one_line
from tasks.report.stage import report_stage
from tasks.runs import RunSummary


def with_sample_size(study: Study, sample_size: int | None) -> Study:
    """`study` as load_study(…, sample_size=…) gives it: the override replaces the field."""
    if sample_size is None:
        return study
    return Study.model_validate(study.model_dump() | {"sample_size": sample_size})


def run_studies(
    suite_file: str, studies: list[tuple[Path, Study]], sample_size: int | None
) -> list[RunSummary]:
    """Each study as its subflow; a study whose judges failed loudly does not stop the next.
    One report per run, named by the run file: a study file given alone gets it from its
    subflow's last stage, a suite file from the report stage here, over all its studies (no
    study's report is drawn twice)."""
    settings = Settings()
    alone = [p for p, _ in studies] == [Path(suite_file)]
    results, failures = [], []
    for path, study in studies:
        run = for_type(study.type).with_options(task_runner=task_runner(settings))
        try:
            with owners.owned([study.name]):  # found by its tags if left Running
                results.append(
                    run(study_file=str(path), sample_size=sample_size, report=alone, study=study)
                )
        except JudgeFailures as exc:
            results += exc.results
            failures += exc.failures
    if not alone:
        report_stage(settings, suite_file, results, [f.line for f in failures])
    if failures:
        raise JudgeFailures(failures, results)
    return results


@flow(name="study-suite", flow_run_name=run_name)
def study_suite(
    suite_file: str, sample_size: int | None = None, studies: list[Study] | None = None
) -> list[RunSummary] | State:
    """Run every study a suite file lists (or the one study file given), each as a subflow.
    A study whose judges failed loudly ends Failed; the others still run, and then the suite
    raises `JudgeFailures` with every study's summary and every failure.
    The run and its subflow runs are tagged with their owner process (an earlier run of
    these studies whose process died is marked Crashed first, subflows included), and
    SIGTERM / SIGINT record them Cancelled and exit."""
    failures_in_one_line()  # its log entry, if judges failed: their lines, no traceback
    paths = study_files(suite_file)
    if studies is None:
        parsed = [(p, load_study(p, sample_size=sample_size)) for p in paths]
    else:  # parsed by the caller's preflight, in study_files' order
        given = zip(paths, studies, strict=True)
        parsed = [(p, with_sample_size(s, sample_size)) for p, s in given]
    lifecycle.guard_tree()  # run by `serve`: this process's workers die with it too
    owners.own_run([study.name for _, study in parsed])
    warehouse.start_run(Settings())  # stale temp files gone; `judgelab sql` answers from now
    work = partial(run_studies, suite_file, parsed, sample_size)
    results = lifecycle.until_stopped(work, stop=owners.cancel_own_runs)
    if any(r.get("canary", {}).get("alerts") for r in results):
        return drifted_state(results, results)  # the suite's run shows it too
    return results
