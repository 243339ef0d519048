"""Run one shard of a judge's missing calls, in this process or spread over several.

One process tops out near its CPU budget per call (litellm costs ~3 ms CPU a call here),
so a judge with `processes > 1` splits its calls and its concurrency across that many
engine processes. Every finished call is committed to the journal at once and compacted into
Parquet parts in the background; a shard claims its keys first (claims.py), so two runs that
plan the same calls — two studies, two workers — make each call once.
A shard reports its counts by status and, if its engine stopped on a non-retryable provider
error, why (one halt record per engine process).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import multiprocessing as mp
import threading
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from judgelab import lifecycle
from judgelab.study import Judge
from tasks.judging import batches, claims, journal, providers, store
from tasks.judging.engine import Call, Engine
from tasks.judging.progress import Progress
from tasks.judging.scales import load_scales

log = logging.getLogger("judgelab.progress")  # printed by the CLI, like progress lines


class Compactor:
    """Moves the journal into Parquet parts in a background thread every `every` rows, so
    readers of the store (SQL views) see a running study advance; and once more at the end.
    `on_part` runs after each part it adds (the judge stage: warehouse.refresh_store_view,
    since the stg_judgments view lists the parts it reads)."""

    def __init__(
        self, store_dir: Path, every: int, on_part: Callable[[], object] | None = None
    ) -> None:
        self.store_dir, self.every, self.rows = store_dir, max(1, every), 0
        self.on_part = on_part
        self.thread: threading.Thread | None = None

    def tick(self) -> None:
        self.add(1)

    def add(self, n: int) -> None:
        """`n` rows reached the journal (one call, or a batch's answers at once)."""
        self.rows += n
        busy = self.thread is not None and self.thread.is_alive()
        if self.rows >= self.every and not busy:
            self.rows = 0
            self.thread = threading.Thread(target=self._compact, args=(False,), daemon=True)
            self.thread.start()

    def _compact(self, wait: bool) -> None:
        if store.compact_journal(self.store_dir, wait) and self.on_part is not None:
            try:
                self.on_part()
            except Exception as exc:  # the views catch up at the stage's publish
                log.warning("the views do not list the new store part yet: %s", exc)

    def close(self) -> None:
        if self.thread is not None:
            self.thread.join()
        self._compact(True)


async def _claim_and_run(
    engine: Engine,
    calls: dict[str, Call],
    lease: claims.Lease,
    store_dir: Path,
    record: Callable[[dict], Awaitable[None]],
    progress: Progress,
    poll_s: float,
    run_id: str = "",
    on_rows: Callable[[int], object] | None = None,
) -> Counter:
    """Make the calls this process can claim, online or (a batch judge's) through provider
    batches; wait for the ones another live run holds until they are done there (then skip
    them) or released unmade (then make them here)."""

    async def make(todo: list[Call]) -> Counter:
        if not batches.enabled(engine.judge):
            return await engine.run(todo, record, progress.add)

        def stored(rows: list[dict]) -> None:
            progress.note = ""  # that batch is done waiting for
            for row in rows:
                progress.add(row["status"])
            if on_rows is not None:
                on_rows(len(rows))

        return await batches.run(
            *(engine.judge, todo, lease.claim, store_dir, run_id, progress.label),
            on_wait=progress.waiting,
            on_stored=stored,
        )

    counts: Counter = Counter()
    remaining, waiting_said = list(calls), False
    while remaining and engine.halt is None:
        mine = lease.claim(remaining)
        if mine:
            done = set(store.done_keys(store_dir)["key"])  # made by another run meanwhile
            progress.made_elsewhere(len(mine & done))
            todo = [calls[k] for k in remaining if k in mine and k not in done]
            counts += await make(todo)
        remaining = [k for k in remaining if k not in mine]
        if remaining:
            if not waiting_said:
                held = "; ".join(f"{n} by {who}" for who, n in lease.holders(remaining).items())
                log.warning(
                    "%s: waiting for %d calls another run is making (%s)",
                    progress.label,
                    len(remaining),
                    held or "just released",
                )
                waiting_said = True
            await asyncio.sleep(poll_s)
    return counts


@dataclass(frozen=True)
class Lane:
    """One judge's calls (plan rows) in a shared event loop; `label` names its progress."""

    judge: Judge
    rows: list[dict]
    label: str


def _calls(rows: list[dict]) -> dict[str, Call]:
    scales = load_scales()
    return {
        r["key"]: Call(
            key=r["key"],
            base_key=r["base_key"],
            messages=json.loads(r["messages"]),
            params=json.loads(r["params"]),
            scale=scales[r["scale"]],
        )
        for r in rows
    }


def run_lanes(
    lanes: list[Lane],
    store_dir: Path,
    part_rows: int,
    run_id: str,
    interval: float = 30.0,
    sync: journal.Sync = "normal",
    poll_s: float = 1.0,
    on_part: Callable[[], object] | None = None,
) -> list[tuple[dict[str, int], dict | None]]:
    """Run every lane's judge at once in one event loop, each with its own engine (limiter,
    rpm/tpm buckets, halt) and claims; → per lane, counts by status and its halt record.
    One loop, not a thread per judge: litellm's logging worker is bound to one loop."""
    providers.register()
    for lane in lanes:
        providers.warm_up(lane.judge.model)
    engines = [Engine(lane.judge, run_id) for lane in lanes]
    progress = [Progress(lane.label, len(lane.rows), interval) for lane in lanes]
    book = journal.Journal(store_dir, sync)
    compactor = Compactor(store_dir, part_rows, on_part)

    async def record(row: dict) -> None:
        await book.append(row)  # committed before this worker takes its next call
        compactor.tick()

    for lane in lanes:
        if lane.judge.batch and not batches.enabled(lane.judge):
            log.warning(
                "%s: litellm has no batch API for %s here; its calls go online",
                lane.label,
                lane.judge.model,
            )

    async def all_lanes(leases: list[claims.Lease]) -> list[Counter]:
        # litellm runs part of each acompletion in the loop's default thread pool (6 threads
        # on 2 cores); size it to the in-flight ceiling so that hop never queues calls.
        ceiling = sum(lane.judge.concurrency for lane in lanes)
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=ceiling + 4, thread_name_prefix="judge")
        )
        runs = zip(engines, lanes, leases, progress, strict=True)
        try:
            return await asyncio.gather(
                *(
                    _claim_and_run(
                        *(e, _calls(lane.rows), lease, store_dir, record, p, poll_s, run_id),
                        on_rows=compactor.add,
                    )
                    for e, lane, lease, p in runs
                )
            )
        finally:  # litellm keeps this loop's HTTP clients (and their sockets) otherwise
            await providers.close_loop_clients()

    try:
        with ExitStack() as stack:
            leases = [
                stack.enter_context(claims.Lease(store_dir, claims.Owner(lane.label)))
                for lane in lanes
            ]
            counts = asyncio.run(all_lanes(leases))
        return [(dict(c), e.halt) for c, e in zip(counts, engines, strict=True)]
    finally:
        compactor.close()
        book.close()
        for p in progress:
            p.close()


