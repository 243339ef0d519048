"""Engine with the fake provider: statuses, raw answers kept, errors stored, keys redacted."""

import asyncio
from pathlib import Path

import polars as pl
import pytest

from judgelab.study import Judge
from judgelab.testing.fake_provider import FakeJudge
from tasks.judging import providers, store
from tasks.judging.engine import Call, Engine, MissingApiKey
from tasks.judging.keys import call_key, request_params
from tasks.judging.scales import load_scales

SECRET = "sk-test-0123456789abcdefghijklmnopqrstuv"
SCALE = load_scales()["likert7"]


def _calls(judge: Judge, n: int) -> list[Call]:
    params = request_params(judge, SCALE)
    out = []
    for i in range(n):
        msgs = [{"role": "user", "content": f"text {i}"}]
        out.append(
            Call(
                key=call_key(judge.model, msgs, SCALE, params, 0),
                messages=msgs,
                params=params,
                scale=SCALE,
            )
        )
    return out


def _run(judge: Judge, calls: list[Call], store_dir: Path) -> dict:
    providers.register()
    rows: list[dict] = []
    counts = dict(asyncio.run(Engine(judge, "run-1").run(calls, rows.append)))
    if rows:
        store.write_part(store_dir, store.rows_to_frame(rows))
    return counts


@pytest.mark.parametrize(
    ("model", "status"),
    [
        ("fake/hash", "ok"),
        ("fake/unparseable", "unparseable"),
        ("fake/out_of_range", "out_of_range"),
        ("fake/error", "error"),
    ],
)
def test_each_outcome_is_stored_with_its_status(
    tmp_path: Path, monkeypatch, model: str, status: str
) -> None:
    monkeypatch.setenv("FAKE_JUDGE_KEY", SECRET)
    judge = Judge(
        name="j", model=model, api_key_env="FAKE_JUDGE_KEY", max_attempts=1, concurrency=2
    )
    counts = _run(judge, _calls(judge, 7), tmp_path)
    assert counts == {status: 7}
    rows = store.read_store(tmp_path)
    assert rows.height == 7
    assert (rows["status"] == status).all()
    assert rows["score"].is_not_null().all() == (status == "ok")
    if status in ("unparseable", "out_of_range"):
        assert rows["raw"].is_not_null().all()  # the raw answer is kept for re-parsing
    if status == "error":
        assert rows["error"].str.contains("fake provider failure").all()
    for part in tmp_path.iterdir():
        assert SECRET.encode() not in part.read_bytes()


def test_errors_are_retried_on_the_next_run_and_ok_rows_are_not(tmp_path: Path) -> None:
    judge = Judge(name="j", model="fake/error", max_attempts=1)
    calls = _calls(judge, 4)
    _run(judge, calls, tmp_path)
    assert store.done_keys(tmp_path).is_empty()  # errors are not final
    rows = [
        {**r, "status": "ok", "score": 3.0, "error": None}
        for r in store.read_store(tmp_path).to_dicts()
    ]
    store.write_part(tmp_path, store.rows_to_frame(rows[:2]))
    done = set(store.done_keys(tmp_path)["key"])
    assert done == {c.key for c in calls[:2]}
    assert store.latest(store.read_store(tmp_path)).filter(pl.col("status") == "ok").height == 2


def test_missing_api_key_fails_before_any_call(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("NOT_SET_KEY", raising=False)
    judge = Judge(name="gpt", model="fake/hash", api_key_env="NOT_SET_KEY")
    before = FakeJudge.calls
    with pytest.raises(MissingApiKey, match=r"\$NOT_SET_KEY"):
        _run(judge, _calls(judge, 2), tmp_path)
    assert FakeJudge.calls == before
