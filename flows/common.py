"""Wiring shared by the study flows: the sharded judge stage."""

from __future__ import annotations

import math

from judgelab.settings import Settings
from judgelab.study import Study
from tasks import stages


def judge_all(
    study: Study,
    settings: Settings,
    before: dict[str, dict[str, int]],
    run_id: str,
    part: str | None = None,
) -> dict[str, dict[str, int]]:
    """Run each judge's missing calls in shards (one Prefect task per shard); counts by status.
    `part` names the plan part (default: the study's)."""
    made: dict[str, dict[str, int]] = {}
    for judge, counts in before.items():
        n_shards = max(1, math.ceil(counts["missing"] / study.shard_size))
        for shard in range(n_shards if counts["missing"] else 0):
            result = stages.judge_shard(study, settings, judge, shard, n_shards, run_id, part)
            for status, n in result.items():
                made.setdefault(judge, {}).setdefault(status, 0)
                made[judge][status] += n
    return made
