"""Soak the judge stage under a low descriptor limit, then stop a run with SIGTERM. Prints
figures; asserts nothing.

soak: `--calls` calls (20,000) in shards of `--shard-size` through the judge stage's shard
      runner (shard.run_shard, as stages.judge_shard runs each shard, without Prefect), all in
      one child process whose RLIMIT_NOFILE is `--nofile` (256), against the mock provider on
      127.0.0.1. Printed: the child's open descriptors after every shard (flat when no shard
      leaks sockets), its exit code and stderr lines, calls/s. The child is killed after
      `--timeout` s.
stop: `judgelab run` of a rating study against the mock (1 s latency, under the same limit,
      its own temporary Prefect server), SIGTERM once no request has arrived for 0.4 s (those
      sent are in flight) → exit code, seconds to exit, requests the mock received after the
      signal (should be 0), the run's own stop line, and the mock's request count against
      the run's (equal: nothing went out that the run did not count before its gate closed).

.venv/bin/python bench/bench_soak.py [--calls 20000] [--shard-size 500] [--nofile 256]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()

from judgelab.settings import PROJECT_ROOT  # noqa: E402
from judgelab.testing import mock_provider  # noqa: E402

KEY_ENV = "MOCK_JUDGE_KEY"


def _limit(nofile: int):
    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    return preexec


def child_shards(url: str, calls: int, shard_size: int, concurrency: int, store: str) -> None:
    """The soak's child: shards one after another in this process, one JSON line per shard."""
    import polars as pl

    from judgelab.study import Judge
    from judgelab.testing.plan_rows import plan_rows, user_turns
    from tasks.judging import providers
    from tasks.judging.scales import load_scales
    from tasks.judging.shard import run_shard

    providers.register()
    scale = load_scales()["likert7"]
    judge = Judge(
        name="soak",
        model="openai/mock-judge",
        api_base=url,
        api_key_env=KEY_ENV,
        timeout=30,
        concurrency=concurrency,
    )
    n, done, started = math.ceil(calls / shard_size), 0, time.perf_counter()
    for s in range(n):
        size = min(shard_size, calls - s * shard_size)
        texts = [f"soak shard {s} text {i}" for i in range(size)]
        todo = pl.DataFrame(plan_rows(judge, user_turns(texts), scale))
        counts, _ = run_shard(judge, todo, Path(store), 500, "soak", interval=3600)
        done += sum(counts.values())
        line = {"shard": s + 1, "of": n, "calls": done, "ok": counts.get("ok", 0)}
        line |= {"fds": len(os.listdir("/proc/self/fd")), "s": time.perf_counter() - started}
        print(json.dumps(line), flush=True)


def soak(args: argparse.Namespace) -> None:
    print(
        f"soak: {args.calls} calls in shards of {args.shard_size}, concurrency "
        f"{args.concurrency}, mock latency {args.latency} s, RLIMIT_NOFILE {args.nofile}"
    )
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock_provider.running(Path(tmp) / "requests.jsonl", latency=args.latency) as url,
    ):
        cmd = [sys.executable, __file__, "child", url, str(args.calls), str(args.shard_size)]
        cmd += [str(args.concurrency), str(Path(tmp) / "store")]
        env = {**os.environ, KEY_ENV: "sk-soak-not-a-real-key"}
        err_path = Path(tmp) / "stderr.txt"
        t0 = time.perf_counter()
        with err_path.open("w") as err:
            proc = subprocess.Popen(
                cmd, cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=err, text=True,
                preexec_fn=_limit(args.nofile),
            )  # fmt: skip
            last: dict = {}
            fds = []
            for raw in proc.stdout:
                if time.perf_counter() - t0 > args.timeout:
                    proc.kill()
                    print(f"killed after --timeout {args.timeout} s")
                    break
                last = json.loads(raw)
                fds.append(last["fds"])
                print(
                    f"shard {last['shard']:>3}/{last['of']}: {last['calls']:>6} calls, "
                    f"{last['ok']:>4} ok, open descriptors {last['fds']}",
                    flush=True,
                )
            code = proc.wait()
        wall = time.perf_counter() - t0
        received = mock_provider.read_log(Path(tmp) / "requests.jsonl")
        errors = err_path.read_text().splitlines()
    calls = last.get("calls", 0)
    print(
        f"exit code {code}; stderr {len(errors)} lines"
        + (f"; last: {errors[-1]}" if errors else "")
    )
    if fds:
        print(f"open descriptors after each shard: min {min(fds)}, max {max(fds)}")
    print(
        f"{calls} calls made ({len(received)} requests received by the mock) in {wall:.1f} s "
        f"(child start included): {calls / wall:.1f} calls/s; shards only "
        f"{calls / last['s'] if last else 0:.1f} calls/s"
    )


