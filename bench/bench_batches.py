"""Batch judges on the mock OpenAI batch provider: the figures of issue 28's "Done when".

1. rows: a 3,000-call rating study (250 texts × 12 designs) judged online and in batches
   against one mock server; the stored rows compared (keys, answers, tokens; provenance
   aside) and the judge stage's wall time in each mode.
2. kills: a 3,000-call rating study's batch judge killed -9 `--kills` times at random
   moments, then resumed (judgelab.testing.batch_kills): calls answered twice, calls lost,
   batches at the provider against chunks in the journal.
3. shared: two studies planning the same calls judged at once by two processes: batches
   created, calls answered twice.

Run: .venv/bin/python bench/bench_batches.py [--kills 20] [--items 250]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()  # litellm's offline price map, quiet Prefect: as the CLI starts

from judgelab.settings import PROJECT_ROOT, Settings  # noqa: E402
from judgelab.testing import batch_kills, mock_batches  # noqa: E402
from tasks.judging import store  # noqa: E402

ANSWER = ["key", "base_key", "model", "endpoint", "status", "score", "raw", "answers"]
ANSWER += ["error", "prompt_tokens", "completion_tokens", "source"]


def rows_part(work: Path, items: int) -> None:
    """The same study judged online and in batches against one mock server, each in a data
    directory of its own: plan, then the production judge stage (kill_driver)."""
    log = work / "rows.jsonl"
    mirror = _mirror()
    times, frames = {}, {}
    with mock_batches.running(log, delay=5.0) as url:
        for mode in ("online", "batch"):
            data = work / mode
            environ = batch_kills.env(data, mirror)
            study = batch_kills.write_study(
                work / f"{mode}.toml", url, items, 1000, name="rows", batch=mode == "batch"
            )
            plan = [sys.executable, "-m", "judgelab.cli", "plan", str(study)]
            subprocess.run(plan, env=environ, cwd=PROJECT_ROOT, check=True, capture_output=True)
            t0 = time.perf_counter()
            subprocess.run(
                batch_kills.judge_cmd(study), env=environ, cwd=PROJECT_ROOT, check=True,
                capture_output=True,
            )  # fmt: skip
            times[mode] = time.perf_counter() - t0
            store_dir = Settings(data_dir=data).store_dir
            frames[mode] = store.latest_rows(store_dir).select(ANSWER).sort("key")
    a, b = frames["online"], frames["batch"]
    paid = Counter(r["custom_id"] for r in mock_batches.read_log(log) if r["outcome"] == "ok")
    print(f"1. rows: a {a.height:,}-call study judged online and in batches (one mock server)")
    for mode, seconds in times.items():
        print(f"   {mode}: {seconds:.1f} s (judge stage, process start included)")
    print(f"   identical stored rows (keys, answers, tokens): {a.equals(b)}")
    print(f"   batch requests answered twice: {sum(n > 1 for k, n in paid.items() if k)}")


def _mirror() -> str:
    return os.environ.get("JUDGELAB_DATA_MIRROR") or str(
        PROJECT_ROOT.parent / "shared" / "datasets"
    )


def kills_part(work: Path, kills: int, items: int) -> None:
    t0 = time.perf_counter()
    out = batch_kills.scenario(
        work, kills, items, batch_size=100, delay=3.0, spread=120.0, window=8.0
    )
    print(
        f"2. kills: {out.planned:,} planned calls, batches of ≤100 taking 3–123 s each at the "
        f"mock, kill -9 ×{kills}, each 0–8 s after a run starts judging"
    )
    print(f"   kills that landed while judging: {out.kills}")
    print(f"   batches by phase at those kills, summed: {out.phases}")
    print(f"   requests answered: {out.answered:,}; paid twice: {out.paid_twice}")
    print(f"   calls lost: {out.lost}")
    print(
        f"   batches at the provider: {out.provider_batches}; in the journal: "
        f"{out.journal_batches}; journal rows with two provider batches: {out.tags_twice}"
    )
    print(f"   {time.perf_counter() - t0:.0f} s in all")


def shared_part(work: Path, items: int) -> None:
    data, log = work / "data", work / "answers.jsonl"
    environ = batch_kills.env(data, _mirror())
    with mock_batches.running(log, delay=3.0) as url:
        studies = [
            batch_kills.write_study(work / f"{n}.toml", url, items, 1000, name=n)
            for n in ("first", "second")
        ]
        for s in studies:
            cmd = [sys.executable, "-m", "judgelab.cli", "plan", str(s)]
            subprocess.run(cmd, env=environ, cwd=PROJECT_ROOT, check=True, capture_output=True)
        procs = [
            subprocess.Popen(
                batch_kills.judge_cmd(s),
                env=environ,
                cwd=PROJECT_ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for s in studies
        ]
        for p in procs:
            assert p.wait() == 0
        created = batch_kills.provider_batches(url)
    paid = Counter(r["custom_id"] for r in mock_batches.read_log(log) if r["outcome"] == "ok")
    print(f"3. shared: two studies of {len(paid):,} identical calls judged at once")
    print(f"   batches created: {len(created)} (chunks of ≤1,000: {-(-len(paid) // 1000)})")
    print(f"   calls answered twice: {sum(n > 1 for n in paid.values())}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--items", type=int, default=250)
    p.add_argument("--parts", default="rows,kills,shared", help="which parts, comma-separated")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("rows", "kills", "shared"):
            (Path(tmp) / name).mkdir()
        if "rows" in args.parts:
            rows_part(Path(tmp) / "rows", args.items)
        if "kills" in args.parts:
            kills_part(Path(tmp) / "kills", args.kills, args.items)
        if "shared" in args.parts:
            shared_part(Path(tmp) / "shared", args.items)


if __name__ == "__main__":
    main()
