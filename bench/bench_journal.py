"""What the durable journal costs per row. (The judge stage against bare litellm, journal
included: `bench_engine.py compare`.)

commit:     one row made durable, N times: SQLite WAL with synchronous=NORMAL (what the journal
            uses: survives a killed process), SQLite WAL synchronous=FULL (fsync each commit:
            survives power loss) and JSON lines with fsync per row → µs wall and CPU per row.

.venv/bin/python bench/bench_journal.py commit --rows 5000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()


from tasks.judging import journal  # noqa: E402


def _row(i: int) -> dict:
    return {
        "key": f"{i:064x}",
        "model": "openai/mock-judge",
        "status": "ok",
        "score": 4.0,
        "raw": '{"score": 4}',
        "answers": '["{\\"score\\": 4}"]',
        "error": None,
        "attempts": 1,
        "latency_s": 0.2,
        "prompt_tokens": 120,
        "completion_tokens": 6,
        "cost_usd": None,
        "run_id": "bench",
        "created_at": datetime.now(UTC),
    }


def commit(rows: int) -> None:
    def timed(name: str, append) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(rows):
            append(_row(i))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{name:28s} {1e6 * wall / rows:7.0f} µs wall  {1e6 * cpu / rows:6.0f} µs CPU")

    with tempfile.TemporaryDirectory() as tmp:
        for sync in ("normal", "full"):
            book, loop = journal.Journal(Path(tmp) / sync, sync), asyncio.new_event_loop()

            def one_row(row: dict, book: journal.Journal = book, loop=loop) -> None:
                loop.run_until_complete(book.append(row))  # through the writer thread

            timed(f"sqlite wal synchronous={sync}", one_row)
            book.close()
            loop.close()
        with open(Path(tmp) / "rows.jsonl", "a") as fh:

            def jsonl(row: dict) -> None:
                fh.write(json.dumps({**row, "created_at": row["created_at"].isoformat()}) + "\n")
                fh.flush()
                os.fsync(fh.fileno())

            timed("json lines + fsync", jsonl)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("commit")
    c.add_argument("--rows", type=int, default=5000)
    commit(p.parse_args().rows)


if __name__ == "__main__":
    main()