STUDY = """
[study]
name = "soak-stop"
task = "sentiment"
benchmark = "vader"
sample_size = 100
seed = 7
prompt_levels = ["base", "short_icl", "long_icl"]
scales = ["likert7", "bipolar3", "unit", "pct100"]
shard_size = 100

[[judges]]
name = "mock"
model = "openai/mock-judge"
api_base = "{url}"
api_key_env = "MOCK_JUDGE_KEY"
concurrency = 16
timeout = 10.0
"""


def _count(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def _quiet_moment(log: Path, at_least: int, quiet: float, proc: subprocess.Popen) -> None:
    """Until the mock has `at_least` requests and then none for `quiet` s: all in flight."""
    seen, since = _count(log), time.monotonic()
    while seen < at_least or time.monotonic() - since < quiet:
        if proc.poll() is not None:
            raise SystemExit(f"judgelab run ended before the signal (exit {proc.returncode})")
        time.sleep(0.01)
        if (n := _count(log)) != seen:
            seen, since = n, time.monotonic()


def stop(args: argparse.Namespace) -> None:
    print("\nstop: `judgelab run` (1,200 calls, concurrency 16, mock latency 1 s), SIGTERM")
    mirror = os.environ.get("JUDGELAB_DATA_MIRROR") or str(
        PROJECT_ROOT.parent / "shared" / "datasets"
    )
    with tempfile.TemporaryDirectory() as tmp:
        log, study = Path(tmp) / "requests.jsonl", Path(tmp) / "soak-stop.toml"
        with mock_provider.running(log, latency=1.0) as url:
            study.write_text(STUDY.format(url=url))
            env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
            env |= {
                "JUDGELAB_DATA_DIR": str(Path(tmp) / "data"),
                "JUDGELAB_DATA_MIRROR": mirror,
                "PREFECT_HOME": str(Path(tmp) / "prefect"),
                KEY_ENV: "sk-soak-not-a-real-key",
            }
            proc = subprocess.Popen(
                [sys.executable, "-m", "judgelab.cli", "run", str(study)],
                cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                text=True, start_new_session=True, preexec_fn=_limit(args.nofile),
            )  # fmt: skip
            _quiet_moment(log, 40, 0.4, proc)
            before, signalled, t0 = _count(log), time.time(), time.monotonic()
            os.kill(proc.pid, signal.SIGTERM)
            err = proc.communicate(timeout=60)[1]
            took = time.monotonic() - t0
            time.sleep(1.0)
            received = mock_provider.read_log(log)
            late = [r for r in received if r["t"] > signalled]
    print(f"requests before the signal: {before}")
    print(f"exit code {proc.returncode} after {took:.2f} s")
    print(f"requests the mock received after the signal: {len(late)}")
    counted = re.search(r"\((\d+) requests in all", err)
    print(
        f"requests the mock received in all: {len(received)}; sent as counted by the run: "
        f"{counted.group(1) if counted else '?'}"
    )
    for line in err.splitlines():
        if line.startswith(("judgelab: SIGTERM", "judgelab: stopped", "judgelab: recorded")):
            print(f"  {line[:160]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="mode")
    c = sub.add_parser("child")  # the soak's child process
    c.add_argument("url")
    for name in ("calls", "shard_size", "concurrency"):
        c.add_argument(name, type=int)
    c.add_argument("store")
    p.add_argument("--calls", type=int, default=20_000)
    p.add_argument("--shard-size", type=int, default=500)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--latency", type=float, default=0.05)
    p.add_argument("--nofile", type=int, default=256)
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--skip-stop", action="store_true", help="the soak only")
    args = p.parse_args()
    if args.mode == "child":
        child_shards(args.url, args.calls, args.shard_size, args.concurrency, args.store)
        return
    soak(args)
    if not args.skip_stop:
        stop(args)


if __name__ == "__main__":
    main()
