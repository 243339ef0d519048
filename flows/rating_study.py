"""Rating-study flows: load → plan → judge (sharded) → score → analyze → agreement → views."""

from __future__ import annotations

import math
from pathlib import Path

from prefect import flow
from prefect.runtime import flow_run

from judgelab.settings import Settings
from judgelab.study import load_study, study_files
from tasks import stages


@flow(name="rating-study")
def rating_study(study_file: str, sample_size: int | None = None) -> dict:
    """Run one rating study end to end; returns call counts before and calls made now."""
    settings = Settings()
    study = load_study(Path(study_file), sample_size=sample_size)
    run_id = flow_run.get_id() or "local"
    stages.load_benchmark(study, settings)
    before = stages.make_plan(study, settings)
    made: dict[str, dict[str, int]] = {}
    for judge, counts in before.items():
        n_shards = max(1, math.ceil(counts["missing"] / study.shard_size))
        for shard in range(n_shards if counts["missing"] else 0):
            result = stages.judge_shard(study, settings, judge, shard, n_shards, run_id)
            for status, n in result.items():
                made.setdefault(judge, {}).setdefault(status, 0)
                made[judge][status] += n
    stages.rescale_stage(study, settings)
    stages.analyze_stage(study, settings)
    stages.agreement_stage(study, settings)
    stages.cost_stage(study, settings)
    views = stages.publish_stage(settings)
    return {
        "study": study.name,
        "run_id": str(run_id),
        "before": before,
        "made": made,
        "views": views,
    }


@flow(name="reparse-study")
def reparse_study(study_file: str) -> dict:
    """Re-parse stored answers and rebuild every table after the judge stage; no model calls."""
    settings = Settings()
    study = load_study(Path(study_file))
    result = stages.reparse_stage(study, settings)
    stages.rescale_stage(study, settings)
    stages.analyze_stage(study, settings)
    stages.agreement_stage(study, settings)
    stages.cost_stage(study, settings)
    stages.publish_stage(settings)
    return result


@flow(name="rating-suite")
def rating_suite(suite_file: str, sample_size: int | None = None) -> list[dict]:
    """Run every study a suite file lists (each a `rating-study` subflow), in order."""
    return [
        rating_study(study_file=str(path), sample_size=sample_size)
        for path in study_files(suite_file)
    ]
