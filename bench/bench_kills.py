"""kill -9 in the judge stage, over and over: what a kill costs in paid requests.

A 3,000-call rating study (250 items × 3 prompt levels × 4 scales) against the mock provider
at concurrency 16 and 0.2 s latency; the judge stage (kill_driver: the production stage
without Prefect) is killed at a random moment after its first request, `--kills` times, then
run to the end. Printed: requests the provider received, calls it answered more than once
(paid twice), planned calls never stored (lost), and paid twice per kill against the bound
(the calls in flight, ≤ concurrency).

Run: .venv/bin/python bench/bench_kills.py [--kills 20] [--items 250] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.testing import mock_provider
from judgelab.testing.kill_driver import MOCK_KEY, accounting, accounting_digests, mock_study
from tasks import warehouse
from tasks.judging import store


def _mirror() -> str:
    shared = PROJECT_ROOT.parent / "shared" / "datasets"
    return os.environ.get("JUDGELAB_DATA_MIRROR") or str(shared)


def _lines(log: Path) -> int:
    return len(mock_provider.read_log(log)) if log.exists() else 0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--items", type=int, default=250)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--latency", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        data, log, study = Path(tmp) / "data", Path(tmp) / "requests.jsonl", Path(tmp) / "k.toml"
        env = {
            **os.environ,
            "JUDGELAB_DATA_DIR": str(data),
            "JUDGELAB_DATA_MIRROR": _mirror(),
            "MOCK_JUDGE_KEY": MOCK_KEY,
        }
        cmd = [sys.executable, "-m", "judgelab.testing.kill_driver", "judge", str(study)]
        landed, starts, after = 0, [], []  # after each kill: (log length, keys done)
        with mock_provider.running(log, latency=args.latency) as url:
            options = f"concurrency = {args.concurrency}"
            study.write_text(mock_study(url, args.items, "kills", options))
            plan_cmd = [sys.executable, "-m", "judgelab.cli", "plan", str(study)]
            subprocess.run(plan_cmd, env=env, cwd=PROJECT_ROOT, check=True, capture_output=True)
            for _ in range(args.kills):
                n_before, t0 = _lines(log), time.perf_counter()
                proc = subprocess.Popen(
                    cmd, env=env, cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, start_new_session=True,
                )  # fmt: skip
                while _lines(log) == n_before and proc.poll() is None:
                    time.sleep(0.02)
                starts.append(time.perf_counter() - t0)
                time.sleep(rng.uniform(0.0, 2.0))
                if proc.poll() is None:
                    landed += 1
                    os.killpg(proc.pid, signal.SIGKILL)
                elif proc.returncode:
                    raise SystemExit(f"the judge stage failed (exit {proc.returncode})")
                proc.wait()
                done = store.done_keys(Settings(data_dir=data).store_dir)["key"]
                after.append((_lines(log), set(done)))
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, cwd=PROJECT_ROOT, check=True, capture_output=True)
            last = time.perf_counter() - t0
        settings = Settings(data_dir=data)
        plan = warehouse.read_table(settings, "plan", "kills")
        stored = set(store.read_store(settings.store_dir, ["key"])["key"])
        requests = mock_provider.read_log(log)
        figures = accounting(plan, requests, stored)
        # what each kill threw away: calls answered `ok` before it and not durable after it
        digest = dict(zip(plan["key"], accounting_digests(plan), strict=True))
        per_kill = []
        for n_log, done in after:
            paid = {r["messages"] for r in requests[:n_log] if r["outcome"] == "ok"}
            per_kill.append(len(paid - {digest[k] for k in done}))
    calls = plan["key"].n_unique()
    print(f"{calls} planned calls, concurrency {args.concurrency}, latency {args.latency} s")
    print(f"kills: {args.kills} ({landed} while the judge stage was running)")
    print(f"requests received: {figures['requests']}")
    twice = figures["paid_twice"] / max(landed, 1)
    bound = args.concurrency
    print(f"paid twice: {figures['paid_twice']} ({twice:.1f} per kill; bound ≤ {bound})")
    print(f"paid but not durable at a kill: max {max(per_kill)}, mean {mean(per_kill):.1f}")
    print(f"lost: {figures['lost']}")
    print(f"start to first request: median {sorted(starts)[len(starts) // 2]:.1f} s")
    print(f"final run to the end: {last:.1f} s")


if __name__ == "__main__":
    main()
