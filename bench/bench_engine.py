"""Benchmark the judge engine against the mock provider. Prints figures; asserts nothing.

compare:    the judge stage against bare `litellm.acompletion` under a semaphore (what a
            user would write instead; stock litellm, parsing and storing nothing), each run
            in a fresh process against one mock server, interleaved per C in alternating
            order, for several C and rounds → calls/s ÷ (C/L) of each and their ratio.

throughput: N calls at latency L with C in flight, through the judge stage's own
            `run_shard` (P engine processes) → calls/s, ratio to the limit C/L, engine
            CPU time per call, peak memory (RSS) of the engine processes.
rerun:      a study whose N calls are all in the store → wall time of a full
            `judgelab run` (Prefect flow: plan, store anti-join, rescale, analyze, views)
            that makes 0 calls.

.venv/bin/python bench/bench_engine.py compare --calls 5000 --concurrency 32 64 128 --rounds 2
.venv/bin/python bench/bench_engine.py throughput --calls 20000 --concurrency 32 64 128
.venv/bin/python bench/bench_engine.py rerun --calls 100000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()

import polars as pl  # noqa: E402

from judgelab.settings import PROJECT_ROOT, Settings  # noqa: E402
from judgelab.study import Judge, load_study  # noqa: E402
from judgelab.testing import mock_provider  # noqa: E402
from judgelab.testing.plan_rows import plan_rows  # noqa: E402
from tasks import warehouse  # noqa: E402
from tasks.judging import providers, store  # noqa: E402
from tasks.judging.scales import load_scales  # noqa: E402
from tasks.judging.shard import run_shard  # noqa: E402

SCALE = load_scales()["likert7"]
KEY_ENV = "MOCK_JUDGE_KEY"


def bench_rows(judge: Judge, n: int) -> pl.DataFrame:
    conversations = [
        [
            {"role": "system", "content": "Rate the sentiment from 1 to 7."},
            {"role": "user", "content": f'Text: "benchmark text number {i}"'},
        ]
        for i in range(n)
    ]
    return pl.DataFrame(plan_rows(judge, conversations, SCALE))


def _peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024


def mock_judge(url: str, concurrency: int, **fields) -> Judge:
    """The bench's judge on the mock provider (its key set in the environment)."""
    os.environ[KEY_ENV] = "sk-bench-not-a-real-key"
    return Judge(
        name="bench",
        model="openai/mock-judge",
        api_base=url,
        timeout=30,
        api_key_env=KEY_ENV,
        concurrency=concurrency,
        **fields,
    )


def throughput(calls: int, latency: float, concurrency: int, processes: int) -> dict:
    providers.register()
    with tempfile.TemporaryDirectory() as tmp, mock_provider.running(None, latency=latency) as url:
        judge = mock_judge(url, concurrency, processes=processes)
        todo = bench_rows(judge, calls)
        cpu_self, cpu_kids = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        counts, _ = run_shard(judge, todo, Path(tmp), part_rows=500, run_id="bench")
        wall = time.perf_counter() - t0
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (
            (time.process_time() - cpu_self)
            + (kids.ru_utime - cpu_kids.ru_utime)
            + (kids.ru_stime - cpu_kids.ru_stime)
        )
        rows = store.read_store(Path(tmp), ["key", "created_at"])
    span = (rows["created_at"].max() - rows["created_at"].min()).total_seconds()
    limit = concurrency / latency
    return {
        "C": concurrency,
        "P": processes,
        "calls": calls,
        "stored": rows["key"].n_unique(),
        "ok": counts.get("ok", 0),
        "rate": calls / wall,
        "steady": calls / span,
        "limit": limit,
        "cpu_ms": 1000 * cpu / calls,
        "rss": _peak_rss_mb(),
        "wall": wall,
    }


