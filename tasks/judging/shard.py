"""Run one shard of a judge's missing calls, in this process or spread over several.

One process tops out near its CPU budget per call (litellm costs ~3 ms CPU a call here),
so a judge with `processes > 1` splits its calls and its concurrency across that many
engine processes. Each writes its own part files; keys are disjoint, so nothing is sent twice.
A shard reports its counts by status and, if its engine stopped on a non-retryable provider
error, why (one halt record per engine process).
"""

from __future__ import annotations

import asyncio
import json
import math
import multiprocessing as mp
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import polars as pl

from judgelab.study import Judge
from tasks.judging import providers, store
from tasks.judging.engine import Call, Engine
from tasks.judging.progress import Progress
from tasks.judging.scales import load_scales


def _run_slice(
    judge: Judge,
    rows: list[dict],
    store_dir: Path,
    batch_rows: int,
    run_id: str,
    label: str = "",
    interval: float = 30.0,
) -> tuple[dict[str, int], dict | None]:
    providers.register()
    providers.warm_up(judge.model)
    scales = load_scales()
    calls = [
        Call(
            key=r["key"],
            messages=json.loads(r["messages"]),
            params=json.loads(r["params"]),
            scale=scales[r["scale"]],
        )
        for r in rows
    ]

    def flush(batch: list[dict]) -> None:
        store.write_part(store_dir, store.rows_to_frame(batch))

    progress = Progress(label or judge.name, len(calls), interval)
    engine = Engine(judge, run_id)
    try:
        counts = asyncio.run(engine.run(calls, flush, batch_rows, progress.add))
        return dict(counts), engine.halt
    finally:
        progress.close()


def run_shard(
    judge: Judge,
    todo: pl.DataFrame,
    store_dir: Path,
    batch_rows: int,
    run_id: str,
    label: str = "",
    interval: float = 30.0,
) -> tuple[Counter, list[dict]]:
    """Make the calls in `todo` (plan rows); returns counts by final status and the halt
    records of engines that stopped on a non-retryable error. Progress lines are labelled
    `label`."""
    rows = todo.select("key", "messages", "params", "scale").to_dicts()
    # llama.cpp in-process is one model instance: local judges always use one process.
    n = 1 if judge.model.startswith("local/") else min(judge.processes, len(rows))
    if n <= 1:
        counts, halt = _run_slice(judge, rows, store_dir, batch_rows, run_id, label, interval)
        return Counter(counts), [halt] if halt else []
    part = judge.model_copy(update={"concurrency": math.ceil(judge.concurrency / n)})
    counts: Counter = Counter()
    halts: list[dict] = []
    with ProcessPoolExecutor(n, mp_context=mp.get_context("spawn")) as pool:
        futures = [
            pool.submit(
                _run_slice,
                *(part, rows[i::n], store_dir, batch_rows, run_id),
                f"{label or judge.name} · process {i + 1}/{n}",
                interval,
            )
            for i in range(n)
        ]
        for f in futures:
            part_counts, halt = f.result()
            counts.update(part_counts)
            halts += [halt] if halt else []
    return counts, halts
