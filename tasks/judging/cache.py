"""The cache's arithmetic: what a plan still needs from the judges (planned / stored /
missing calls), how many shards a judge's missing calls make, and a shard's calls.

Pure functions of the plan and the done keys (store.done_keys); the judge stage, `plan` and
the crash tests' kill driver share them. The rest of the cache: keys.py (what a call is),
store.py and journal.py (what is done), claims.py (who is making it now).
"""

from __future__ import annotations

import math

import polars as pl


def calls_of(plan: pl.DataFrame) -> pl.DataFrame:
    """The calls a plan makes: one per judge and key. A plan row is a judgment (item × design ×
    repeat); items with identical text send the same request, asked once."""
    return plan.unique(["judge", "key"], maintain_order=True)


def judgments_line(plan: pl.DataFrame) -> str | None:
    """What `judgelab plan` says when judgments outnumber calls (the report's "What ran" shows
    both), so "N planned" and a count of items × designs are not taken for each other."""
    n_calls = calls_of(plan).height
    if n_calls == plan.height:
        return None
    return (
        f"{plan.height:,} judgments (item × design × repeat) from {n_calls:,} calls: "
        f"{plan.height - n_calls:,} share the call of an identical text (one request, its "
        "answer used for each); planned, stored and missing count calls."
    )


def call_counts(plan: pl.DataFrame, done: pl.DataFrame) -> dict[str, dict[str, int]]:
    plan = calls_of(plan)
    stored = plan.join(done, on="key", how="semi").group_by("judge").len()
    stored = dict(stored.iter_rows())
    return {
        judge: {"planned": n, "stored": stored.get(judge, 0), "missing": n - stored.get(judge, 0)}
        for judge, n in plan.group_by("judge", maintain_order=True).len().iter_rows()
    }


def missing_calls(
    plan: pl.DataFrame, done: pl.DataFrame, judge: str, shard: int, n_shards: int
) -> pl.DataFrame:
    """This shard's calls of one judge that the store does not hold yet, calls that share a
    prompt prefix back to back: a local llama.cpp judge then evaluates a long system prompt
    once per group, not once per call (0.23 s against 1.9–3.1 s per call with two system
    prompts alternating). Sorting the messages' JSON text does it: strings that share a
    prefix sort next to each other, so do calls whose first messages are equal. A shard is
    a contiguous range of that order over the judge's whole plan (not of what is missing,
    so shards never overlap whatever is stored), so it holds few prompts, each once."""
    calls = plan.filter(pl.col("judge") == judge).unique("key").sort("messages", "key")
    position = pl.int_range(pl.len(), dtype=pl.Int64) * n_shards // pl.len()
    return calls.filter(position == shard).join(done, on="key", how="anti", maintain_order="left")


def n_shards(missing: int, shard_size: int) -> int:
    """Shards a judge's missing calls make (Prefect tasks of at most `shard_size` calls)."""
    return max(1, math.ceil(missing / shard_size))
