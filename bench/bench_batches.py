"""Batch judges on the mock OpenAI batch provider: the figures of issue 28's "Done when".

1. rows: a 3,000-call set (250 texts × 12 designs' worth of distinct prompts) made online and
   in batches against one mock server; the stored rows compared (keys, answers, tokens;
   provenance aside) and the wall time of each.
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

os.environ.setdefault("MOCK_JUDGE_KEY", "sk-batch-kills")

from judgelab.settings import PROJECT_ROOT
from judgelab.study import Judge
from judgelab.testing import batch_kills, mock_batches
from judgelab.testing.plan_rows import plan_rows, user_turns
from tasks.judging import store
from tasks.judging.scales import load_scales
from tasks.judging.shard import Lane, run_lanes

ANSWER = ["key", "base_key", "model", "endpoint", "status", "score", "raw", "answers"]
ANSWER += ["error", "prompt_tokens", "completion_tokens", "source"]


def rows_part(work: Path, n: int) -> None:
    scales = load_scales()
    log = work / "rows.jsonl"
    with mock_batches.running(log, delay=5.0) as url:
        times = {}
        for mode in ("online", "batch"):
            judge = Judge(
                name="mock", model="openai/mock-judge", api_base=url, api_key_env="MOCK_JUDGE_KEY",
                batch=mode == "batch", batch_size=1000, batch_poll_s=0.5, concurrency=16,
            )  # fmt: skip
            rows = []
            for scale in ("likert7", "bipolar3", "unit", "pct100"):
                texts = [f"text {i} on {scale}" for i in range(n // 4)]
                rows += plan_rows(judge, user_turns(texts), scales[scale])
            t0 = time.perf_counter()
            [(counts, _)] = run_lanes([Lane(judge, rows, mode)], work / mode, 500, mode)
            times[mode] = (time.perf_counter() - t0, counts)
    a = store.latest_rows(work / "online").select(ANSWER).sort("key")
    b = store.latest_rows(work / "batch").select(ANSWER).sort("key")
    paid = Counter(r["custom_id"] for r in mock_batches.read_log(log) if r["outcome"] == "ok")
    print(f"1. rows: {a.height:,} calls online, {b.height:,} in batches")
    for mode, (seconds, counts) in times.items():
        print(f"   {mode}: {seconds:.1f} s, {dict(counts)}")
    print(f"   identical stored rows (keys, answers, tokens): {a.equals(b)}")
    print(f"   batch requests answered twice: {sum(n > 1 for k, n in paid.items() if k)}")


def kills_part(work: Path, kills: int, items: int) -> None:
    t0 = time.perf_counter()
    out = batch_kills.scenario(work, kills, items, batch_size=1000, delay=3.0)
    print(f"2. kills: {out.planned:,} planned calls, batches of ≤1,000, kill -9 ×{kills}")
    print(f"   kills that landed while judging: {out.kills}")
    print(f"   requests answered: {out.answered:,}; paid twice: {out.paid_twice}")
    print(f"   calls lost: {out.lost}")
    print(
        f"   batches at the provider: {out.provider_batches}; in the journal: "
        f"{out.journal_batches}; journal rows with two provider batches: {out.tags_twice}"
    )
    print(f"   {time.perf_counter() - t0:.0f} s in all")


def shared_part(work: Path, items: int) -> None:
    mirror = os.environ.get("JUDGELAB_DATA_MIRROR") or str(
        PROJECT_ROOT.parent / "shared" / "datasets"
    )
    data, log = work / "data", work / "answers.jsonl"
    environ = batch_kills.env(data, mirror)
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
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("rows", "kills", "shared"):
            (Path(tmp) / name).mkdir()
        rows_part(Path(tmp) / "rows", args.items * 12)
        kills_part(Path(tmp) / "kills", args.kills, args.items)
        shared_part(Path(tmp) / "shared", args.items)


if __name__ == "__main__":
    main()
