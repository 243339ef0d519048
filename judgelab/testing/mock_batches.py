"""A mock OpenAI Files + Batches server FOR TESTS AND BENCHMARKS.

Implements `POST /v1/files` (multipart, purpose=batch), `GET /v1/files/{id}`,
`GET /v1/files/{id}/content`, `POST /v1/batches`, `GET /v1/batches/{id}`,
`POST /v1/batches/{id}/cancel` and `GET /v1/batches` the way OpenAI documents them, for the
`/v1/chat/completions` endpoint. Each answer is the online mock's (mock_provider.completion),
so a batch answers a request body exactly as the online mock does.

A batch is `validating` for `--validating` seconds (its lines are checked: JSON, unique
custom_id, method POST, url = the batch's endpoint; a bad file ends `failed` with `errors`),
then `in_progress`: its requests are answered one by one, spread over `--delay` seconds, in
an order that is not the file's (by hash of custom_id), and `request_counts` move as they
are. Then `finalizing` for `--finalizing` seconds, then `completed` with `output_file_id`
(answers) and `error_file_id` (failed requests), each None when it would be empty.
- `--delay-spread S`: each batch takes up to S seconds more (by the hash of its id), so the
  batches of one run end at different times.
- `--fail-share S`: the requests the online mock's `--fail-share S` fails (chosen by the hash
  of their messages; or carrying PERMANENT_FAILURE) land in the error file with a 500 body.
- `--expire-after F`: only a share F of each batch's requests is answered; at the end of
  `--delay` the batch ends `expired`, the rest in the error file as `batch_expired`.
- `--lose-create-replies N`: the first N batches created answer 500 although they were
  created, as when a reply is lost (clients that retry the POST create a second batch).
- Cancel: `cancelling` until the request in hand is done, then `cancelled`; the answers so far
  are in the output file, requests never started are in neither file. Cancelling a batch
  that has ended answers 409.
Batch metadata `mock_delay` and `mock_expire_after` override the options for one batch.
Input files (purpose batch) cannot be downloaded, as at OpenAI. `POST /v1/chat/completions`
answers online, at once, as a batch would (logged with batch None).

Every answered request is logged as one JSON line (time, batch, custom_id, model, hashes of
its messages and of its body, outcome `ok` or `failed`); `answered(log)` counts answers per
body hash, so a test can see a request paid for twice.

Run: python -m judgelab.testing.mock_batches --delay 0.5 --fail-share 0.2 --log req.jsonl
It prints `listening http://127.0.0.1:PORT` once ready.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from judgelab.testing.mock_provider import (
    body_hash,
    completion,
    fails_always,
    messages_hash,
    read_log,
    spawn,
)

ENDPOINT = "/v1/chat/completions"
COUNTS = ("total", "completed", "failed")
CANCELLABLE = ("validating", "in_progress", "cancelling")
EXPIRED = {
    "code": "batch_expired",
    "message": "This request could not be executed before the completion window expired.",
}


def _error(status: int, message: str, kind: str = "invalid_request_error") -> web.Response:
    return web.json_response({"error": {"message": message, "type": kind}}, status=status)


def _line(custom_id: str, response: dict | None, error: dict | None) -> str:
    entry = {"id": f"batch_req_{uuid.uuid4().hex}", "custom_id": custom_id}
    return json.dumps(entry | {"response": response, "error": error})


def check_lines(text: str, endpoint: str) -> tuple[list[dict], list[dict]]:
    """The requests of an input file, and the problems that fail the batch (1-based lines)."""
    requests: list[dict] = []
    problems: list[dict] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            request = json.loads(raw)
        except json.JSONDecodeError:
            problems.append({"code": "invalid_json_line", "line": number, "message": "not JSON"})
            continue
        custom_id = request.get("custom_id")
        if not isinstance(custom_id, str) or custom_id in seen:
            message = f"custom_id {custom_id!r} is missing or repeated"
            problems.append({"code": "duplicate_custom_id", "line": number, "message": message})
        elif request.get("method") != "POST" or request.get("url") != endpoint:
            message = f"method must be POST and url {endpoint}"
            problems.append({"code": "invalid_url", "line": number, "message": message})
        elif not isinstance(request.get("body"), dict):
            problems.append({"code": "missing_body", "line": number, "message": "no body"})
        else:
            seen.add(custom_id)
            requests.append(request)
    if not requests and not problems:
        problems.append({"code": "empty_file", "line": None, "message": "no requests"})
    for p in problems:
        p["param"] = None
    return requests, problems


@dataclass
class Batch:
    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    metadata: dict | None
    created_at: int
    status: str = "validating"
    stamps: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    output: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    problems: list[dict] = field(default_factory=list)
    output_file_id: str | None = None
    error_file_id: str | None = None

    def move(self, status: str) -> None:
        self.status = status
        self.stamps[f"{status}_at"] = int(time.time())

    def as_json(self) -> dict:
        stamps = ("in_progress", "finalizing", "completed", "failed", "expired", "cancelling")
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "errors": {"object": "list", "data": self.problems} if self.problems else None,
            "input_file_id": self.input_file_id,
            "completion_window": self.completion_window,
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "expires_at": self.created_at + 24 * 3600,
            **{f"{s}_at": self.stamps.get(f"{s}_at") for s in (*stamps, "cancelled")},
            "request_counts": dict(self.counts),
            "metadata": self.metadata,
        }


class MockBatches:
    def __init__(self, args: argparse.Namespace) -> None:
        self.delay, self.validating, self.finalizing = args.delay, args.validating, args.finalizing
        self.delay_spread = args.delay_spread
        self.fail_share, self.expire_after = args.fail_share, args.expire_after
        self.lost_replies = args.lose_create_replies
        log = Path(args.log) if args.log else None
        self.log = log.open("a", buffering=1) if log else None
        self.files: dict[str, tuple[dict, bytes]] = {}
        self.batches: dict[str, Batch] = {}
        self.tasks: set[asyncio.Task] = set()

    def _store(self, content: bytes, filename: str, purpose: str) -> dict:
        meta = {
            "id": f"file-{uuid.uuid4().hex[:24]}",
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
            "expires_at": None,
            "status_details": None,
        }
        self.files[meta["id"]] = (meta, content)
        return meta

    async def upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if form.get("purpose") != "batch" or not isinstance(upload, web.FileField):
            return _error(400, "expected purpose=batch and a file")
        return web.json_response(self._store(upload.file.read(), upload.filename, "batch"))

    async def get_file(self, request: web.Request) -> web.Response:
        found = self.files.get(request.match_info["id"])
        return web.json_response(found[0]) if found else _error(404, "No such file")

    async def file_content(self, request: web.Request) -> web.Response:
        found = self.files.get(request.match_info["id"])
        if not found:
            return _error(404, "No such file")
        meta, content = found
        if meta["purpose"] == "batch":
            return _error(400, "Not allowed to download files of purpose: batch")
        return web.Response(body=content, content_type="application/octet-stream")

    async def create(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("endpoint") != ENDPOINT:
            return _error(400, f"this mock serves only {ENDPOINT}")
        if body.get("completion_window") != "24h":
            return _error(400, "completion_window must be 24h")
        found = self.files.get(body.get("input_file_id", ""))
        if not found or found[0]["purpose"] != "batch":
            return _error(404, "No such input file with purpose batch")
        batch = Batch(
            id=f"batch_{uuid.uuid4().hex[:24]}",
            input_file_id=found[0]["id"],
            endpoint=ENDPOINT,
            completion_window="24h",
            metadata=body.get("metadata"),
            created_at=int(time.time()),
        )
        self.batches[batch.id] = batch
        task = asyncio.create_task(self._run(batch, found[1].decode()))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        if self.lost_replies > 0:
            self.lost_replies -= 1
            return _error(500, "The server had an error (the batch was created)", "server_error")
        return web.json_response(batch.as_json())

    async def get_batch(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        return web.json_response(batch.as_json()) if batch else _error(404, "No such batch")

    async def cancel(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if not batch:
            return _error(404, "No such batch")
        if batch.status not in CANCELLABLE:
            return _error(409, f"Cannot cancel a batch with status '{batch.status}'.")
        if batch.status != "cancelling":
            batch.move("cancelling")
        return web.json_response(batch.as_json())

    async def list_batches(self, request: web.Request) -> web.Response:
        newest_first = list(reversed(self.batches.values()))
        after = request.query.get("after")
        if after:
            ids = [b.id for b in newest_first]
            newest_first = newest_first[ids.index(after) + 1 :] if after in ids else []
        limit = int(request.query.get("limit", 20))
        page = newest_first[:limit]
        return web.json_response(
            {
                "object": "list",
                "data": [b.as_json() for b in page],
                "first_id": page[0].id if page else None,
                "last_id": page[-1].id if page else None,
                "has_more": len(newest_first) > limit,
            }
        )

    def _option(self, batch: Batch, key: str, default: float | None) -> float | None:
        value = (batch.metadata or {}).get(key)
        return float(value) if value is not None else default

    async def _run(self, batch: Batch, text: str) -> None:
        """The batch's life: validate, answer its requests over the delay, finalize."""
        started = time.monotonic()
        await asyncio.sleep(self.validating)
        requests, problems = check_lines(text, batch.endpoint)
        if batch.status == "cancelling":
            return self._finish(batch, "cancelled")
        if problems:
            batch.problems = problems
            batch.move("failed")
            return
        batch.counts["total"] = len(requests)
        batch.move("in_progress")
        delay = self._option(batch, "mock_delay", self.delay)
        u = int(hashlib.sha256(batch.id.encode()).hexdigest()[:8], 16) / 16**8
        delay += self.delay_spread * u  # batches of one run end at different times
        share = self._option(batch, "mock_expire_after", self.expire_after)
        answered = len(requests) if share is None else int(share * len(requests))
        order = sorted(requests, key=lambda r: hashlib.sha256(r["custom_id"].encode()).digest())
        for request in order[:answered]:
            await asyncio.sleep(delay / len(requests))
            self._answer(batch, request)
            if batch.status == "cancelling":
                return self._finish(batch, "cancelled")
        if answered < len(requests):
            await asyncio.sleep(max(0.0, started + delay - time.monotonic()))
            if batch.status == "cancelling":
                return self._finish(batch, "cancelled")
            batch.errors += [_line(r["custom_id"], None, EXPIRED) for r in order[answered:]]
            return self._finish(batch, "expired")
        batch.move("finalizing")
        await asyncio.sleep(self.finalizing)
        self._finish(batch, "completed")

    def _answer(self, batch: Batch, request: dict) -> None:
        body = request["body"]
        digest = messages_hash(body.get("messages", []))
        if fails_always(body.get("messages", []), digest, self.fail_share):
            outcome, lines = "failed", batch.errors
            error = {"error": {"message": "internal error", "type": "server_error"}}
            response = _response(500, error)
        else:
            outcome, lines = "ok", batch.output
            response = _response(200, completion(body))
        lines.append(_line(request["custom_id"], response, None))
        batch.counts["completed" if outcome == "ok" else "failed"] += 1
        self._log(batch.id, request["custom_id"], body, digest, outcome)

    def _log(
        self, batch: str | None, custom_id: str | None, body: dict, digest: str, outcome: str
    ) -> None:
        """One answered request (batch None: online), for `answered`."""
        if self.log:
            entry = {"t": time.time(), "batch": batch, "custom_id": custom_id}
            entry |= {"model": body.get("model", ""), "messages": digest}
            entry |= {"body": body_hash(body), "outcome": outcome}
            self.log.write(json.dumps(entry) + "\n")

    async def chat(self, request: web.Request) -> web.Response:
        """The online endpoint, answered at once as in a batch: one server for both modes,
        so an online and a batch run store the same endpoint and answers."""
        body = await request.json()
        self._log(None, None, body, messages_hash(body.get("messages", [])), "ok")
        return web.json_response(completion(body))

    def _finish(self, batch: Batch, status: str) -> None:
        """Store the output and error files, then end the batch (files first: no half state)."""
        for lines, kind in ((batch.output, "output"), (batch.errors, "error")):
            if lines:
                content = ("\n".join(lines) + "\n").encode()
                meta = self._store(content, f"{batch.id}_{kind}.jsonl", "batch_output")
                setattr(batch, f"{kind}_file_id", meta["id"])
        batch.move(status)


