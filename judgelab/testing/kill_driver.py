"""Run one stage of a study without Prefect, to be killed at random moments (TESTS AND BENCH).

`judge STUDY.toml`: make every judge's missing calls of a planned study (what `judgelab run`
does between `plan` and scoring), printing `judging` once calls start. `publish`: rebuild
the SQL views. Starting without Prefect saves its ~10 s server start per kill; the calls go
through the production shard runner (shard.run_shard, as stages.judge_shard does).
`accounting` turns the mock provider's request log into the figures the crash test asserts
and the benchmark prints.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import polars as pl

# A 12-design VADER rating study of one judge on a mock provider (the kill scenarios'):
# `items` texts × 3 prompt levels × 4 scales; `judge_options`, more lines of its [[judges]].
MOCK_STUDY = """
[study]
name = "{name}"
task = "sentiment"
benchmark = "vader"
sample_size = {items}
seed = 3
prompt_levels = ["base", "short_icl", "long_icl"]
scales = ["likert7", "bipolar3", "unit", "pct100"]
shard_size = 100000

[[judges]]
name = "mock"
model = "openai/mock-judge"
api_base = "{url}"
api_key_env = "MOCK_JUDGE_KEY"
timeout = 10.0
{judge_options}
"""
MOCK_KEY = "mock-judge-key-not-a-secret"  # the mocks take any key


def mock_study(url: str, items: int, name: str, judge_options: str = "") -> str:
    return MOCK_STUDY.format(url=url, items=items, name=name, judge_options=judge_options)


def judge(study_file: str) -> None:
    """Make every judge's missing calls of a planned study (`judgelab plan` wrote the plan),
    through the production shard runner; imports only what that needs (~5 s, not ~7)."""
    from judgelab.settings import Settings
    from judgelab.study import load_study
    from tasks import warehouse
    from tasks.judging import store
    from tasks.judging.cache import call_counts, missing_calls
    from tasks.judging.shard import run_shard

    settings, study = Settings(), load_study(Path(study_file))
    plan = warehouse.read_table(settings, "plan", study.name)
    done = store.done_keys(settings.store_dir)
    print("judging", flush=True)
    judges = {j.name: j for j in study.judges}
    for name, counts in call_counts(plan, done).items():
        if counts["missing"]:
            todo = missing_calls(plan, done, name, 0, 1)
            run_shard(judges[name], todo, settings.store_dir, settings.store_part_rows, "kill")


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
