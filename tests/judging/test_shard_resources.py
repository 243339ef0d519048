"""What a shard leaves behind and what a stop lets through, against the mock HTTP provider:
no sockets once a shard ends (litellm caches a client per event loop, and every shard runs
its own loop), and no request after the process's gate closes (lifecycle.Gate)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import polars as pl

from judgelab import lifecycle
from judgelab.study import Judge
from judgelab.testing import mock_provider
from judgelab.testing.plan_rows import plan_rows, user_turns
from tasks.judging import providers
from tasks.judging.engine import Call, Engine
from tasks.judging.scales import load_scales
from tasks.judging.shard import _calls, run_shard

SCALE = load_scales()["likert7"]


def _judge(url: str, concurrency: int) -> Judge:
    return Judge(
        name="mock",
        model="openai/mock-judge",
        api_base=url,
        api_key_env="MOCK_JUDGE_KEY",
        timeout=10.0,
        concurrency=concurrency,
    )


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_shards_leave_no_sockets_open(tmp_path: Path, monkeypatch) -> None:
    """Five shards in one process at 16 in flight: the descriptor count after the last is
    that after the first (before the fix it grew by about 16 sockets a shard)."""
    monkeypatch.setenv("MOCK_JUDGE_KEY", "sk-mock")
    with mock_provider.running(None, latency=0.01) as url:
        judge = _judge(url, concurrency=16)
        after = []
        for shard in range(5):
            texts = [f"shard {shard} text {i}" for i in range(48)]
            todo = pl.DataFrame(plan_rows(judge, user_turns(texts), SCALE))
            counts, _ = run_shard(judge, todo, tmp_path / "store", 100, "run-fds")
            assert counts == {"ok": 48}
            after.append(open_fds())
    assert after[-1] - after[0] <= 3, after


def test_a_closed_gate_lets_no_call_and_no_request_start(tmp_path: Path, monkeypatch) -> None:
    """The gate closes mid-run (as SIGTERM closes it): the mock receives no request after
    that, the calls in flight finish and are recorded, and the workers wait (the process
    exits) instead of returning, so no later stage runs on part of the calls."""
    monkeypatch.setenv("MOCK_JUDGE_KEY", "sk-mock")
    providers.register()
    log = tmp_path / "requests.jsonl"
    gate = lifecycle.Gate()
    rows: list[dict] = []
    with mock_provider.running(log, latency=0.3) as url:
        judge = _judge(url, concurrency=4)
        texts = [f"gate text {i}" for i in range(60)]
        calls: list[Call] = list(_calls(plan_rows(judge, user_turns(texts), SCALE)).values())

        async def stop_midway() -> bool:
            run = asyncio.create_task(Engine(judge, "run-gate", gate=gate).run(calls, rows.append))
            while len(mock_provider.read_log(log)) < 9 and not run.done():
                await asyncio.sleep(0.01)
            gate.close()
            await asyncio.sleep(1.5)  # the mock answers in 0.3 s: in-flight calls end here
            parked = not run.done()
            run.cancel()
            return parked

        assert asyncio.run(stop_midway())
        received = len(mock_provider.read_log(log))
    in_flight, abandoned, finished, sent = gate.figures()
    assert sent == gate.sent_at_close == received < 60  # nothing passed the gate after
    assert (in_flight, abandoned) == (0, 0) and finished >= 1
    assert len(rows) == received  # every request sent was answered and recorded
    line = lifecycle.stop_line(gate)
    assert line == (
        f"stopped: 0 calls in flight abandoned, 0 new sent ({received} requests in all; "
        f"{finished} calls finished in the grace period and are stored)"
    )
