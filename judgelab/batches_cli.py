"""`judgelab batches`: the provider batches in flight (tasks/judging/batches.py), from the
store's journal, and cancelling one. A cancelled batch's answers so far are stored by the
run driving it (or the next run); its other calls wait for the next run."""

from __future__ import annotations

import argparse
import time


def age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def cmd_batches(args: argparse.Namespace) -> int:
    import polars as pl

    from judgelab.settings import Settings
    from judgelab.views_cli import print_frame
    from tasks.judging import batches, journal

    store_dir = Settings().store_dir
    if not journal.exists(store_dir):
        print("no batches: this store has no journal yet")
        return 0
    con = journal.connect(store_dir)
    try:
        found = batches.listed(con, only_open=not args.all)
        if args.cancel:
            return cancel(con, found, args.cancel)
    finally:
        con.close()
    if not found:
        print("no batches in flight" + ("" if args.all else " (--all lists finished ones)"))
        return 0
    now = time.time()
    table = pl.DataFrame(
        {
            "batch": [b["batch_id"] or f"({b['ref'][:12]})" for b in found],
            "state": [b["status"] or b["phase"] for b in found],
            "study · judge": [b["label"] for b in found],
            "calls": [b["n"] for b in found],
            "done": [b["done"] for b in found],
            "failed": [b["failed"] for b in found],
            "age": [age(now - b["created"]) for b in found],
        }
    )
    print_frame(table)
    return 0


def cancel(con, found: list[dict], wanted: str) -> int:
    """Ask the provider to cancel the in-flight batch `wanted` (its batch id or ref)."""
    import asyncio

    from judgelab.study import Judge
    from tasks.judging import batches

    match = [b for b in found if wanted in (b["batch_id"], b["ref"])]
    if not match:
        ids = ", ".join(b["batch_id"] or b["ref"] for b in found) or "none"
        print(f"no batch {wanted!r} in flight; in flight: {ids}")
        return 1
    b = match[0]
    if b["batch_id"] is None:  # not created at the provider: nothing to cancel there
        batches.update(con, b["ref"], phase="stored", status="abandoned")
        print(f"batch {b['ref']} was never created at the provider: abandoned")
        return 0
    judge = Judge(
        name="cancel", model=b["model"], api_base=b["api_base"], api_key_env=b["api_key_env"]
    )
    got = asyncio.run(batches.Client.of(judge).cancel(b["batch_id"]))
    print(f"batch {b['batch_id']} ({b['label']}, {b['n']} calls): {got.status}")
    return 0
