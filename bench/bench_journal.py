"""What the durable journal costs: per-row commit cost, and the judge stage against bare litellm.

commit:     one row made durable, N times: SQLite WAL with synchronous=NORMAL (what the journal
            uses: survives a killed process), SQLite WAL synchronous=FULL (fsync each commit:
            survives power loss) and JSON lines with fsync per row → µs wall and CPU per row.
throughput: N calls against the mock provider at C in flight, interleaved rounds of
            (a) bare `litellm.acompletion` under a semaphore, storing nothing, and
            (b) the judge stage's `run_shard` (journal, claims, compaction, parsing),
            in alternating order, after one warm-up call each
            → calls/s, CPU ms per call, and the ratio (b)/(a) per round.

.venv/bin/python bench/bench_journal.py commit --rows 5000
.venv/bin/python bench/bench_journal.py throughput --calls 3000 --concurrency 32 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()

import litellm  # noqa: E402

from judgelab.study import Judge  # noqa: E402
from judgelab.testing import mock_provider  # noqa: E402
from judgelab.testing.plan_rows import plan_rows, user_turns  # noqa: E402
from tasks.judging import journal, providers, store  # noqa: E402
from tasks.judging.scales import load_scales  # noqa: E402
from tasks.judging.shard import run_shard  # noqa: E402

KEY_ENV = "BENCH_JOURNAL_KEY"


def _row(i: int) -> dict:
    return {
        "key": f"{i:064x}",
        "model": "openai/mock-judge",
        "status": "ok",
        "score": 4.0,
        "raw": '{"score": 4}',
        "answers": '["{\\"score\\": 4}"]',
        "error": None,
        "attempts": 1,
        "latency_s": 0.2,
        "prompt_tokens": 120,
        "completion_tokens": 6,
        "cost_usd": None,
        "run_id": "bench",
        "created_at": datetime.now(UTC),
    }


def commit(rows: int) -> None:
    def timed(name: str, append) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(rows):
            append(_row(i))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{name:28s} {1e6 * wall / rows:7.0f} µs wall  {1e6 * cpu / rows:6.0f} µs CPU")

    with tempfile.TemporaryDirectory() as tmp:
        for sync in ("normal", "full"):
            book, loop = journal.Journal(Path(tmp) / sync, sync), asyncio.new_event_loop()

            def one_row(row: dict, book: journal.Journal = book, loop=loop) -> None:
                loop.run_until_complete(book.append(row))  # through the writer thread

            timed(f"sqlite wal synchronous={sync}", one_row)
            book.close()
            loop.close()
        with open(Path(tmp) / "rows.jsonl", "a") as fh:

            def jsonl(row: dict) -> None:
                fh.write(json.dumps({**row, "created_at": row["created_at"].isoformat()}) + "\n")
                fh.flush()
                os.fsync(fh.fileno())

            timed("json lines + fsync", jsonl)


def _plan(calls: int, judge: Judge) -> list[dict]:
    texts = [f"Rate text {i} from 1 to 7." for i in range(calls)]
    return plan_rows(judge, user_turns(texts), load_scales()["likert7"])


async def _bare(judge: Judge, rows: list[dict]) -> int:
    gate = asyncio.Semaphore(judge.concurrency)

    async def one(row: dict) -> None:
        async with gate:
            await litellm.acompletion(
                model=judge.model,
                messages=json.loads(row["messages"]),
                api_base=judge.api_base,
                api_key=os.environ[KEY_ENV],
                timeout=judge.timeout,
                max_tokens=judge.max_tokens,
                temperature=0,
            )

    await asyncio.gather(*(one(r) for r in rows))
    return len(rows)


def throughput(calls: int, concurrency: int, rounds: int, latency: float) -> None:
    import polars as pl

    os.environ[KEY_ENV] = "sk-bench-not-a-real-key"
    providers.register()
    print(f"{calls} calls, {concurrency} in flight, mock latency {latency} s")
    print(f"{'round':>5} {'bare litellm, CPU':>18} {'judge stage, CPU':>18} {'ratio':>6}")
    with mock_provider.running(None, latency=latency) as url:
        judge = Judge(
            name="bench",
            model="openai/mock-judge",
            api_base=url,
            api_key_env=KEY_ENV,
            concurrency=concurrency,
            timeout=30,
        )
        warm = _plan(8, judge.model_copy(update={"seed": -1}))
        asyncio.run(_bare(judge, warm))  # litellm's first call imports and builds clients
        with tempfile.TemporaryDirectory() as tmp:
            run_shard(judge, pl.DataFrame(warm), Path(tmp), 500, "warm-up")
        for r in range(rounds):
            figures = {}
            for kind in ("bare", "stage") if r % 2 == 0 else ("stage", "bare"):  # order cancels
                rows = _plan(calls, judge.model_copy(update={"seed": r}))  # fresh keys
                wall, cpu = time.perf_counter(), time.process_time()
                if kind == "bare":
                    asyncio.run(_bare(judge, rows))
                else:
                    with tempfile.TemporaryDirectory() as tmp:
                        run_shard(judge, pl.DataFrame(rows), Path(tmp), 500, "bench")
                        assert store.read_store(Path(tmp), ["key"]).height == calls
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                figures[kind] = (calls / wall, 1000 * cpu / calls)
            (b_rate, b_cpu), (s_rate, s_cpu) = figures["bare"], figures["stage"]
            bare, stage = f"{b_rate:7.1f}/s {b_cpu:5.1f} ms", f"{s_rate:7.1f}/s {s_cpu:5.1f} ms"
            print(f"{r + 1:>5} {bare:>18} {stage:>18} {s_rate / b_rate:6.2f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("commit")
    c.add_argument("--rows", type=int, default=5000)
    t = sub.add_parser("throughput")
    t.add_argument("--calls", type=int, default=3000)
    t.add_argument("--concurrency", type=int, default=32)
    t.add_argument("--rounds", type=int, default=3)
    t.add_argument("--latency", type=float, default=0.2)
    args = p.parse_args()
    if args.cmd == "commit":
        commit(args.rows)
    else:
        throughput(args.calls, args.concurrency, args.rounds, args.latency)


if __name__ == "__main__":
    main()
