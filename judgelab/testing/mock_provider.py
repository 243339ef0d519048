"""A mock OpenAI-compatible chat-completions server FOR TESTS AND BENCHMARKS.

Answers scale-aware `{"score": …}` JSON after a configurable latency and injects faults at
configurable rates: 429 with Retry-After, 500, a hang past the client's timeout, malformed
JSON, an out-of-range score. A message containing PERMANENT_FAILURE always gets a 500.
`--refuse MODEL=STATUS,...` answers every request for MODEL (`*`: any) with that status
(401 bad key, 403 no permission, 404 unknown model, 400 invalid request), as providers do.
`--fail-share S` answers a fixed share S of distinct requests (chosen by their hash) with a
500 every time, so those calls fail after all retries.
Every request is logged as one JSON line (time, hash of the messages and of the whole body,
outcome), so tests can check which calls reached the provider and how often.

Run: python -m judgelab.testing.mock_provider --latency 0.2 --fault-rate 0.3 --log req.jsonl
It prints `listening http://127.0.0.1:PORT` once ready.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from aiohttp import web

PERMANENT_MARKER = "PERMANENT_FAILURE"
FAULTS = ("rate_limited", "server_error", "hang", "garbage", "out_of_range")
REFUSALS = {
    400: ("invalid_request_error", "Invalid request: unsupported parameter"),
    401: ("invalid_request_error", "Incorrect API key provided"),
    403: ("permission_error", "Your key does not have access to this model"),
    404: ("not_found_error", "The model does not exist or you do not have access to it"),
}


def parse_refuse(text: str) -> dict[str, int]:
    """'mock-b=401,*=403' → {'mock-b': 401, '*': 403}."""
    pairs = [p.split("=", 1) for p in text.split(",") if p.strip()]
    return {model.strip(): int(status) for model, status in pairs}


def messages_hash(messages: list[dict]) -> str:
    """The hash tests use to tie a logged request to a planned call's messages."""
    canon = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode()).hexdigest()


def body_hash(body: dict) -> str:
    """The hash of a whole request body: what a provider is paid for, once per answer."""
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode()).hexdigest()


def fails_always(messages: list[dict], digest: str, fail_share: float) -> bool:
    """A request that fails every time: it carries the marker, or its hash falls in the share."""
    marked = any(PERMANENT_MARKER in str(m.get("content", "")) for m in messages)
    return marked or int(digest[8:16], 16) / 16**8 < fail_share


def _score(body: dict, digest: str) -> tuple[float, float, float]:
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    spec = schema.get("properties", {}).get("score", {"minimum": 1, "maximum": 7})
    lo, hi = spec["minimum"], spec["maximum"]
    step = spec.get("multipleOf", 1)
    u = int(digest[:8], 16) / 16**8
    return round(round((lo + u * (hi - lo)) / step) * step, 6), lo, hi


def completion(body: dict, content: str | None = None) -> dict:
    """The chat.completion answer to `body`: its scale-aware score unless `content` is given."""
    messages = body.get("messages", [])
    digest = messages_hash(messages)
    if content is None:
        value, _lo, _hi = _score(body, digest)
        content = json.dumps({"score": int(value) if float(value).is_integer() else value})
    prompt_tokens = sum(len(str(m.get("content", ""))) for m in messages) // 4
    return {
        "id": f"chatcmpl-{digest[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "mock"),
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 6,
            "total_tokens": prompt_tokens + 6,
        },
    }


