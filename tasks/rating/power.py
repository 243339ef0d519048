"""A rating study's power planner (tasks/power.py does the arithmetic): pilot designs from
`item_scores`, the paired t test between designs; named by the rating record's `power`."""

from __future__ import annotations

import polars as pl

from judgelab.study import Study
from schemas.scores import with_readout
from tasks.power import Assumptions, Targets, detectable_diff, n_for_power
from tasks.power_plan import RATING_DESIGN, Planner, PowerPlan, plan_rating


def plan_rating_study(
    study: Study,
    pilot: pl.DataFrame | None,
    targets: Targets,
    assume: Assumptions,
    diff: float | None,
    full: bool,
) -> PowerPlan:
    a = study.analysis
    diff = a.meaningful_diff if diff is None else diff
    if pilot is not None:  # one readout's designs (the first listed): the calls are the same
        pilot = with_readout(pilot).filter(pl.col("readout") == a.readouts[0])
    return plan_rating(pilot, targets, assume, diff, a.margin(), seed=a.seed, full=full)


RATING = Planner(
    pilot_table="item_scores",
    design=RATING_DESIGN,
    intervals=[
        ("bias", "bias_hw", "n_bias"),
        ("MAE", "mae_hw", "n_mae"),
        ("α", "alpha_hw", "n_alpha"),
    ],
    ci_label="bias",
    percent=False,
    test="paired t",
    spread="sd_diff",
    n_needed=n_for_power,
    detectable=detectable_diff,
    plan=plan_rating_study,
)