def _run_slice(
    judge: Judge,
    rows: list[dict],
    store_dir: Path,
    part_rows: int,
    run_id: str,
    label: str = "",
    interval: float = 30.0,
    poll_s: float = 1.0,
    on_part: Callable[[], object] | None = None,
) -> tuple[dict[str, int], dict | None]:
    lane = Lane(judge, rows, label or judge.name)
    return run_lanes(
        [lane], store_dir, part_rows, run_id, interval, poll_s=poll_s, on_part=on_part
    )[0]


def plan_rows(todo: pl.DataFrame) -> list[dict]:
    """The plan columns a call is made from, as rows."""
    return todo.select("key", "base_key", "messages", "params", "scale").to_dicts()


def run_shard(
    judge: Judge,
    todo: pl.DataFrame,
    store_dir: Path,
    part_rows: int,
    run_id: str,
    label: str = "",
    interval: float = 30.0,
    on_part: Callable[[], object] | None = None,
) -> tuple[Counter, list[dict]]:
    """Make the calls in `todo` (plan rows); returns counts by final status and the halt
    records of engines that stopped on a non-retryable error. Progress lines are labelled
    `label`; `on_part` runs after each store part written (Compactor)."""
    rows = plan_rows(todo)
    # llama.cpp in-process is one model instance: local judges always use one process.
    n = 1 if judge.model.startswith("local/") else min(judge.processes, len(rows))
    if n <= 1:
        counts, halt = _run_slice(
            judge, rows, store_dir, part_rows, run_id, label, interval, on_part=on_part
        )
        return Counter(counts), [halt] if halt else []
    part = judge.model_copy(update={"concurrency": math.ceil(judge.concurrency / n)})
    counts: Counter = Counter()
    halts: list[dict] = []
    ctx = mp.get_context("spawn")
    with (
        lifecycle.gate().share(ctx) as gate,  # a stop signal here stops them too
        ProcessPoolExecutor(n, ctx, initializer=lifecycle.join_gate, initargs=gate) as pool,
    ):
        futures = [
            pool.submit(
                _run_slice,
                *(part, rows[i::n], store_dir, part_rows, run_id),
                f"{label or judge.name} · process {i + 1}/{n}",
                interval,
                on_part=on_part,
            )
            for i in range(n)
        ]
        for f in futures:
            part_counts, halt = f.result()
            counts.update(part_counts)
            halts += [halt] if halt else []
    return counts, halts
