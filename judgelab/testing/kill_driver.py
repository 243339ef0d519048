"""Run one stage of a study without Prefect, to be killed at random moments (TESTS AND BENCH).

`judge STUDY.toml`: load, plan and make every judge's missing calls (what `judgelab run`
does before scoring), printing `judging` once calls start. `publish`: rebuild the SQL views.
Starting without Prefect saves its ~10 s server start per kill; the judge stage itself is the
production one (stages.judge_shard). `accounting` turns the mock provider's request log into
the figures the crash test asserts and the benchmark prints.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import polars as pl


def judge(study_file: str) -> None:
    from judgelab.settings import Settings
    from judgelab.study import load_study
    from tasks import stages, warehouse
    from tasks.judging import store

    settings, study = Settings(), load_study(Path(study_file))
    stages.load_benchmark.fn(study, settings)
    stages.make_plan.fn(study, settings)
    plan = warehouse.read_table(settings, "plan", study.name)
    before = stages.call_counts(plan, store.done_keys(settings.store_dir))
    print("judging", flush=True)
    for j, counts in before.items():
        if counts["missing"]:
            stages.judge_shard.fn(study, settings, j, 0, 1, "kill-driver")


def publish() -> None:
    from judgelab.settings import Settings
    from tasks import warehouse

    warehouse.publish_views(Settings())
    print("published", flush=True)


def accounting_digests(plan: pl.DataFrame) -> list[str]:
    """The hash the mock logs for each plan row's messages, in plan order."""
    from judgelab.testing.mock_provider import messages_hash

    return [messages_hash(json.loads(m)) for m in plan["messages"]]


def accounting(plan: pl.DataFrame, requests: list[dict], stored: set[str]) -> dict[str, int]:
    """Per planned call, how often the mock answered it `ok` (a paid request): requests
    received, calls paid more than once (extra paid requests), and planned calls never stored."""
    plan = plan.unique("key")
    digest = dict(zip(plan["key"], accounting_digests(plan), strict=True))
    paid = Counter(r["messages"] for r in requests if r["outcome"] == "ok")
    return {
        "requests": len(requests),
        "paid_twice": sum(max(0, paid[d] - 1) for d in digest.values()),
        "lost": len(set(digest) - stored),
    }


if __name__ == "__main__":
    from judgelab.env import apply_defaults

    apply_defaults()  # offline litellm, quiet Prefect: as the CLI runs
    {"judge": lambda: judge(sys.argv[2]), "publish": publish}[sys.argv[1]]()
