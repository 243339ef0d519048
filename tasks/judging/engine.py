"""Send judge calls through litellm, bounded in flight; flush results to the store in batches."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import litellm

from judgelab.study import Judge
from tasks.judging.parse import ERROR, parse_score
from tasks.judging.scales import Scale

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Call:
    key: str
    messages: list[dict]
    params: dict
    scale: Scale


class MissingApiKey(RuntimeError):
    pass


def api_key(judge: Judge) -> str | None:
    """The judge's API key from the environment; a clear error before any call if it is unset."""
    if not judge.api_key_env:
        return None
    value = os.environ.get(judge.api_key_env)
    if not value:
        raise MissingApiKey(
            f"judge {judge.name!r} ({judge.model}) needs ${judge.api_key_env}: "
            f"set it in the environment or in .env"
        )
    return value


def request_kwargs(judge: Judge, call: Call, key: str | None) -> dict:
    p = call.params
    kwargs = {
        "model": judge.model,
        "messages": call.messages,
        "temperature": p["temperature"],
        "max_tokens": p["max_tokens"],
        "timeout": judge.timeout,
        "num_retries": judge.num_retries,
        **p["extra"],
    }
    optional = {
        "seed": p["seed"],
        "reasoning_effort": p["reasoning_effort"],
        "response_format": p["response_format"],
        "api_base": judge.api_base,
        "api_key": key,
    }
    kwargs.update({k: v for k, v in optional.items() if v is not None})
    return kwargs


def _redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret else text


async def judge_one(judge: Judge, call: Call, run_id: str, key: str | None) -> dict:
    """One call → one store row. Exceptions become `error` rows (retried next run), never scores."""
    started = time.perf_counter()
    raw, error, usage = None, None, None
    try:
        resp = await litellm.acompletion(**request_kwargs(judge, call, key))
        raw = resp.choices[0].message.content or ""
        usage = getattr(resp, "usage", None)
        status, score = parse_score(raw, call.scale)
    except Exception as exc:  # every provider failure is recorded, with its message
        status, score = ERROR, None
        error = _redact(f"{type(exc).__name__}: {exc}", key)[:1000]
    return {
        "key": call.key,
        "model": judge.model,
        "status": status,
        "score": score,
        "raw": raw,
        "error": error,
        "latency_s": time.perf_counter() - started,
        "prompt_tokens": getattr(usage, "prompt_tokens", None),
        "completion_tokens": getattr(usage, "completion_tokens", None),
        "run_id": run_id,
        "created_at": datetime.now(UTC),
    }


async def run_calls(
    judge: Judge,
    calls: list[Call],
    flush: Callable[[list[dict]], object],
    run_id: str,
    batch_rows: int = 50,
    progress: Callable[[int], None] | None = None,
) -> Counter:
    """Run `calls` with at most `judge.concurrency` in flight; `flush` receives batches of rows."""
    key = api_key(judge)
    queue: asyncio.Queue[Call] = asyncio.Queue()
    for call in calls:
        queue.put_nowait(call)
    buffer: list[dict] = []
    counts: Counter = Counter()

    def drain() -> None:
        if buffer:
            flush(list(buffer))
            buffer.clear()

    async def worker() -> None:
        while not queue.empty():
            row = await judge_one(judge, queue.get_nowait(), run_id, key)
            buffer.append(row)
            counts[row["status"]] += 1
            if len(buffer) >= batch_rows:
                drain()
            if progress:
                progress(1)

    try:
        await asyncio.gather(*(worker() for _ in range(min(judge.concurrency, len(calls)) or 1)))
    finally:
        drain()  # whatever finished before an interruption is kept
    return counts
