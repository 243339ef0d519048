"""Judges at once (shard.run_lanes): their calls interleave, each keeps its own halt."""

from __future__ import annotations

from pathlib import Path

from judgelab.study import Judge
from judgelab.testing import mock_provider
from judgelab.testing.plan_rows import plan_rows, user_turns
from tasks.judging import store
from tasks.judging.scales import load_scales
from tasks.judging.shard import Lane, run_lanes

SCALE = load_scales()["likert7"]


def _lane(judge: Judge, n: int) -> Lane:
    texts = [f"{judge.name} text {i}" for i in range(n)]
    return Lane(judge, plan_rows(judge, user_turns(texts), SCALE), judge.name)


def _judge(name: str, url: str) -> Judge:
    return Judge(
        name=name,
        model=f"openai/{name}",
        api_base=url,
        api_key_env="MOCK_JUDGE_KEY",
        concurrency=2,
        timeout=5,
        max_attempts=1,
    )


def test_judges_in_one_loop_interleave_and_a_refused_one_stops_alone(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("MOCK_JUDGE_KEY", "sk-lanes-0123456789")
    log = tmp_path / "requests.jsonl"
    with mock_provider.running(log, latency=0.05, refuse="mock-bad=401") as url:
        lanes = [_lane(_judge(n, url), 30) for n in ("mock-a", "mock-b", "mock-bad")]
        results = run_lanes(lanes, tmp_path / "store", 10, "run-lanes")
    (a, halt_a), (b, halt_b), (bad, halt_bad) = results
    assert a == {"ok": 30} and b == {"ok": 30} and halt_a is None and halt_b is None
    assert bad == {"error": 3} and halt_bad["status"] == 401 and halt_bad["skipped"] == 27
    requests = mock_provider.read_log(log)
    times = {m: [r["t"] for r in requests if r["model"] == m] for m in ("mock-a", "mock-b")}
    # at once, not one after another: each judge's requests start before the other's end
    assert min(times["mock-b"]) < max(times["mock-a"])
    assert min(times["mock-a"]) < max(times["mock-b"])
    assert len([r for r in requests if r["model"] == "mock-bad"]) == 3
    rows = store.read_store(tmp_path / "store", ["key", "model"])
    assert rows["key"].n_unique() == rows.height == 63  # the refused three stored as errors
