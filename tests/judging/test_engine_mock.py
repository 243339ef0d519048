"""The engine against the mock OpenAI-compatible server, through litellm's real `openai/` path."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

from judgelab.study import Judge
from judgelab.testing import mock_provider
from tasks.judging import providers, store
from tasks.judging.engine import Call, Engine
from tasks.judging.keys import call_key, request_params
from tasks.judging.scales import load_scales

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
    flush = lambda rows: store.write_part(store_dir, store.rows_to_frame(rows))  # noqa: E731
    return asyncio.run(Engine(judge, "run-mock").run(calls, flush, batch_rows=20))


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
