"""The engine against the mock OpenAI-compatible server, through litellm's real `openai/` path."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import litellm
import polars as pl
import pytest

from judgelab.study import Judge
from judgelab.testing import mock_provider
from tasks.judging import failures, providers, store
from tasks.judging.engine import Call, Engine
from tasks.judging.keys import call_key, canonical_json, request_params
from tasks.judging.scales import load_scales
from tasks.judging.shard import run_shard

SECRET = "sk-mock-0123456789abcdefghijklmnopqrstuvwxyz"
SCALE = load_scales()["likert7"]


def _judge(base_url: str, **over) -> Judge:
    opts = {
        "name": "mock",
        "model": "openai/mock-judge",
        "api_base": base_url,
        "api_key_env": "MOCK_JUDGE_KEY",
        "timeout": 1.0,
        "max_attempts": 8,
        "backoff_base": 0.05,
        "backoff_max": 0.2,
        "concurrency": 16,
    } | over
    return Judge(**opts)


def _calls(judge: Judge, texts: list[str]) -> list[Call]:
    params = request_params(judge, SCALE)
    out = []
    for text in texts:
        msgs = [{"role": "system", "content": "Rate 1-7."}, {"role": "user", "content": text}]
        out.append(Call(call_key(judge.model, msgs, SCALE, params, 0), msgs, params, SCALE))
    return out


def _run(judge: Judge, calls: list[Call], store_dir: Path) -> Counter:
    providers.register()
    rows: list[dict] = []
    counts = asyncio.run(Engine(judge, "run-mock").run(calls, rows.append))
    store.write_part(store_dir, store.rows_to_frame(rows))
    return counts


def test_thirty_percent_faults_every_call_stored_exactly_once(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MOCK_JUDGE_KEY", SECRET)
    log = tmp_path / "requests.jsonl"
    with mock_provider.running(
        log, latency=0.01, fault_rate=0.3, hang=5, retry_after=0.05, seed=1
    ) as url:
        judge = _judge(url)
        calls = _calls(judge, [f"text number {i}" for i in range(150)])
        counts = _run(judge, calls, tmp_path / "store")
    rows = store.read_store(tmp_path / "store")
    assert rows.height == 150 and rows["key"].n_unique() == 150
    assert set(rows["key"]) == {c.key for c in calls}
    assert counts["error"] == 0  # transient faults were all retried through
    outcomes = Counter(r["outcome"] for r in mock_provider.read_log(log))
    assert all(outcomes[f] > 0 for f in mock_provider.FAULTS), outcomes  # every fault happened
    # a call answered on its first request carries the mock's value for its own messages
    first = rows.filter(rows["attempts"] == 1)
    for key, score in first.select("key", "score").iter_rows():
        call = next(c for c in calls if c.key == key)
        if score is not None:
            expected, _, _ = mock_provider._score(
                {"response_format": call.params["response_format"]},
                mock_provider.messages_hash(call.messages),
            )
            assert score == expected
    # re-asked answers are all kept
    reasked = rows.filter(rows["answers"].str.json_decode(dtype=list[str]).list.len() > 1)
    assert reasked.height > 0
    for part in (tmp_path / "store").iterdir():
        assert SECRET.encode() not in part.read_bytes()
    assert SECRET not in log.read_text()


def test_permanent_failure_is_stored_as_error_not_score(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MOCK_JUDGE_KEY", SECRET)
    log = tmp_path / "requests.jsonl"
    with mock_provider.running(log, latency=0.0) as url:
        judge = _judge(url, max_attempts=3)
        calls = _calls(judge, ["fine text", f"broken {mock_provider.PERMANENT_MARKER} text"])
        counts = _run(judge, calls, tmp_path / "store")
    assert counts == {"ok": 1, "error": 1}
    bad = (
        store.read_store(tmp_path / "store")
        .filter(store.pl.col("status") == "error")
        .row(0, named=True)
    )
    assert bad["score"] is None and bad["attempts"] == 3 and "InternalServerError" in bad["error"]
    assert SECRET not in bad["error"]
    assert sum(r["outcome"] == "permanent_failure" for r in mock_provider.read_log(log)) == 3
    assert set(store.done_keys(tmp_path / "store")["key"]) == {
        calls[0].key
    }  # error: retried next run


def test_bad_answers_are_reasked_then_kept_raw(tmp_path: Path, monkeypatch) -> None:
    """Every request faulty: calls whose three answers were all bad keep them all, unscored."""
    monkeypatch.setenv("MOCK_JUDGE_KEY", SECRET)
    with mock_provider.running(None, latency=0.0, fault_rate=1.0, seed=3) as url:
        judge = _judge(url, max_attempts=1, max_reasks=2, timeout=0.5)
        _run(judge, _calls(judge, [f"t{i}" for i in range(40)]), tmp_path / "store")
    rows = store.read_store(tmp_path / "store")
    parse_failed = rows.filter(rows["status"].is_in(["unparseable", "out_of_range"]))
    assert parse_failed.height > 0
    for r in parse_failed.iter_rows(named=True):
        answers = json.loads(r["answers"])
        assert len(answers) == 3 and r["raw"] == answers[-1] and r["score"] is None


def _engine_run(judge: Judge, calls: list[Call], store_dir: Path) -> tuple[Counter, Engine]:
    providers.register()
    rows: list[dict] = []
    engine = Engine(judge, "run-mock")
    counts = asyncio.run(engine.run(calls, rows.append))
    if rows:
        store.write_part(store_dir, store.rows_to_frame(rows))
    return counts, engine


@pytest.mark.parametrize(
    ("status", "error", "fix"),
    [
        (401, "AuthenticationError", "$MOCK_JUDGE_KEY"),
        (403, "APIError", "permissions"),  # litellm: openai/ 403 → APIError
        (404, "NotFoundError", "model name"),
        (400, "BadRequestError", "parameters"),
    ],
)
def test_non_retryable_error_stops_the_judge_after_three(
    tmp_path: Path, monkeypatch, status: int, error: str, fix: str
) -> None:
    """A refused key/model/request costs three requests, not one per call; the untried calls
    are not stored (a rerun after the fix makes them) and nothing becomes a score."""
    monkeypatch.setenv("MOCK_JUDGE_KEY", SECRET)
    log = tmp_path / "requests.jsonl"
    with mock_provider.running(log, latency=0.01, refuse=f"mock-judge={status}") as url:
        judge = _judge(url)
        calls = _calls(judge, [f"text {i}" for i in range(30)])
        counts, engine = _engine_run(judge, calls, tmp_path / "store")
    requests = mock_provider.read_log(log)
    assert len(requests) == 3 and {r["outcome"] for r in requests} == {f"refused_{status}"}
    assert counts == {"error": 3}
    rows = store.read_store(tmp_path / "store")
    assert rows.height == 3 and rows["score"].is_null().all()
    assert store.done_keys(tmp_path / "store").is_empty()  # all 30 stay missing
    halt = engine.halt
    assert (halt["status"], halt["error"], halt["count"], halt["skipped"]) == (status, error, 3, 27)
    line = failures.halt_line(judge, halt)
    assert "'mock'" in line and str(status) in line and fix in line and "\n" not in line
    assert SECRET not in line


def test_sporadic_bad_request_does_not_stop_the_judge(tmp_path: Path, monkeypatch) -> None:
    """Answers between refusals reset the count: only identical failures in a row stop."""
    monkeypatch.setenv("MOCK_JUDGE_KEY", SECRET)
    engine = Engine(_judge("http://unused"), "run-mock")
    exc = litellm.BadRequestError("bad", model="m", llm_provider="openai")
    for _ in range(5):
        engine._fatal(400, exc, "bad")
        engine.open, engine.streak = True, None  # an answer in between
    assert engine.halt is None
    for _ in range(3):
        engine._fatal(400, exc, "bad")
    assert engine.halt is not None and engine.halt["count"] == 3
    # a per-call 400 (one item too long) is not a judge failure at all
    too_long = litellm.ContextWindowExceededError("long", model="m", llm_provider="openai")
    assert failures.fatal_status(too_long) is None
    assert failures.fatal_status(exc) == 400


def test_each_engine_process_stops_and_reports(tmp_path: Path, monkeypatch) -> None:
    """A judge spread over two processes: each stops after three refusals; the shard reports
    both halts, and together they make one failure line for the judge."""
    monkeypatch.setenv("MOCK_JUDGE_KEY", SECRET)
    log = tmp_path / "requests.jsonl"
    with mock_provider.running(log, latency=0.01, refuse="*=404") as url:
        judge = _judge(url, processes=2)
        todo = pl.DataFrame(
            {
                "key": c.key,
                "base_key": c.key,
                "messages": canonical_json(c.messages),
                "params": canonical_json(c.params),
                "scale": SCALE.name,
            }
            for c in _calls(judge, [f"text {i}" for i in range(20)])
        )
        counts, halts = run_shard(judge, todo, tmp_path / "store", 5, "run-mock")
    assert len(mock_provider.read_log(log)) == 6 and counts == {"error": 6}
    assert [(h["status"], h["count"]) for h in halts] == [(404, 3), (404, 3)]
    assert sum(h["skipped"] for h in halts) == 14
    (failure,) = failures.judge_failures("s", {"mock": judge}, {}, {"mock": halts}, 0.2)
    assert "404" in failure.line and "6 calls failed" in failure.line
    assert "14 calls not sent" in failure.line and "model name" in failure.line


def test_failure_share_is_of_calls_made_now() -> None:
    judge = Judge(name="j", model="openai/x")
    made = {"j": {"ok": 8, "error": 2}}  # 20%: not more than the share
    assert failures.judge_failures("s", {"j": judge}, made, {}, 0.2) == []
    made = {"j": {"ok": 7, "unparseable": 1, "error": 3}}  # 27%
    (failure,) = failures.judge_failures("s", {"j": judge}, made, {}, 0.2)
    assert "3 of 11 calls failed" in failure.line and "'j'" in failure.line
    assert failures.judge_failures("s", {"j": judge}, made, {}, 0.5) == []
    assert failures.judge_failures("s", {"j": judge}, {}, {}, 0.0) == []  # nothing made
