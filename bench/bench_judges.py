"""Judges at once: a study's K hosted judges against their slowest judge alone.

K mock providers, one per judge, with latencies spread from 100 to 400 ms, concurrency C
each, N calls per judge. Interleaved rounds of (a) the slowest judge alone and (b) all K
judges together through the judge stage's `run_lanes` (what `judgelab run` does on the local
runner: one event loop, each judge its own limiter and claims). Printed: wall time of each and
the ratio together / slowest alone (1.0 = the other judges cost nothing), and the sum of
the K judges' ideal times (what running them one after another would cost at least).

.venv/bin/python bench/bench_judges.py [--judges 5] [--calls 400] [--concurrency 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()

from judgelab.study import Judge  # noqa: E402
from judgelab.testing import mock_provider  # noqa: E402
from judgelab.testing.plan_rows import plan_rows, user_turns  # noqa: E402
from tasks.judging.scales import load_scales  # noqa: E402
from tasks.judging.shard import Lane, run_lanes  # noqa: E402

KEY_ENV = "BENCH_JUDGES_KEY"


def _rows(judge: Judge, calls: int, salt: str) -> list[dict]:
    texts = [f"Rate text {i} ({salt}) from 1 to 7." for i in range(calls)]
    return plan_rows(judge, user_turns(texts), load_scales()["likert7"])


def _timed(lanes: list[Lane]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        results = run_lanes(lanes, Path(tmp), 500, "bench")
        wall = time.perf_counter() - t0
    made = sum(sum(counts.values()) for counts, _ in results)
    assert made == sum(len(lane.rows) for lane in lanes), "calls went missing"
    return wall


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--judges", type=int, default=5)
    p.add_argument("--calls", type=int, default=400)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    os.environ[KEY_ENV] = "sk-bench-not-a-real-key"
    k = args.judges
    latencies = [0.1 + 0.3 * i / max(k - 1, 1) for i in range(k)]
    with ExitStack() as stack:
        urls = [stack.enter_context(mock_provider.running(None, latency=lat)) for lat in latencies]
        judges = [
            Judge(
                name=f"j{i}",
                model=f"openai/mock-{i}",
                api_base=url,
                api_key_env=KEY_ENV,
                concurrency=args.concurrency,
                timeout=30,
            )
            for i, url in enumerate(urls)
        ]
        ideal = [args.calls * lat / args.concurrency for lat in latencies]
        print(
            f"{k} judges, {args.calls} calls each, C={args.concurrency} each, latencies "
            f"{', '.join(f'{lat * 1000:.0f}' for lat in latencies)} ms"
        )
        print(f"ideal: slowest judge {max(ideal):.1f} s; one after another ≥ {sum(ideal):.1f} s")
        print(f"{'round':>5} {'slowest alone':>14} {'all together':>13} {'ratio':>6}")
        for r in range(args.rounds):
            slowest = judges[-1]
            alone = _timed([Lane(slowest, _rows(slowest, args.calls, f"a{r}"), "alone")])
            lanes = [Lane(j, _rows(j, args.calls, f"t{r}"), j.name) for j in judges]
            together = _timed(lanes)
            print(f"{r + 1:>5} {alone:12.1f} s {together:11.1f} s {together / alone:6.2f}")


if __name__ == "__main__":
    main()
