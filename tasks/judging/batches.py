"""Provider batch APIs: a judge's missing calls at about half price, each paid for once.

Every phase of a batch is journaled (journal.py's `batches` table) before the next starts:
`written` (the input file is on disk and its calls are listed) → `uploaded` (file id) →
`created` (batch id) → `ended` (the provider's final status) → `stored` (its answers are in
the journal, in the same transaction). A run killed at any phase resumes from that row: it
uploads a written file; before creating a batch it looks for one carrying the row's tag in
its metadata, because a create whose reply was lost has created it (the SDK's own retries
are off: retrying that POST pays for the batch twice); it polls, downloads and stores.
A batch is driven by one run at a time (a claim on `batch:<ref>`, claims.py); the calls in
it are claimed like online calls, so two studies that plan the same calls share one batch.

The request body is the online request's (engine.request_kwargs), so keys and answers are
what an online run stores; rows differ only in provenance (`batch_id`, run, times).
Per-request errors are stored as `error` rows and sent again in the next batch, up to the
judge's `max_attempts` batches; calls an expired or cancelled batch did not answer are
sent again without a row. An answer that does not parse is stored as it is, with its raw
text (no re-ask: that would be another round trip of up to a day).
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import sqlite3
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import litellm

from judgelab import tempfiles
from judgelab.study import Judge
from tasks.judging import journal, store
from tasks.judging.engine import Call, api_key, cache_tokens, request_kwargs
from tasks.judging.keys import endpoint
from tasks.judging.parse import ERROR, parse_score
from tasks.judging.scales import Scale, load_scales

log = logging.getLogger("judgelab.progress")

# providers whose batch files litellm writes in OpenAI's JSONL format (litellm 1.106.12 also
# batches vertex_ai, bedrock and others, each with its own file format: not yet here)
PROVIDERS = ("openai", "azure")
OPEN = ("written", "uploaded", "created", "ended")
ENDED = ("completed", "failed", "expired", "cancelled")
TAG = "judgelab_batch"  # metadata key: the row's ref, to find a batch whose create reply was lost
URL = "/v1/chat/completions"
TRANSPORT = ("timeout", "num_retries", "max_retries", "api_base", "api_key")
TRANSPORT_EXTRA = ("allowed_openai_params",)


def provider(judge: Judge) -> tuple[str, str] | None:
    """(provider, the model's name at the provider) when litellm batches this judge's
    provider in the OpenAI file format; None: its calls go online."""
    try:
        model, name, _key, _base = litellm.get_llm_provider(
            model=judge.model, api_base=judge.api_base
        )
    except Exception:  # unknown provider: the load-time check names it
        return None
    return (name, model) if name in PROVIDERS else None


def enabled(judge: Judge) -> bool:
    """Whether this judge's calls go through batches: it asks for them and litellm batches
    its provider (otherwise its calls go online, and the run says so: shard.run_lanes)."""
    return bool(judge.batch) and provider(judge) is not None


def body(judge: Judge, call: Call, model: str) -> dict:
    """The online request's body for the provider: what it answers and bills."""
    kwargs = request_kwargs(judge, call.messages, call.params, None)
    for name in (*TRANSPORT, *TRANSPORT_EXTRA):
        kwargs.pop(name, None)
    return kwargs | {"model": model}


def lines(judge: Judge, calls: list[Call], model: str) -> Iterator[bytes]:
    """One JSONL request line per call; its custom_id is the call key."""
    for call in calls:
        request = {"custom_id": call.key, "method": "POST", "url": URL}
        yield (json.dumps(request | {"body": body(judge, call, model)}) + "\n").encode()


def chunks(judge: Judge, calls: list[Call], model: str) -> Iterator[list[tuple[Call, bytes]]]:
    """Calls in plan order (a design's calls together: its prompt prefix is cached), cut at
    the judge's requests and bytes per batch."""
    chunk: list[tuple[Call, bytes]] = []
    size = 0
    for call, line in zip(calls, lines(judge, calls, model), strict=True):
        if chunk and (len(chunk) >= judge.batch_size or size + len(line) > judge.batch_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append((call, line))
        size += len(line)
    if chunk:
        yield chunk


def input_file(store_dir: Path, ref: str) -> Path:
    return store_dir / "batches" / f"{ref}.jsonl"


def write(
    con: sqlite3.Connection,
    store_dir: Path,
    judge: Judge,
    label: str,
    chunk: list[tuple[Call, bytes]],
) -> dict:
    """Phase `written`: the input file on disk, then its row and calls in one transaction."""
    ref = uuid.uuid4().hex
    path = input_file(store_dir, ref)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfiles.replacing(path) as tmp:
        tmp.write_bytes(b"".join(line for _, line in chunk))
    now = time.time()
    row = {
        "ref": ref,
        "label": label,
        "judge": judge.name,
        "model": judge.model,
        "api_base": judge.api_base,
        "endpoint": endpoint(judge),
        "api_key_env": judge.api_key_env,
        "n": len(chunk),
        "phase": "written",
        "created": now,
        "updated": now,
    }
    with con:
        con.execute("begin immediate")
        con.execute(
            f"insert into batches ({', '.join(row)}) values ({', '.join('?' * len(row))})",
            list(row.values()),
        )
        con.executemany(
            "insert into batch_calls (ref, key, base_key, scale) values (?, ?, ?, ?)",
            [(ref, c.key, c.base_key, c.scale.name) for c, _ in chunk],
        )
    return read(con, ref)


def read(con: sqlite3.Connection, ref: str) -> dict:
    cur = con.execute("select * from batches where ref = ?", (ref,))
    names = [d[0] for d in cur.description]
    return dict(zip(names, cur.fetchone(), strict=True))


def listed(con: sqlite3.Connection, only_open: bool = True) -> list[dict]:
    """The journaled batches (in flight only, by default), oldest first."""
    where = f"where phase in ({', '.join('?' * len(OPEN))})" if only_open else ""
    cur = con.execute(f"select * from batches {where} order by created", OPEN if only_open else ())
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def open_holding(con: sqlite3.Connection, keys: list[str]) -> list[dict]:
    """Batches in flight that hold any of `keys`."""
    con.execute("create temp table if not exists wanted_batch (key text primary key)")
    con.execute("delete from wanted_batch")
    con.executemany("insert or ignore into wanted_batch values (?)", [(k,) for k in keys])
    refs = con.execute(
        "select distinct b.ref from batches b join batch_calls c on c.ref = b.ref"
        f" where b.phase in ({', '.join('?' * len(OPEN))})"
        " and c.key in (select key from wanted_batch) order by b.created",
        OPEN,
    ).fetchall()
    return [read(con, ref) for (ref,) in refs]


def batch_keys(con: sqlite3.Connection, ref: str) -> set[str]:
    return {k for (k,) in con.execute("select key from batch_calls where ref = ?", (ref,))}


def update(con: sqlite3.Connection, ref: str, **fields: object) -> dict:
    fields["updated"] = time.time()
    sets = ", ".join(f"{k} = ?" for k in fields)
    con.execute(f"update batches set {sets} where ref = ?", [*fields.values(), ref])
    return read(con, ref)


class Client:
    """litellm's files and batches calls for one judge's provider (SDK retries off)."""

    def __init__(self, model: str, api_base: str | None, key: str | None, name: str) -> None:
        given = {"api_base": api_base, "api_key": key}
        self.opts = {"custom_llm_provider": name, "max_retries": 0}
        self.opts |= {k: v for k, v in given.items() if v is not None}
        self.model = model

    @classmethod
    def of(cls, judge: Judge) -> Client:
        found = provider(judge)
        if found is None:
            raise ValueError(f"judge {judge.name!r}: litellm has no batch API for {judge.model}")
        name, model = found
        return cls(model, judge.api_base, api_key(judge), name)

    async def upload(self, path: Path) -> str:
        file = await litellm.acreate_file(
            file=(path.name, path.read_bytes()), purpose="batch", **self.opts
        )
        return file.id

    async def find(self, ref: str, since: float) -> str | None:
        """The batch created for `ref`, if one was: the provider lists newest first, so the
        search stops at batches older than the row (`since`, less a minute of clock skew)."""
        after = None
        while True:
            page = await litellm.alist_batches(limit=100, after=after, **self.opts)
            for batch in page.data:
                if (batch.metadata or {}).get(TAG) == ref:
                    return batch.id
            oldest = page.data[-1].created_at if page.data else 0
            if not page.data or not getattr(page, "has_more", False) or oldest < since - 60:
                return None
            after = page.data[-1].id

    async def create(self, file_id: str, ref: str) -> str:
        batch = await litellm.acreate_batch(
            completion_window="24h",
            endpoint=URL,
            input_file_id=file_id,
            metadata={TAG: ref},
            **self.opts,
        )
        return batch.id

    async def retrieve(self, batch_id: str):
        return await litellm.aretrieve_batch(batch_id=batch_id, **self.opts)

    async def cancel(self, batch_id: str):
        return await litellm.acancel_batch(batch_id=batch_id, **self.opts)

    async def close(self) -> None:
        """litellm makes an SDK client per files or batches call and drops it unclosed; those
        caught in reference cycles would close after this loop has (\"Event loop is closed\"),
        keeping their sockets until then. Collected here, their closing runs in this loop."""
        gc.collect()
        for _ in range(3):
            await asyncio.sleep(0)

    async def content(self, file_id: str | None) -> list[dict]:
        if file_id is None:
            return []
        got = await litellm.afile_content(file_id=file_id, **self.opts)
        return [json.loads(line) for line in got.content.decode().splitlines() if line.strip()]


def answer_row(line: dict, call: dict, scale: Scale, batch: dict, run_id: str) -> dict | None:
    """One output or error line → a store row (None: not answered, as when a batch expired:
    the call is sent again, with no row)."""
    response, error = line.get("response") or {}, line.get("error")
    code = response.get("status_code")
    if error and not response:
        if error.get("code") == "batch_expired":
            return None
        status, raw, text = ERROR, None, f"batch: {error.get('code')}: {error.get('message')}"
    elif code != 200:
        detail = (response.get("body") or {}).get("error") or {}
        status, raw, text = ERROR, None, f"batch: HTTP {code}: {detail.get('message', '')}"
    else:
        text = None
        answer = response["body"]
        raw = answer["choices"][0]["message"].get("content") or ""
    usage = response.get("body", {}).get("usage") if code == 200 else None
    score = None
    if raw is not None:
        status, score = parse_score(raw, scale)
    read, written = cache_tokens(usage or {})
    return {
        "key": call["key"],
        "base_key": call["base_key"],
        "model": batch["model"],
        "endpoint": batch["endpoint"],
        "status": status,
        "score": score,
        "raw": raw,
        "answers": json.dumps([raw] if raw is not None else [], ensure_ascii=False),
        "error": text if status == ERROR else None,
        "attempts": 1,
        "latency_s": max(0.0, batch["updated"] - batch["created"]),  # the batch's turnaround
        "prompt_tokens": usage.get("prompt_tokens") if usage else None,
        "completion_tokens": usage.get("completion_tokens") if usage else None,
        "cost_usd": None,  # priced by the cost stage from tokens at the batch rate
        "run_id": run_id,
        "created_at": datetime.now(UTC),
        "source": "call",
        "cached_tokens": read,
        "cache_write_tokens": written,
        "batch_id": batch["batch_id"],
        "probs": None,
    }


def store_rows(con: sqlite3.Connection, ref: str, rows: list[dict]) -> None:
    """Phase `stored`: the answers and the phase in one transaction, so a crash stores all
    or none of them (the next run downloads again: downloads are free)."""
    with con:
        con.execute("begin immediate")
        con.executemany(
            "insert into results (key, status, row) values (?, ?, ?)",
            [(r["key"], r["status"], journal.encode(r)) for r in rows],
        )
        con.execute(
            "update batches set phase = 'stored', updated = ? where ref = ?", (time.time(), ref)
        )


class Driver:
    """Moves one journaled batch through its phases to `stored`."""

    def __init__(
        self,
        con: sqlite3.Connection,
        store_dir: Path,
        client: Client,
        run_id: str,
        poll_s: float,
        on_wait: Callable[[dict], object],
        on_stored: Callable[[list[dict]], object],
    ) -> None:
        self.con, self.store_dir, self.client = con, store_dir, client
        self.run_id, self.poll_s = run_id, poll_s
        self.on_wait, self.on_stored = on_wait, on_stored

    async def drive(self, batch: dict) -> str:
        """→ the batch's final status at the provider ("abandoned": never created)."""
        ref = batch["ref"]
        if batch["phase"] == "written":
            path = input_file(self.store_dir, ref)
            if not path.exists():  # lost with its folder before upload: nothing was paid
                update(self.con, ref, phase="stored", status="abandoned")
                return "abandoned"
            batch = update(self.con, ref, phase="uploaded", file_id=await self.client.upload(path))
        if batch["phase"] == "uploaded":
            found = await self.client.find(ref, batch["created"])
            if found is None:
                try:
                    found = await self.client.create(batch["file_id"], ref)
                except Exception:  # created although the reply was lost?
                    found = await self.client.find(ref, batch["created"])
                    if found is None:
                        raise
            batch = update(self.con, ref, phase="created", batch_id=found)
            input_file(self.store_dir, ref).unlink(missing_ok=True)
        if batch["phase"] == "created":
            batch = await self._poll(batch)
        if batch["phase"] == "ended":
            await self._store(batch)
        return batch["status"]

    async def _poll(self, batch: dict) -> dict:
        while True:
            got = await self.client.retrieve(batch["batch_id"])
            counts = got.request_counts
            done = (counts.completed or 0) if counts else 0
            failed = (counts.failed or 0) if counts else 0
            if got.status in ENDED:
                return update(
                    self.con,
                    batch["ref"],
                    phase="ended",
                    status=got.status,
                    done=done,
                    failed=failed,
                    output_file_id=got.output_file_id,
                    error_file_id=got.error_file_id,
                )
            batch = update(self.con, batch["ref"], status=got.status, done=done, failed=failed)
            self.on_wait(batch)
            await asyncio.sleep(self.poll_s)  # no CPU held while the provider works

    async def _store(self, batch: dict) -> None:
        found = await self.client.content(batch["output_file_id"])
        found += await self.client.content(batch["error_file_id"])
        calls = {
            k: {"key": k, "base_key": b, "scale": s}
            for k, b, s in self.con.execute(
                "select key, base_key, scale from batch_calls where ref = ?", (batch["ref"],)
            )
        }
        scales = load_scales()  # once per batch: it reads the scale files
        rows = []
        for line in found:
            call = calls.get(line.get("custom_id"))
            if call is not None:  # not a request of ours: never stored
                row = answer_row(line, call, scales[call["scale"]], batch, self.run_id)
                rows += [row] if row is not None else []
        store_rows(self.con, batch["ref"], rows)
        self.on_stored(rows)


async def run(
    judge: Judge,
    calls: list[Call],
    claim: Callable[[list[str]], set[str]],
    store_dir: Path,
    run_id: str,
    label: str,
    on_wait: Callable[[dict], object],
    on_stored: Callable[[list[dict]], object],
) -> Counter:
    """Make `calls` (claimed by this run) through batches: first the batches in flight that
    hold any of them (a killed run's, another study's), then new ones for the rest; again
    for calls that came back as errors or unanswered, up to `max_attempts` new rounds.
    → counts by the status stored."""
    con = journal.connect(store_dir)
    client = Client.of(judge)
    counts: Counter = Counter()

    def stored(rows: list[dict]) -> None:
        counts.update(r["status"] for r in rows)
        on_stored(rows)

    driver = Driver(con, store_dir, client, run_id, judge.batch_poll_s, on_wait, stored)
    rounds = 0
    try:
        while True:
            done = set(store.done_keys(store_dir)["key"])
            todo = [c for c in calls if c.key not in done]
            if not todo:
                break
            in_flight = open_holding(con, [c.key for c in todo])
            held = set().union(*(batch_keys(con, b["ref"]) for b in in_flight))
            fresh = [c for c in todo if c.key not in held]
            if fresh and rounds < judge.max_attempts:
                rounds += 1
                for chunk in chunks(judge, fresh, client.model):
                    in_flight.append(write(con, store_dir, judge, label, chunk))
            elif not in_flight:
                break  # attempts used up: the rest are stored as errors already
            mine = [b for b in in_flight if f"batch:{b['ref']}" in claim([f"batch:{b['ref']}"])]
            if not mine:  # another live run drives them: its answers land in the journal
                await asyncio.sleep(judge.batch_poll_s)
                continue
            ended = await asyncio.gather(*(driver.drive(b) for b in mine))
            if "cancelled" in ended:
                log.warning(
                    "%s: a batch was cancelled; its other calls wait for the next run", label
                )
                break
    finally:
        await client.close()
        con.close()
    return counts
