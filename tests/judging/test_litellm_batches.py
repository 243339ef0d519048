"""Feasibility probe (issue 28): litellm's files and batches calls against the mock batch provider.

litellm 1.106.12 sends `custom_llm_provider="openai"` batch calls through the openai SDK, a
new client per call, with the SDK's own retries (2 unless `max_retries` is passed).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import litellm
import openai
import pytest

from judgelab.testing import mock_batches

ENDED = ("completed", "failed", "expired", "cancelled")


def _jsonl(n: int) -> bytes:
    schema = {"type": "object", "properties": {"score": {"minimum": 1, "maximum": 7}}}
    fmt = {"type": "json_schema", "json_schema": {"name": "s", "schema": schema}}
    lines = [
        {
            "custom_id": f"item-{i}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "model": "mock-judge",
                "messages": [{"role": "user", "content": f"Rate text {i}."}],
                "response_format": fmt,
            },
        }
        for i in range(n)
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _options(url: str) -> dict:
    return {"custom_llm_provider": "openai", "api_base": url, "api_key": "sk-mock", "timeout": 10}


async def _upload_and_create(url: str, n: int, **extra: object) -> tuple[str, object]:
    opts = _options(url)
    file = await litellm.acreate_file(file=("in.jsonl", _jsonl(n)), purpose="batch", **opts)
    batch = await litellm.acreate_batch(
        completion_window="24h",
        endpoint="/v1/chat/completions",
        input_file_id=file.id,
        metadata={"judgelab_batch": "probe"},
        **opts | extra,
    )
    return file.id, batch


async def _until_ended(url: str, batch_id: str) -> list:
    seen = [await litellm.aretrieve_batch(batch_id=batch_id, **_options(url))]
    while seen[-1].status not in ENDED:
        await asyncio.sleep(0.05)
        seen.append(await litellm.aretrieve_batch(batch_id=batch_id, **_options(url)))
    return seen


async def _lines(url: str, file_id: str | None) -> list[dict]:
    if file_id is None:
        return []
    content = await litellm.afile_content(file_id=file_id, **_options(url))
    return [json.loads(line) for line in content.content.decode().splitlines()]


def test_litellm_runs_a_batch_end_to_end_and_each_request_is_answered_once(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"

    async def probe(url: str) -> tuple:
        _file_id, created = await _upload_and_create(url, 20)
        seen = await _until_ended(url, created.id)
        final = seen[-1]
        output = await _lines(url, final.output_file_id)
        errors = await _lines(url, final.error_file_id)
        out_meta = await litellm.afile_retrieve(file_id=final.output_file_id, **_options(url))
        listed = await litellm.alist_batches(limit=10, **_options(url))
        return created, seen, output, errors, out_meta, listed

    with mock_batches.running(log, delay=0.5, fail_share=0.25) as url:
        created, seen, output, errors, out_meta, listed = asyncio.run(probe(url))
    assert isinstance(created, litellm.LiteLLMBatch) and created.status == "validating"
    final = seen[-1]
    assert final.status == "completed" and final.request_counts.total == 20
    assert final.request_counts.completed == len(output) == 20 - len(errors) and errors
    done = [b.request_counts.completed + b.request_counts.failed for b in seen]
    assert done == sorted(done)
    ids = [line["custom_id"] for line in output + errors]
    assert sorted(ids) == sorted(f"item-{i}" for i in range(20))  # each exactly once
    assert all(line["response"]["status_code"] == 500 for line in errors)
    scores = [
        json.loads(line["response"]["body"]["choices"][0]["message"]["content"])["score"]
        for line in output
    ]
    assert all(1 <= s <= 7 for s in scores)
    assert out_meta.purpose == "batch_output"
    assert [b.id for b in listed.data] == [created.id]
    assert listed.data[0].metadata == {"judgelab_batch": "probe"}
    assert sorted(mock_batches.answered(log).values()) == [1] * len(output)


def test_litellm_cancels_a_batch_and_gets_the_answers_so_far(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"

    async def probe(url: str) -> tuple:
        _file_id, created = await _upload_and_create(url, 20)
        while (await litellm.aretrieve_batch(batch_id=created.id, **_options(url))).status != (
            "in_progress"
        ):
            await asyncio.sleep(0.02)
        cancelling = await litellm.acancel_batch(batch_id=created.id, **_options(url))
        final = (await _until_ended(url, created.id))[-1]
        return cancelling, final, await _lines(url, final.output_file_id)

    with mock_batches.running(log, delay=3.0) as url:
        cancelling, final, output = asyncio.run(probe(url))
    assert cancelling.status == "cancelling" and final.status == "cancelled"
    assert final.request_counts.completed == len(output) < 20
    assert sum(mock_batches.answered(log).values()) == len(output)


@pytest.mark.parametrize(
    ("extra", "raises", "batches"),
    [({}, False, 2), ({"max_retries": 0}, True, 1)],
    ids=["sdk-retries", "no-retries"],
)
def test_a_lost_create_reply_and_sdk_retries_pay_for_a_batch_twice(
    tmp_path: Path, extra: dict, raises: bool, batches: int
) -> None:
    """The openai SDK retries a 500 on POST /batches without an idempotency key: the batch
    whose reply was lost runs as well, so every request in it is answered (paid) twice.
    With max_retries=0 the error surfaces and the one batch can be found by its metadata.
    (With all three replies lost, one default call creates three batches and still raises.)"""
    log = tmp_path / "answers.jsonl"

    async def probe(url: str) -> tuple:
        try:
            await _upload_and_create(url, 4, **extra)
            failed = None
        except openai.APIStatusError as error:
            failed = error
        listed = (await litellm.alist_batches(limit=10, **_options(url))).data
        for batch in listed:
            await _until_ended(url, batch.id)
        return failed, listed

    with mock_batches.running(log, delay=0.2, lose_create_replies=1) as url:
        failed, listed = asyncio.run(probe(url))
    # batch calls raise the openai SDK's errors, not litellm's mapped ones
    assert type(failed) is (openai.InternalServerError if raises else type(None))
    assert len(listed) == batches
    assert {b.metadata["judgelab_batch"] for b in listed} == {"probe"}
    assert sorted(mock_batches.answered(log).values()) == [batches] * 4
