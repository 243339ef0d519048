"""An accuracy study's power planner (tasks/power.py does the arithmetic): pilot correctness
from `verdicts` over the consensus the accuracy stage builds, McNemar between designs; named
by the accuracy record's `power`."""

from __future__ import annotations

import polars as pl

from judgelab.study import Analysis, Study
from tasks.power import Assumptions, Targets, detectable_accuracy_diff, n_for_mcnemar
from tasks.power_plan import ACCURACY_DESIGN, Planner, PowerPlan, plan_accuracy


def accuracy_correctness(verdicts: pl.DataFrame, analysis: Analysis) -> pl.DataFrame:
    """verdicts → one row per design × item it resolved that has a truth, `correct` 0/1: the
    unit the accuracy tables count (tasks.accuracy.verdict_impact.correctness over the consensus the
    accuracy stage builds with the same settings)."""
    from tasks.accuracy.consensus import consensus
    from tasks.accuracy.verdict_impact import correctness

    agreed = consensus(
        verdicts,
        near=analysis.near_agreement,
        min_designs=analysis.min_designs,
        votes=analysis.consensus_votes,
    )
    return correctness(verdicts, agreed, analysis.truth)


def plan_accuracy_study(
    study: Study,
    pilot: pl.DataFrame | None,
    targets: Targets,
    assume: Assumptions,
    diff: float | None,
    full: bool,
) -> PowerPlan:
    a = study.analysis
    margin = a.margin(percent=True)
    correct = None if pilot is None else accuracy_correctness(pilot, a)
    diff = margin if diff is None else diff
    return plan_accuracy(correct, targets, assume, diff, margin, full=full)


ACCURACY = Planner(
    pilot_table="verdicts",
    design=ACCURACY_DESIGN,
    intervals=[("accuracy", "acc_hw", "n_accuracy")],
    ci_label="accuracy",
    percent=True,
    test="McNemar",
    spread="discordant",
    n_needed=n_for_mcnemar,
    detectable=detectable_accuracy_diff,
    plan=plan_accuracy_study,
)
