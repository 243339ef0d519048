"""The mock batch provider keeps OpenAI's batch lifecycle: progress, failures, expiry, cancel."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx

from judgelab.testing import mock_batches, mock_provider

ENDED = ("completed", "failed", "expired", "cancelled")
ORDER = ("validating", "in_progress", "finalizing", "cancelling", *ENDED)
LIKERT = {"minimum": 1, "maximum": 7}
BIPOLAR = {"minimum": -3, "maximum": 3}


def _body(text: str, scale: dict) -> dict:
    schema = {"type": "object", "properties": {"score": {"type": "integer", **scale}}}
    return {
        "model": "mock-judge",
        "messages": [{"role": "system", "content": "Rate it."}, {"role": "user", "content": text}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "s", "schema": schema}},
    }


def _lines(n: int, scale: dict = LIKERT, url: str = mock_batches.ENDPOINT) -> list[dict]:
    return [
        {"custom_id": f"c{i}", "method": "POST", "url": url, "body": _body(f"text {i}", scale)}
        for i in range(n)
    ]


def _upload(http: httpx.Client, lines: list[dict]) -> str:
    text = "".join(json.dumps(line) + "\n" for line in lines)
    files = {"file": ("requests.jsonl", text.encode(), "application/jsonl")}
    reply = http.post("/files", data={"purpose": "batch"}, files=files)
    reply.raise_for_status()
    return reply.json()["id"]


def _create(http: httpx.Client, file_id: str, **metadata: str) -> dict:
    payload = {"input_file_id": file_id, "endpoint": mock_batches.ENDPOINT}
    reply = http.post("/batches", json=payload | {"completion_window": "24h", "metadata": metadata})
    reply.raise_for_status()
    return reply.json()


def _poll(http: httpx.Client, batch_id: str, until: tuple = ENDED, limit: float = 15) -> list:
    """Every state seen, every 20 ms, until the batch reaches a status in `until`."""
    seen = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        seen.append(http.get(f"/batches/{batch_id}").json())
        if seen[-1]["status"] in until:
            return seen
        time.sleep(0.02)
    raise AssertionError(f"batch stuck in {seen[-1]['status']}")


def _jsonl(http: httpx.Client, file_id: str | None) -> list[dict]:
    if file_id is None:
        return []
    reply = http.get(f"/files/{file_id}/content")
    reply.raise_for_status()
    return [json.loads(line) for line in reply.text.splitlines()]


def _score(line: dict) -> float:
    return json.loads(line["response"]["body"]["choices"][0]["message"]["content"])["score"]


def test_batch_moves_forward_counts_progress_and_answers_each_request_once(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"
    with (
        mock_batches.running(log, delay=1.0, fail_share=0.25) as url,
        httpx.Client(base_url=url) as http,
    ):
        batch = _create(http, _upload(http, _lines(20)))
        assert batch["status"] == "validating" and batch["request_counts"]["total"] == 0
        seen = _poll(http, batch["id"])
        output, errors = (_jsonl(http, seen[-1][f"{k}_file_id"]) for k in ("output", "error"))
    statuses = [s["status"] for s in seen]
    assert statuses[-1] == "completed" and "in_progress" in statuses
    assert [ORDER.index(s) for s in statuses] == sorted(ORDER.index(s) for s in statuses)
    done = [s["request_counts"]["completed"] + s["request_counts"]["failed"] for s in seen]
    assert done == sorted(done) and any(0 < d < 20 for d in done)  # progress was visible
    # files appear only at the end, all at once
    assert all(s["output_file_id"] is None for s in seen if s["status"] != "completed")
    final = seen[-1]
    assert final["in_progress_at"] <= final["completed_at"] and final["expired_at"] is None
    counts = final["request_counts"]
    assert counts["total"] == 20 and counts["completed"] == len(output)
    assert counts["failed"] == len(errors) and 0 < len(errors) < 20
    ids = [line["custom_id"] for line in output + errors]
    assert sorted(ids) == sorted(f"c{i}" for i in range(20))  # each exactly once
    in_file_order = [f"c{i}" for i in range(20) if f"c{i}" in ids[: len(output)]]
    assert ids[: len(output)] != in_file_order  # answered in another order than the file's
    assert {line["response"]["status_code"] for line in errors} == {500}
    assert all("error" in line["response"]["body"] for line in errors)
    assert {line["response"]["status_code"] for line in output} == {200}
    assert all(1 <= _score(line) <= 7 for line in output)
    # the counter saw each answer once, failures are not answers
    assert sorted(mock_batches.answered(log).values()) == [1] * len(output)
    logged = mock_provider.read_log(log)
    assert {r["custom_id"] for r in logged if r["outcome"] == "failed"} == {
        line["custom_id"] for line in errors
    }


def test_a_batch_answer_is_the_online_mock_answer_for_the_same_body(tmp_path: Path) -> None:
    lines = _lines(12, LIKERT) + [
        line | {"custom_id": f"b{i}"} for i, line in enumerate(_lines(12, BIPOLAR))
    ]
    with (
        mock_batches.running(delay=0.2, fail_share=0.25) as url,
        mock_provider.running(latency=0, fail_share=0.25) as online_url,
        httpx.Client(base_url=url) as http,
    ):
        batch = _poll(http, _create(http, _upload(http, lines))["id"])[-1]
        output = {x["custom_id"]: x for x in _jsonl(http, batch["output_file_id"])}
        errors = {x["custom_id"] for x in _jsonl(http, batch["error_file_id"])}
        online = {
            x["custom_id"]: httpx.post(f"{online_url}/chat/completions", json=x["body"])
            for x in lines
        }
    for custom_id, reply in online.items():
        if reply.status_code == 500:
            assert custom_id in errors and custom_id not in output
        else:
            batch_answer = output[custom_id]["response"]["body"]["choices"][0]["message"]
            assert batch_answer == reply.json()["choices"][0]["message"]
    assert errors and len(output) > 12  # both kinds happened
    bipolar = [_score(line) for cid, line in output.items() if cid.startswith("b")]
    assert min(bipolar) < 0 and all(-3 <= s <= 3 for s in bipolar)  # the scale was read


def test_an_expiring_batch_answers_a_share_and_reports_the_rest_expired(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"
    with mock_batches.running(log, delay=0.4) as url, httpx.Client(base_url=url) as http:
        file_id = _upload(http, _lines(20))
        expiring = _create(http, file_id, mock_expire_after="0.5")
        seen = _poll(http, expiring["id"])
        final = seen[-1]
        output, errors = (_jsonl(http, final[f"{k}_file_id"]) for k in ("output", "error"))
        other = _poll(http, _create(http, file_id)["id"])[-1]  # the option is per batch
    assert final["status"] == "expired" and final["completed_at"] is None
    assert final["expired_at"] >= final["in_progress_at"]
    assert final["request_counts"] == {"total": 20, "completed": 10, "failed": 0}
    assert len(output) == 10 and len(errors) == 10
    assert {e["error"]["code"] for e in errors} == {"batch_expired"}
    assert all(e["response"] is None for e in errors)
    assert {x["custom_id"] for x in output} | {e["custom_id"] for e in errors} == {
        f"c{i}" for i in range(20)
    }
    assert other["status"] == "completed" and other["request_counts"]["completed"] == 20
    # the first batch's ten answers and the second's twenty: ten bodies paid twice
    assert sorted(mock_batches.answered(log).values()) == [1] * 10 + [2] * 10


def test_cancel_stops_answering_and_keeps_the_answers_so_far(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"
    with mock_batches.running(log, delay=2.0) as url, httpx.Client(base_url=url) as http:
        batch_id = _create(http, _upload(http, _lines(20)))["id"]
        _poll(http, batch_id, until=("in_progress",))
        reply = http.post(f"/batches/{batch_id}/cancel")
        assert reply.status_code == 200 and reply.json()["status"] == "cancelling"
        seen = _poll(http, batch_id)
        final = seen[-1]
        output = _jsonl(http, final["output_file_id"])
        time.sleep(0.3)  # nothing more is answered after the end
        again = http.post(f"/batches/{batch_id}/cancel")
    assert final["status"] == "cancelled" and final["cancelling_at"] <= final["cancelled_at"]
    answered = final["request_counts"]["completed"]
    assert 0 <= answered < 20 and len(output) == answered and final["error_file_id"] is None
    assert sum(mock_batches.answered(log).values()) == answered
    assert again.status_code == 409


def test_a_bad_input_file_fails_validation_and_nothing_is_answered(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"
    lines = _lines(4)
    lines[1]["custom_id"] = "c0"  # repeated
    lines[3]["url"] = "/v1/embeddings"
    with mock_batches.running(log, delay=0.2) as url, httpx.Client(base_url=url) as http:
        final = _poll(http, _create(http, _upload(http, lines))["id"])[-1]
    assert final["status"] == "failed" and final["failed_at"] is not None
    problems = final["errors"]["data"]
    assert [(p["code"], p["line"]) for p in problems] == [
        ("duplicate_custom_id", 2),
        ("invalid_url", 4),
    ]
    assert final["output_file_id"] is None and final["request_counts"]["total"] == 0
    assert log.read_text() == ""


def test_files_and_listing_follow_openai(tmp_path: Path) -> None:
    with mock_batches.running(delay=0.1) as url, httpx.Client(base_url=url) as http:
        file_id = _upload(http, _lines(2))
        meta = http.get(f"/files/{file_id}").json()
        refused = http.get(f"/files/{file_id}/content")  # input files are not downloadable
        ids = [_create(http, file_id, n=str(n))["id"] for n in range(3)]
        first = http.get("/batches", params={"limit": 2}).json()
        rest = http.get("/batches", params={"limit": 2, "after": first["last_id"]}).json()
        payload = {"input_file_id": "file-nope", "endpoint": mock_batches.ENDPOINT}
        unknown = http.post("/batches", json=payload | {"completion_window": "24h"})
    assert meta["purpose"] == "batch" and meta["bytes"] > 0 and meta["object"] == "file"
    assert refused.status_code == 400
    assert [b["id"] for b in first["data"]] == ids[:0:-1] and first["has_more"] is True
    assert [b["id"] for b in rest["data"]] == ids[:1] and rest["has_more"] is False
    assert unknown.status_code == 404


def test_a_lost_create_reply_still_creates_the_batch() -> None:
    with (
        mock_batches.running(delay=0.1, lose_create_replies=1) as url,
        httpx.Client(base_url=url) as http,
    ):
        file_id = _upload(http, _lines(2))
        payload = {"input_file_id": file_id, "endpoint": mock_batches.ENDPOINT}
        reply = http.post("/batches", json=payload | {"completion_window": "24h"})
        listed = http.get("/batches").json()["data"]
        again = _create(http, file_id)
    assert reply.status_code == 500 and len(listed) == 1
    assert again["id"] != listed[0]["id"]  # the next create answers normally
