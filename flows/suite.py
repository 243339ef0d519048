"""The suite flow: every study a suite file lists (or one study file), each as a subflow."""

from __future__ import annotations

from prefect import flow

from flows.accuracy_study import accuracy_study
from flows.common import task_runner
from flows.rating_study import rating_study
from flows.tone_study import tone_study
from judgelab.settings import Settings
from judgelab.study import load_study, study_files
from tasks.judging.failures import JudgeFailures


@flow(name="study-suite")
def study_suite(suite_file: str, sample_size: int | None = None) -> list[dict]:
    """Run every study a suite file lists (or the one study file given), each as a subflow.
    A study whose judges failed loudly ends Failed; the others still run, and then the suite
    raises `JudgeFailures` with every study's summary and every failure."""
    settings = Settings()
    results, failures = [], []
    for path in study_files(suite_file):
        study = load_study(path, sample_size=sample_size)
        run = {"rating": rating_study, "accuracy": accuracy_study, "tone": tone_study}[study.type]
        run = run.with_options(task_runner=task_runner(settings))
        try:
            results.append(run(study_file=str(path), sample_size=sample_size))
        except JudgeFailures as exc:
            results += exc.results
            failures += exc.failures
    if failures:
        raise JudgeFailures(failures, results)
    return results
