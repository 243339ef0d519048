"""The study's stages as Prefect tasks: read tables, call a pure transform, write tables.

Tasks return small summaries or counts, never big frames. The judge stage runs in shards
(one Prefect task per shard of calls, never one per call).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging

import polars as pl
from prefect import task

from judgelab.settings import Settings
from judgelab.study import Study, StudyError
from tasks import rescale, stats, warehouse
from tasks.benchmarks import vader
from tasks.judging import providers, store
from tasks.judging.engine import Call, Engine
from tasks.judging.scales import load_scales
from tasks.plan import build_plan, sample_items
from tasks.sources import extract_tar, fetch

log = logging.getLogger("judgelab")


@task(name="load-benchmark")
def load_benchmark(study: Study, settings: Settings) -> int:
    """Fetch (checksum-verified) and load the benchmark into `items` and `ratings`."""
    (archive,) = fetch([study.benchmark], settings)
    folder = extract_tar(archive, settings.raw_dir / "vader" / "extracted") / vader.ARCHIVE_DIR
    items, ratings = vader.load(folder)
    warehouse.write_table(settings, items, "items", study.benchmark)
    warehouse.write_table(settings, ratings, "ratings", study.benchmark)
    return items.height


@task(name="plan")
def make_plan(study: Study, settings: Settings) -> dict[str, dict[str, int]]:
    """Expand the study into its plan and report planned / stored / missing calls per judge."""
    scales = load_scales()
    unknown = sorted(set(study.scales) - set(scales))
    if unknown:
        raise StudyError(f"unknown scale(s) {unknown}; known scales: {sorted(scales)}")
    items = sample_items(
        warehouse.read_table(settings, "items", study.benchmark), study.sample_size, study.seed
    )
    plan = build_plan(study, items, scales)
    warehouse.write_table(settings, plan, "plan", study.name)
    store.ensure_store(settings.store_dir)
    return call_counts(plan, store.done_keys(settings.store_dir))


def call_counts(plan: pl.DataFrame, done: pl.DataFrame) -> dict[str, dict[str, int]]:
    stored = plan.join(done, on="key", how="semi").group_by("judge").len()
    stored = dict(stored.iter_rows())
    return {
        judge: {"planned": n, "stored": stored.get(judge, 0), "missing": n - stored.get(judge, 0)}
        for judge, n in plan.group_by("judge", maintain_order=True).len().iter_rows()
    }


def shard_of(key: str, n_shards: int) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % n_shards


def missing_calls(
    plan: pl.DataFrame, done: pl.DataFrame, judge: str, shard: int, n_shards: int
) -> pl.DataFrame:
    """This shard's calls of one judge that the store does not hold yet (plan order kept,
    so calls sharing a prompt prefix stay together)."""
    todo = plan.filter(pl.col("judge") == judge).join(
        done, on="key", how="anti", maintain_order="left"
    )
    return todo.filter(
        pl.col("key").map_elements(lambda k: shard_of(k, n_shards), return_dtype=pl.Int64) == shard
    )


@task(name="judge-shard")
def judge_shard(
    study: Study, settings: Settings, judge_name: str, shard: int, n_shards: int, run_id: str
) -> dict[str, int]:
    """Make this shard's missing calls; results reach the store in small atomic batches."""
    providers.register()
    judge = next(j for j in study.judges if j.name == judge_name)
    scales = load_scales()
    plan = warehouse.read_table(settings, "plan", study.name)
    todo = missing_calls(plan, store.done_keys(settings.store_dir), judge_name, shard, n_shards)
    if todo.is_empty():
        return {}
    providers.warm_up(judge.model)
    calls = [
        Call(
            key=r["key"],
            messages=json.loads(r["messages"]),
            params=json.loads(r["params"]),
            scale=scales[r["scale"]],
        )
        for r in todo.iter_rows(named=True)
    ]

    def flush(rows: list[dict]) -> None:
        store.write_part(settings.store_dir, store.rows_to_frame(rows))

    counts = asyncio.run(Engine(judge, run_id).run(calls, flush, settings.store_batch_rows))
    return dict(counts)


@task(name="rescale")
def rescale_stage(study: Study, settings: Settings) -> int:
    plan = warehouse.read_table(settings, "plan", study.name)
    judgments = store.latest(store.read_store(settings.store_dir))
    items = warehouse.read_table(settings, "items", study.benchmark)
    scores = rescale.rescale_scores(plan, judgments, items, load_scales())
    warehouse.write_table(settings, scores, "scores", study.name)
    return scores.height


@task(name="analyze")
def analyze_stage(study: Study, settings: Settings) -> int:
    metrics = stats.rating_metrics(warehouse.read_table(settings, "scores", study.name))
    warehouse.write_table(settings, metrics, "rating_metrics", study.name)
    return metrics.height


@task(name="publish-views")
def publish_stage(settings: Settings) -> list[str]:
    return warehouse.publish_views(settings)