def _one_run(kind: str, url: str, calls: int, concurrency: int, seed: int) -> dict:
    """One measured run in this (fresh) process: `bare` never registers judgelab's providers,
    so litellm runs stock; `stage` is the judge stage's shard runner with its journal."""
    import litellm

    judge = mock_judge(url, concurrency, seed=seed)

    async def bare(rows: list[dict]) -> None:
        gate = asyncio.Semaphore(concurrency)

        async def one(row: dict) -> None:
            async with gate:
                await litellm.acompletion(
                    model=judge.model,
                    messages=json.loads(row["messages"]),
                    api_base=url,
                    api_key=os.environ[KEY_ENV],
                    timeout=judge.timeout,
                    max_tokens=judge.max_tokens,
                    temperature=0,
                )

        await asyncio.gather(*(one(r) for r in rows))

    def run(rows: pl.DataFrame) -> None:
        if kind == "bare":
            asyncio.run(bare(rows.to_dicts()))
            return
        with tempfile.TemporaryDirectory() as tmp:
            counts, _ = run_shard(judge, rows, Path(tmp), part_rows=500, run_id="bench")
            assert counts.get("ok", 0) == rows.height, counts

    run(bench_rows(judge.model_copy(update={"seed": -1}), 16))  # imports, clients, pools
    rows = bench_rows(judge, calls)
    wall, cpu = time.perf_counter(), time.process_time()
    run(rows)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"rate": calls / wall, "cpu_ms": 1000 * cpu / calls}


def compare(calls: int, latency: float, concurrencies: list[int], rounds: int) -> None:
    print(f"latency {latency * 1000:.0f} ms, {calls} calls a run, {os.cpu_count()} cores")
    print(
        f"{'C':>4} {'round':>5} {'bare ratio':>10} {'stage ratio':>11} {'stage/bare':>10} "
        f"{'CPU ms/call bare':>16} {'stage':>6}"
    )
    with mock_provider.running(None, latency=latency) as url:
        for r in range(rounds):
            for k, c in enumerate(concurrencies):
                got = {}
                order = ("bare", "stage") if (r + k) % 2 == 0 else ("stage", "bare")
                for kind in order:
                    out = subprocess.run(
                        [sys.executable, __file__, "one", kind, url, str(calls), str(c), str(r)],
                        cwd=PROJECT_ROOT,
                        check=True,
                        capture_output=True,
                        text=True,
                    )
                    got[kind] = json.loads(out.stdout.strip().splitlines()[-1])
                b, s = got["bare"], got["stage"]
                limit = c / latency
                print(
                    f"{c:>4} {r + 1:>5} {b['rate'] / limit:>10.2f} {s['rate'] / limit:>11.2f} "
                    f"{s['rate'] / b['rate']:>10.2f} {b['cpu_ms']:>16.2f} {s['cpu_ms']:>6.2f}",
                    flush=True,
                )


RERUN_STUDY = """
[study]
name = "bench-rerun"
task = "sentiment"
benchmark = "vader"
sample_size = {items}
seed = 1
repeats = {repeats}
prompt_levels = ["base", "short_icl", "long_icl"]
scales = ["likert7", "bipolar3", "unit", "pct100"]
shard_size = 20000

[[judges]]
name = "mock"
model = "openai/mock-judge"
api_base = "http://127.0.0.1:9/v1"   # never contacted: every call is already stored
api_key_env = "MOCK_JUDGE_KEY"        # set by this script: the run checks credentials first
"""


def stored_rows(plan: pl.DataFrame) -> pl.DataFrame:
    """A finished, `ok` store row for every planned call, with a score on the call's scale;
    the store's other columns (provenance, caching, batches) null."""
    rows = _scored_rows(plan).with_columns(pl.lit("call").alias("source"))
    rest = [pl.lit(None, t).alias(c) for c, t in store.SCHEMA.items() if c not in rows.columns]
    return rows.with_columns(rest).select(list(store.SCHEMA))


def _scored_rows(plan: pl.DataFrame) -> pl.DataFrame:
    scales = load_scales()
    ranges = pl.DataFrame(
        {
            "scale": list(scales),
            "lo": [s.min for s in scales.values()],
            "hi": [s.max for s in scales.values()],
            "step": [s.step for s in scales.values()],
        }
    )
    u = pl.col("key").str.slice(0, 4).str.to_integer(base=16) / 0xFFFF
    score = pl.col("lo") + ((u * (pl.col("hi") - pl.col("lo"))) / pl.col("step")).round() * pl.col(
        "step"
    )
    return (
        plan.select("key", "model", "scale")
        .join(ranges, on="scale")
        .with_columns(score.alias("score"))
        .with_columns(
            pl.lit("ok").alias("status"),
            pl.col("key").alias("base_key"),
            pl.lit(None, pl.String).alias("endpoint"),
            pl.concat_str(pl.lit('{"score": '), pl.col("score").cast(pl.String), pl.lit("}")).alias(
                "raw"
            ),
            pl.lit("[]").alias("answers"),
            pl.lit(None, pl.String).alias("error"),
            pl.lit(1, pl.Int64).alias("attempts"),
            pl.lit(0.2).alias("latency_s"),
            pl.lit(100, pl.Int64).alias("prompt_tokens"),
            pl.lit(6, pl.Int64).alias("completion_tokens"),
            pl.lit(None, pl.Float64).alias("cost_usd"),
            pl.lit("bench-seed").alias("run_id"),
            pl.lit(datetime(2026, 1, 1, tzinfo=UTC)).dt.cast_time_unit("us").alias("created_at"),
        )
    )