def _response(status: int, body: dict) -> dict:
    return {"status_code": status, "request_id": f"req_{uuid.uuid4().hex}", "body": body}


def answered(log: Path) -> Counter[str]:
    """How often each request body was answered (paid for), by body hash."""
    return Counter(r["body"] for r in read_log(log) if r["outcome"] == "ok")


async def serve(args: argparse.Namespace) -> None:
    mock = MockBatches(args)
    app = web.Application(client_max_size=256 * 1024**2)
    for prefix in ("/v1", ""):
        app.router.add_post(f"{prefix}/files", mock.upload)
        app.router.add_get(f"{prefix}/files/{{id}}", mock.get_file)
        app.router.add_get(f"{prefix}/files/{{id}}/content", mock.file_content)
        app.router.add_post(f"{prefix}/batches", mock.create)
        app.router.add_get(f"{prefix}/batches", mock.list_batches)
        app.router.add_get(f"{prefix}/batches/{{id}}", mock.get_batch)
        app.router.add_post(f"{prefix}/batches/{{id}}/cancel", mock.cancel)
        app.router.add_post(f"{prefix}/chat/completions", mock.chat)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", args.port)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"listening http://127.0.0.1:{port}", flush=True)
    await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--delay", type=float, default=0.5, help="seconds to answer a whole batch")
    p.add_argument(
        "--delay-spread", type=float, default=0.0, help="plus up to this many seconds per batch"
    )
    p.add_argument("--validating", type=float, default=0.05, help="seconds in validating")
    p.add_argument("--finalizing", type=float, default=0.0, help="seconds in finalizing")
    p.add_argument("--fail-share", type=float, default=0.0, help="share of requests that fail")
    p.add_argument("--expire-after", type=float, default=None, help="share answered, then expired")
    p.add_argument("--lose-create-replies", type=int, default=0, help="first N creates answer 500")
    p.add_argument("--log", help="append one JSON line per answered request here")
    asyncio.run(serve(p.parse_args(argv)))


def running(
    log: Path | None = None, **options: float | str
) -> contextlib.AbstractContextManager[str]:
    """Start the batch mock in its own process; yield its base URL (`…/v1`); stop it after."""
    return spawn("judgelab.testing.mock_batches", log, options)


if __name__ == "__main__":
    main()
