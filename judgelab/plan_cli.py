"""`judgelab plan`: planned, stored and missing calls per judge with a token and cost estimate,
and the power planner's verdict on the planned sample (no calls)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from judgelab.power_cli import power_line
from judgelab.views_cli import print_frame
from tasks.study_types import StudyType  # standard library only

if TYPE_CHECKING:
    import polars as pl


def cmd_plan(args: argparse.Namespace) -> int:
    """Planned, stored and missing calls per judge, with a token and cost estimate; for a
    suite file, each study's plan under its name, then the suite's totals."""
    import polars as pl

    from judgelab.study import study_files

    files = study_files(args.study)
    totals = {"planned": 0, "stored": 0, "missing": 0}
    estimates = []
    for path in files:
        if len(files) > 1:
            print(f"\n== {path} ==")
        counts, est = plan_study(path, args)
        estimates.append(est)
        for judge_counts in counts.values():
            for column in totals:
                totals[column] += judge_counts.get(column, 0)
    if len(files) > 1:
        print(f"\nsuite {args.study}: {cost_line(pl.concat(estimates))}")
        print(
            f"suite {args.study}: {len(files)} studies, {totals['planned']:,} calls planned, "
            f"{totals['stored']:,} stored, {totals['missing']:,} missing"
        )
    return 0


def cost_line(est: pl.DataFrame) -> str:
    """The three estimated totals of the missing calls, and batch / online ('n/a': unknown)."""
    from tasks.costs import estimate_totals, usd

    t = estimate_totals(est)
    ratio = "n/a" if t["batch_ratio"] is None else f"{t['batch_ratio']:.0%} of online"
    priced = (
        "" if t["priced"] == t["judges"] else f" ({t['priced']} of {t['judges']} judges priced)"
    )
    return (
        f"estimated cost{priced}: online {usd(t['online_usd'])} · batch {usd(t['batch_usd'])} "
        f"({ratio}) · batch + cache {usd(t['batch_cache_usd'])}"
    )


def cost_table(est: pl.DataFrame) -> pl.DataFrame:
    """Per judge: the expected cache reads and the three estimated costs, as printed."""
    import polars as pl

    from tasks.costs import ESTIMATES, usd

    return est.select(
        "judge",
        *[pl.col(c).map_elements(usd, return_dtype=pl.String) for c in ESTIMATES],
        pl.col("cached_tokens").alias("est_cached_tokens"),
    ).with_columns(
        # map_elements skips nulls: an unknown price reads "n/a", never 0 or null
        pl.col(ESTIMATES).fill_null("n/a")
    )


def plan_study(
    path: str, args: argparse.Namespace
) -> tuple[dict[str, dict[str, int]], pl.DataFrame]:
    """One study's plan, printed; its counts per judge and its cost estimate (costs.estimate
    of the missing calls)."""
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
    est = costs.estimate(missing)
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
        .join(
            est.select("judge", "model", "prompt_tokens", "completion_tokens"),
            on="judge",
            how="left",
        )
        .rename(
            {"prompt_tokens": "est_prompt_tokens", "completion_tokens": "est_completion_tokens"}
        )
    )
    print_frame(table)
    if (line := judgments_line(plan)) is not None:
        print(line)
    if est.height:
        print_frame(cost_table(est))
        print(cost_line(est))
    print(
        "Estimates cover the missing calls only: prompt tokens ≈ characters / 4, completion "
        "tokens = max_tokens; prices from litellm's offline map (n/a: a model it does not "
        "list, or no batch price listed). batch_cache: after a design's first call its system "
        "prompt is read from the provider's prompt cache when at least the provider's minimum "
        "cacheable length (docs/how-to/costs.md)."
    )
    print(power_line(study, settings, plan["item_id"].n_unique()))
    return counts, est