def rerun(calls: int, mirror: str | None) -> None:
    """Fill a store with `calls` finished calls of a real study, then time `judgelab run`."""
    repeats = 4
    items = -(-calls // (12 * repeats))  # ceil: at least `calls` plan rows
    with tempfile.TemporaryDirectory() as tmp:
        study_file = Path(tmp) / "rerun.toml"
        study_file.write_text(RERUN_STUDY.format(items=items, repeats=repeats))
        env = {**os.environ, "JUDGELAB_DATA_DIR": f"{tmp}/data", KEY_ENV: "sk-never-sent"}
        if mirror:
            env["JUDGELAB_DATA_MIRROR"] = mirror
        settings = Settings(data_dir=Path(tmp) / "data")
        # plan once (no calls), then store a finished answer for every planned call
        subprocess.run(
            [sys.executable, "-m", "judgelab.cli", "plan", str(study_file)],
            env=env,
            check=True,
            cwd=PROJECT_ROOT,
            capture_output=True,
        )
        plan = warehouse.read_table(settings, "plan", load_study(study_file).name)
        for chunk in stored_rows(plan.unique("key")).iter_slices(10_000):
            store.write_part(settings.store_dir, chunk)
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "judgelab.cli", "run", str(study_file)],
            env=env,
            check=True,
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - t0
        stored = store.read_store(settings.store_dir, ["key"]).height
    print(out.stdout.splitlines()[0])
    print(
        f"rerun over {stored:,} stored calls ({plan.height:,} plan rows): {wall:.1f} s wall "
        f"for the whole `judgelab run` (Prefect flow, all stages, views)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--calls", type=int, default=5_000)
    c.add_argument("--latency", type=float, default=0.2)
    c.add_argument("--concurrency", type=int, nargs="+", default=[32, 64, 128])
    c.add_argument("--rounds", type=int, default=2)
    one = sub.add_parser("one")  # one measured run in a fresh process (used by compare)
    for name in ("kind", "url"):
        one.add_argument(name)
    for name in ("calls", "concurrency", "seed"):
        one.add_argument(name, type=int)
    t = sub.add_parser("throughput")
    t.add_argument("--calls", type=int, default=20_000)
    t.add_argument("--latency", type=float, default=0.2)
    t.add_argument("--concurrency", type=int, nargs="+", default=[32, 64, 128])
    t.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    r = sub.add_parser("rerun")
    r.add_argument("--calls", type=int, default=100_000)
    r.add_argument("--mirror", default=os.environ.get("JUDGELAB_DATA_MIRROR"))
    args = p.parse_args()
    if args.mode == "one":
        print(json.dumps(_one_run(args.kind, args.url, args.calls, args.concurrency, args.seed)))
        return
    if args.mode == "compare":
        compare(args.calls, args.latency, args.concurrency, args.rounds)
        return
    if args.mode == "rerun":
        rerun(args.calls, args.mirror)
        return
    print(f"latency {args.latency * 1000:.0f} ms, {os.cpu_count()} cores; ratio = calls/s ÷ (C/L)")
    print(
        f"{'C':>4} {'P':>2} {'calls':>7} {'stored':>7} {'ok':>7} {'calls/s':>8} {'C/L':>5} "
        f"{'ratio':>6} {'steady':>7} {'CPU ms/call':>11} {'CPU cores':>9} {'peak MB':>8}"
    )
    for c in args.concurrency:
        for procs in args.processes:
            x = throughput(args.calls, args.latency, c, procs)
            print(
                f"{x['C']:>4} {x['P']:>2} {x['calls']:>7} {x['stored']:>7} {x['ok']:>7} "
                f"{x['rate']:>8.1f} {x['limit']:>5.0f} {x['rate'] / x['limit']:>6.2f} "
                f"{x['steady'] / x['limit']:>7.2f} {x['cpu_ms']:>11.2f} "
                f"{x['cpu_ms'] * x['rate'] / 1000:>9.2f} {x['rss']:>8.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
