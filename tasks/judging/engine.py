"""Send judge calls through litellm: bounded and adaptive concurrency, retries, re-asks, batches.

Transport failures (429, 5xx, timeouts, connection errors) are retried with exponential
backoff and jitter, honouring Retry-After; after `max_attempts` the call is stored as
`error` (and retried on the next run). An unparseable or out-of-range answer is re-asked
up to `max_reasks` times with a short correction; every answer is kept in `answers`.
A non-retryable provider error (401, 403, 404, invalid 400) stops the judge after
`halt_after` identical ones in a row; its untried calls are not stored (see failures.py).
Until a request ends otherwise, calls go one at a time, so a bad key costs `halt_after` requests.
Each finished call is handed to `record` (the journal) before its worker takes the next call,
so a crash loses only the calls in flight. After SIGTERM / SIGINT the process's gate
(lifecycle.Gate) is closed: no call and no request starts, and the workers wait for the exit.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NoReturn

import litellm

from judgelab import lifecycle
from judgelab.study import Judge
from tasks.judging import prompt_cache
from tasks.judging.distribution import from_top_logprobs
from tasks.judging.failures import fatal_status
from tasks.judging.keys import endpoint
from tasks.judging.limits import AimdLimiter, TokenBucket
from tasks.judging.local_models import IN_PROCESS
from tasks.judging.parse import ERROR, OK, parse_score
from tasks.judging.scales import Scale

RETRYABLE = (
    litellm.RateLimitError,
    litellm.Timeout,
    litellm.APIConnectionError,
    litellm.InternalServerError,
    litellm.ServiceUnavailableError,
    litellm.BadGatewayError,
)


@dataclass(frozen=True)
class Call:
    key: str
    messages: list[dict]
    params: dict
    scale: Scale
    base_key: str | None = None  # the key without the endpoint (keys.call_key)


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


def unknown_provider(judge: Judge) -> str | None:
    """Why litellm cannot route this judge's model (None when it can), checked at load: an
    unknown provider would otherwise fail only at its first call, after the whole flow."""
    if judge.model.startswith(IN_PROCESS):
        return None
    litellm.suppress_debug_info = True
    try:
        litellm.get_llm_provider(model=judge.model, api_base=judge.api_base)
    except Exception:  # litellm's BadRequestError: "LLM Provider NOT provided"
        return (
            f"litellm knows no provider for model {judge.model!r}; write it as "
            "<provider>/<model>, e.g. openai/gpt-4o-mini (https://docs.litellm.ai/docs/providers)"
        )
    return None


def missing_credentials(judge: Judge) -> list[str]:
    """Environment variables this judge needs and does not have, checked before a run starts:
    its `api_key_env`, else what litellm says the provider needs."""
    if judge.api_key_env:
        return [] if os.environ.get(judge.api_key_env) else [judge.api_key_env]
    if judge.model.startswith(IN_PROCESS):
        return []
    found = litellm.validate_environment(model=judge.model, api_base=judge.api_base)
    # an api_base in the study file stands in for the provider's *_API_BASE variable
    return [k for k in found["missing_keys"] if not (judge.api_base and k.endswith("_API_BASE"))]


def request_kwargs(judge: Judge, messages: list[dict], params: dict, key: str | None) -> dict:
    if judge.prompt_cache:  # a long system prompt marked cacheable where the provider needs it
        messages = prompt_cache.mark(judge.model.partition("/")[0], judge.model, messages)
    kwargs = {
        "model": judge.model,
        "messages": messages,
        "temperature": params["temperature"],
        "max_tokens": params["max_tokens"],
        "timeout": judge.timeout,
        "num_retries": 0,  # retries are ours: backoff, Retry-After, AIMD
        "max_retries": 0,
        **params["extra"],
    }
    optional = {
        "seed": params["seed"],
        "reasoning_effort": params["reasoning_effort"],
        "response_format": params["response_format"],
        "api_base": judge.api_base,
        "api_key": key,
    }
    kwargs.update({k: v for k, v in optional.items() if v is not None})
    if judge.top_logprobs:  # outside the key (judgelab.study.Judge.top_logprobs)
        kwargs |= {"logprobs": True, "top_logprobs": judge.top_logprobs}
    if params["reasoning_effort"] is not None and judge.supports_reasoning:
        # the study says this provider has the control even if litellm's map does not know it
        kwargs["allowed_openai_params"] = ["reasoning_effort"]
    return kwargs


def _field(obj: object, name: str) -> object:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def cache_tokens(usage: object) -> tuple[int | None, int | None]:
    """(prompt tokens read from the provider's cache, tokens written to it) from a response's
    usage: OpenAI's prompt_tokens_details.cached_tokens, Anthropic's cache_read_input_tokens
    and cache_creation_input_tokens (litellm passes both through). None: not reported."""
    read = _field(usage, "cache_read_input_tokens")
    details = _field(usage, "prompt_tokens_details")
    if not isinstance(read, int) and details is not None:
        read = _field(details, "cached_tokens")
    written = _field(usage, "cache_creation_input_tokens")
    return (
        read if isinstance(read, int) else None,
        written if isinstance(written, int) else None,
    )


def response_probs(resp: object, scale: Scale | None = None) -> dict[str, float] | None:
    """The judge's distribution over the scale's grid at the value position, when its provider
    gives one (the embedded judge: `judgelab_probs`, tasks/judging/distribution.py; a hosted
    judge with `top_logprobs`: distribution.from_top_logprobs)."""
    probs = getattr(resp, "judgelab_probs", None)
    if probs is None and scale is not None:  # a hosted judge asked for top_logprobs
        probs = from_top_logprobs(_field(resp.choices[0], "logprobs"), scale)
    return probs if isinstance(probs, dict) and probs else None


def reask_messages(messages: list[dict], raw: str, status: str, scale: Scale) -> list[dict]:
    """The conversation so far plus a one-line correction naming what was wrong."""
    problem = "was not valid JSON" if status == "unparseable" else "was outside the scale"
    correction = f"That answer {problem}. Reply with JSON only: {scale.answer_hint()}"
    return [
        *messages,
        {"role": "assistant", "content": raw},
        {"role": "user", "content": correction},
    ]


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    try:
        return float(headers.get("retry-after"))
    except (TypeError, ValueError):
        return None


def _redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret else text


async def _parked() -> NoReturn:
    """Where a worker waits after a stop signal closed the gate: the process exits once its
    runs are recorded Cancelled (lifecycle.until_stopped). Returning instead would let the
    flow go on to its next shard or stage with part of the calls made."""
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


class Engine:
    """Runs one judge's calls with shared flow control (one instance per process and judge)."""

    def __init__(
        self,
        judge: Judge,
        run_id: str,
        rng: random.Random | None = None,
        halt_after: int = 3,
        gate: lifecycle.Gate | None = None,
    ) -> None:
        self.judge = judge
        self.gate = gate or lifecycle.gate()  # closed by a stop signal: nothing new starts
        self.calls_out: set[asyncio.Task] = set()  # workers whose call has sent a request
        self.run_id = run_id
        self.key = api_key(judge)
        self.endpoint = endpoint(judge)  # stored with every row
        self.limiter = AimdLimiter(judge.concurrency)
        self.rpm = TokenBucket(judge.rpm) if judge.rpm else None
        self.tpm = TokenBucket(judge.tpm) if judge.tpm else None
        self.rng = rng or random.Random()
        self.halt_after = halt_after
        # a request ended other than non-retryably (an answer, a 429, a timeout): the key,
        # model and parameters are not refused, so calls stop going one at a time
        self.open = False
        self.first_call = asyncio.Lock()  # held by the one call in flight until then
        self.streak: tuple[tuple[int, str], int] | None = None  # same fatal error in a row
        self.halt: dict | None = None  # why this judge stopped (status, error, count, ...)

    def _fatal(self, status: int, exc: Exception, message: str) -> None:
        """Count a non-retryable error; `halt_after` identical ones in a row stop the judge."""
        kind = (status, type(exc).__name__)
        n = self.streak[1] + 1 if self.streak and self.streak[0] == kind else 1
        self.streak = (kind, n)
        if self.halt is not None:
            if (self.halt["status"], self.halt["error"]) == kind:
                self.halt["count"] += 1
        elif n >= self.halt_after:
            self.halt = {
                "status": status,
                "error": kind[1],
                "message": message,
                "count": n,
                "skipped": 0,
            }

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after * self.rng.uniform(1.0, 1.25)
        cap = min(self.judge.backoff_max, self.judge.backoff_base * 2 ** (attempt - 1))
        return self.rng.uniform(0, cap)  # "full jitter"

    async def _send(self, messages: list[dict], params: dict):
        """One request under the flow-control limits; raises what litellm raises."""
        if self.rpm:
            await self.rpm.take(1)
        if self.tpm:
            chars = sum(len(str(m.get("content", ""))) for m in messages)
            await self.tpm.take(chars / 4 + params["max_tokens"])
        await self.limiter.acquire()
        try:
            worker = asyncio.current_task()  # a worker makes one call at a time
            if not self.gate.send(first=worker not in self.calls_out):  # last: waits are long
                raise lifecycle.GateClosed
            self.calls_out.add(worker)
            return await litellm.acompletion(
                **request_kwargs(self.judge, messages, params, self.key)
            )
        finally:
            await self.limiter.release()

    async def ask(
        self, messages: list[dict], params: dict
    ) -> tuple[object | None, str | None, int]:
        """Send until a response arrives or attempts run out → (response, last error, attempts)."""
        error = None
        for attempt in range(1, self.judge.max_attempts + 1):
            try:
                resp = await self._send(messages, params)
                self.limiter.on_success()
                self.open, self.streak = True, None
                return resp, None, attempt
            except lifecycle.GateClosed:
                raise
            except RETRYABLE as exc:
                self.open = True
                error = _redact(f"{type(exc).__name__}: {exc}", self.key)[:1000]
                if isinstance(exc, litellm.RateLimitError):
                    self.limiter.on_throttle()
                if attempt < self.judge.max_attempts:
                    await asyncio.sleep(self._backoff(attempt, _retry_after(exc)))
            except Exception as exc:  # bad request, auth, unsupported parameter: not retryable
                error = _redact(f"{type(exc).__name__}: {exc}", self.key)[:1000]
                status = fatal_status(exc)
                if status is not None:
                    self._fatal(status, exc, error)
                else:
                    self.open = True
                return None, error, attempt
        return None, error, self.judge.max_attempts

    async def judge_one(self, call: Call) -> dict:
        """One planned call → one store row. Never a score without an `ok` parse."""
        started = time.perf_counter()
        messages, answers = call.messages, []
        attempts = prompt_tokens = completion_tokens = 0
        cached: list[int | None] = [None, None]  # read, written: summed over asks that say
        cost = 0.0
        status, score, error, probs = ERROR, None, None, None
        for _ in range(self.judge.max_reasks + 1):
            resp, error, n = await self.ask(messages, call.params)
            attempts += n
            if resp is None:
                status, score = ERROR, None
                break
            raw = resp.choices[0].message.content or ""
            answers.append(raw)
            probs = response_probs(resp, call.scale)  # of the last answer, as `raw` and `score` are
            usage = getattr(resp, "usage", None)
            prompt_tokens += getattr(usage, "prompt_tokens", 0) or 0
            completion_tokens += getattr(usage, "completion_tokens", 0) or 0
            for i, n in enumerate(cache_tokens(usage)):
                if n is not None:
                    cached[i] = (cached[i] or 0) + n
            cost += (getattr(resp, "_hidden_params", None) or {}).get("response_cost") or 0.0
            status, score = parse_score(raw, call.scale)
            if status == OK:
                break
            messages = reask_messages(call.messages, raw, status, call.scale)
        return {
            "key": call.key,
            "base_key": call.base_key,
            "model": self.judge.model,
            "endpoint": self.endpoint,
            "status": status,
            "score": score,
            "raw": answers[-1] if answers else None,
            "answers": json.dumps(answers, ensure_ascii=False),
            "error": error if status == ERROR else None,
            "attempts": attempts,
            "latency_s": time.perf_counter() - started,
            "prompt_tokens": prompt_tokens if answers else None,
            "completion_tokens": completion_tokens if answers else None,
            "cost_usd": cost if answers and cost else None,
            "run_id": self.run_id,
            "created_at": datetime.now(UTC),
            "source": "call",
            "cached_tokens": cached[0],
            "cache_write_tokens": cached[1],
            "batch_id": None,
            "probs": json.dumps(probs) if probs is not None else None,
        }

    async def run(
        self,
        calls: list[Call],
        record: Callable[[dict], object],
        on_done: Callable[[str], object] | None = None,
    ) -> Counter:
        """Run `calls`; `record` gets each finished row and makes it durable (awaited when it
        returns an awaitable) before that worker takes another call; `on_done` gets each
        finished call's status (progress)."""
        pending = iter(calls)
        counts: Counter = Counter()
        skipped: list[str] = []

        async def one(call: Call) -> dict | None:
            if self.open:
                return await self.judge_one(call)
            async with self.first_call:  # one at a time while every request was refused
                if self.halt is not None:
                    return None
                if not self.open:
                    return await self.judge_one(call)
            return await self.judge_one(call)

        async def worker() -> None:
            me = asyncio.current_task()
            for call in pending:  # a shared iterator: each call is taken by one worker
                if self.gate.closed():
                    await _parked()
                abandoned, row = False, None
                try:
                    row = None if self.halt is not None else await one(call)
                    if row is not None:
                        durable = record(row)
                        if inspect.isawaitable(durable):
                            await durable
                except lifecycle.GateClosed:  # a stop before this call's next request
                    abandoned = True
                finally:
                    if me in self.calls_out:  # it was in flight
                        self.calls_out.discard(me)
                        self.gate.end_call(abandoned)
                if abandoned:
                    await _parked()
                if row is None:  # stopped: the call is not sent and not stored
                    skipped.append(call.key)
                    continue
                counts[row["status"]] += 1
                if on_done is not None:
                    on_done(row["status"])

        # More workers than the ceiling: the limiter, not the worker count, bounds requests,
        # and workers sleeping in backoff do not hold a slot. (shard.run_lanes sizes the
        # loop's thread pool, through which litellm hops on every call.)
        n_workers = min(len(calls), self.judge.concurrency * 2) or 1
        if self.gate.closed():
            await _parked()
        try:
            await asyncio.gather(*(worker() for _ in range(n_workers)))
        finally:
            if self.halt is not None:
                self.halt["skipped"] = len(skipped)
        return counts