class MockProvider:
    def __init__(
        self,
        latency: float,
        fault_rate: float,
        hang: float,
        seed: int,
        log: Path | None,
        retry_after: float,
        refuse: dict[str, int] | None = None,
        fail_share: float = 0.0,
    ) -> None:
        self.latency, self.fault_rate, self.hang = latency, fault_rate, hang
        self.refuse = refuse or {}
        self.fail_share = fail_share
        self.retry_after = retry_after
        self.rng = random.Random(seed)
        self.log = log.open("a", buffering=1) if log else None

    def _record(self, body: dict, digest: str, outcome: str) -> None:
        if self.log:
            entry = {
                "t": time.time(),
                "model": body.get("model", ""),
                "messages": digest,
                "body": body_hash(body),
                "outcome": outcome,
            }
            self.log.write(json.dumps(entry) + "\n")

    async def chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        messages = body.get("messages", [])
        digest = messages_hash(messages)
        model = body.get("model", "")
        refused = self.refuse.get(model, self.refuse.get("*"))
        if refused is not None:
            self._record(body, digest, f"refused_{refused}")
            kind, message = REFUSALS.get(refused, ("error", "refused"))
            return web.json_response(
                {"error": {"message": message, "type": kind, "code": str(refused)}},
                status=refused,
            )
        if fails_always(messages, digest, self.fail_share):
            outcome = "permanent_failure"
        elif self.rng.random() < self.fault_rate:
            outcome = self.rng.choice(FAULTS)
        else:
            outcome = "ok"
        self._record(body, digest, outcome)
        await asyncio.sleep(self.latency)
        if outcome == "rate_limited":
            return web.json_response(
                {"error": {"message": "rate limited", "type": "rate_limit"}},
                status=429,
                headers={"Retry-After": str(self.retry_after)},
            )
        if outcome in ("server_error", "permanent_failure"):
            return web.json_response(
                {"error": {"message": "internal error", "type": "server"}}, status=500
            )
        if outcome == "hang":
            await asyncio.sleep(self.hang)
        if outcome == "garbage":
            return web.json_response(completion(body, '{"score": '))  # truncated JSON
        if outcome == "out_of_range":
            _value, _lo, hi = _score(body, digest)
            return web.json_response(completion(body, json.dumps({"score": hi + 1})))
        return web.json_response(completion(body))


async def serve(args: argparse.Namespace) -> None:
    provider = MockProvider(
        args.latency,
        args.fault_rate,
        args.hang,
        args.seed,
        Path(args.log) if args.log else None,
        args.retry_after,
        parse_refuse(args.refuse),
        args.fail_share,
    )
    app = web.Application(client_max_size=16 * 1024**2)
    app.router.add_post("/v1/chat/completions", provider.chat)
    app.router.add_post("/chat/completions", provider.chat)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", args.port, backlog=1024)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"listening http://127.0.0.1:{port}", flush=True)
    await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--latency", type=float, default=0.05, help="seconds before each answer")
    p.add_argument("--fault-rate", type=float, default=0.0, help="share of requests with a fault")
    p.add_argument("--hang", type=float, default=30.0, help="seconds a hanging request waits")
    p.add_argument("--retry-after", type=float, default=0.2, help="Retry-After on 429s")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fail-share", type=float, default=0.0, help="share of requests: 500")
    p.add_argument("--refuse", default="", help="MODEL=STATUS,...: always that status (* any)")
    p.add_argument("--log", help="append one JSON line per request here")
    asyncio.run(serve(p.parse_args(argv)))


@contextlib.contextmanager
def spawn(module: str, log: Path | None, options: dict[str, float | str]) -> Iterator[str]:
    """Start a mock `module` in its own process; yield its base URL (`…/v1`); stop it after."""
    cmd = [sys.executable, "-m", module]
    for name, value in options.items():
        cmd += [f"--{name.replace('_', '-')}", str(value)]
    if log:
        cmd += ["--log", str(log)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()
        if not line.startswith("listening "):
            raise RuntimeError(f"{module} did not start: {line!r}")
        yield line.removeprefix("listening ") + "/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def running(
    log: Path | None = None, **options: float | str
) -> contextlib.AbstractContextManager[str]:
    """Start the mock in its own process; yield its base URL (`…/v1`); stop it afterwards."""
    return spawn("judgelab.testing.mock_provider", log, options)


def read_log(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


if __name__ == "__main__":
    main()
