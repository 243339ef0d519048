"""`judgelab plan`: planned, stored and missing calls per judge with a token and cost estimate,
and the power planner's verdict on the planned sample (no calls)."""

from __future__ import annotations

import argparse
import sys

from judgelab.power_cli import power_line
from judgelab.views_cli import print_frame
from tasks.study_types import StudyType  # standard library only


def cmd_plan(args: argparse.Namespace) -> int:
    """Planned, stored and missing calls per judge, with a token and cost estimate; for a
    suite file, each study's plan under its name, then the suite's totals."""
    from judgelab.study import study_files

    files = study_files(args.study)
    totals = {"planned": 0, "stored": 0, "missing": 0}
    for path in files:
        if len(files) > 1:
            print(f"\n== {path} ==")
        for judge_counts in plan_study(path, args).values():
            for column in totals:
                totals[column] += judge_counts.get(column, 0)
    if len(files) > 1:
        print(
            f"\nsuite {args.study}: {len(files)} studies, {totals['planned']:,} calls planned, "
            f"{totals['stored']:,} stored, {totals['missing']:,} missing"
        )
    return 0


def plan_study(path: str, args: argparse.Namespace) -> dict[str, dict[str, int]]:
    """One study's plan, printed; its counts per judge."""
    import polars as pl

    from judgelab.check import check_study
    from judgelab.settings import Settings
    from judgelab.study import load_study

    study = load_study(path, sample_size=0 if args.full else args.sample_size)
    # before the stages load (and write) anything; a data file's rows are kept for the load
    notes = check_study(path, study, keep=True)
    from tasks import costs
    from tasks.judging import store

    settings = Settings()
    for note in [*notes, *study.notes()]:
        print(f"judgelab: note: {note}", file=sys.stderr)
    counts, notes, plan, lines = StudyType.named(study.type).load("stages").preview(study, settings)
    for line in lines:
        print(line)
    for note in notes:
        print(f"judgelab: note: {note}", file=sys.stderr)
    from tasks.judging.cache import calls_of, judgments_line

    # each missing call once: items with identical text share one request
    missing = calls_of(plan).join(store.done_keys(settings.store_dir), on="key", how="anti")
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
    print_frame(table)
    if (line := judgments_line(plan)) is not None:
        print(line)
    print(
        "Estimates cover the missing calls only: prompt tokens ≈ characters / 4, completion "
        "tokens = max_tokens; prices from litellm's offline table (null = unknown model)."
    )
    print(power_line(study, settings, plan["item_id"].n_unique()))
    return counts
