"""`judgelab power` and `plan`'s power line: how many items a study needs for its CI widths,
its power between two designs and equivalence, from its stored pilot table or stated
assumptions (no calls), and what its canary can see."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from judgelab.views_cli import print_frame
from tasks.study_types import StudyType  # standard library only

if TYPE_CHECKING:
    from judgelab.settings import Settings
    from judgelab.study import Study
    from tasks.power_plan import PowerPlan


def power_plan(
    study: Study, settings: Settings, args: argparse.Namespace | None = None, full: bool = True
) -> PowerPlan:
    """The power plan of a study: from its stored pilot table if there is one (and not
    --assume), else from the stated assumptions. Flags left unset keep the defaults."""
    from dataclasses import fields

    from tasks import power, warehouse
    from tasks import power_plan as plans

    def given(cls: type) -> dict:
        values = {f.name: getattr(args, f.name, None) for f in fields(cls)}
        return {k: v for k, v in values.items() if v is not None}

    pilot = None
    if not getattr(args, "assume", False):
        try:
            pilot = warehouse.read_table(
                settings, StudyType.named(study.type).load("power").pilot_table, study.name
            )
        except FileNotFoundError:
            pilot = None
    return plans.plan_study(
        study,
        pilot,
        power.Targets(**given(power.Targets)),
        power.Assumptions(**given(power.Assumptions)),
        diff=getattr(args, "diff", None),
        full=full,
    )


def power_line(study: Study, settings: Settings, n: int) -> str:
    """`plan`'s one-line verdict on the planned sample (no simulation: it stays fast)."""
    from tasks import power_plan as plans

    if StudyType.named(study.type).power is None:
        return f"power: not covered: {StudyType.named(study.type).power_note}"
    return "power: " + plans.verdict_line(power_plan(study, settings, full=False), n)


def cmd_power(args: argparse.Namespace) -> int:
    """How many items each study needs (no calls): CI half-widths per design, power between
    two designs, equivalence; then the verdict on the planned sample."""
    from dataclasses import fields

    import polars as pl

    from judgelab.settings import Settings
    from judgelab.study import load_study, study_files
    from tasks import power, warehouse
    from tasks import power_plan as plans

    settings = Settings()
    for path in study_files(args.study):
        study = load_study(path, sample_size=args.sample_size)
        print(f"{study.name} ({study.type} study)")
        if StudyType.named(study.type).power is None:
            print(f"not covered: {StudyType.named(study.type).power_note}\n")
            continue
        plan = power_plan(study, settings, args)
        stated = [f.name for f in fields(power.Assumptions) if getattr(args, f.name) is not None]
        ignored = f" (stated {', '.join(stated)} ignored; --assume uses them)"
        print(plan.basis + (ignored if stated and plan.basis.startswith("pilot") else ""))
        print_frame(plan.designs.with_columns(pl.selectors.float().round(3)))
        for line in plans.question_lines(plan):
            print(line)
        n = study.sample_size
        if n == 0:  # the whole benchmark: its size is known once the study is planned
            try:
                n = warehouse.read_table(settings, "plan", study.name, ["item_id"])
                n = n["item_id"].n_unique()
            except FileNotFoundError:
                n = 0
        if n >= 2:
            print("planned: " + plans.verdict_line(plan, n))
        else:
            print("planned: the whole benchmark (run `judgelab plan` first to count it)")
        if args.label_hw is not None:
            for line in label_lines(study, settings, args, n):
                print(line)
        if study.canary is not None:
            for line in canary_power(study, settings, n):
                print(line)
        print()
    return 0


def canary_power(study, settings, n_items: int) -> list[str]:
    """The canary's cost per bucket and, for ratings, the shift it can see, with the repeat
    noise of its stored batches when there are some (median over designs)."""
    from tasks import warehouse
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
    return canary_power.canary_lines(study, designs, noise_sd, n_items)


def label_lines(study, settings, args: argparse.Namespace, n_items: int) -> list[str]:
    """`--label-hw`: human labels for a ±x CI on the judge-corrected mean, per design from the
    study's `corrected` table (its own judge and judge–human SDs) unless --assume, else from
    --sd (judge − human; verdicts: √(1 − accuracy)) and --judge-sd over the planned items."""
    import math

    import polars as pl

    from tasks import warehouse
    from tasks.power import Assumptions
    from tasks.power_plan import ASSUMED_JUDGE_SD, label_line, label_needs

    pilot = None
    if not args.assume:
        try:
            pilot = warehouse.read_table(settings, "corrected", study.name)
        except FileNotFoundError:
            pilot = None
    binary = StudyType.named(study.type).percent
    a = Assumptions()
    if binary:
        resid = math.sqrt(1 - (args.accuracy or a.accuracy))
        judge_sd = args.judge_sd or 0.5
    else:
        resid, judge_sd = args.sd or a.sd, args.judge_sd or ASSUMED_JUDGE_SD
    needs = label_needs(pilot, args.label_hw, n_items, resid, judge_sd)
    print_frame(needs.with_columns(pl.selectors.float().round(3)))
    return [label_line(needs, args.label_hw)]
