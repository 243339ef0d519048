"""Store parts are trusted by checksum and schema: a foreign, garbage or changed part is named
once and skipped by every reader (done_keys, latest_rows, compaction, stg_judgments, `plan`);
parts written before checksums are adopted once."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import polars as pl
import pytest
from filestudy import judgelab, write_study

from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging import journal, store
from tasks.judging.shard import Compactor


def _rows(n: int = 3, score: float = 3.0, at: datetime | None = None) -> pl.DataFrame:
    return store.rows_to_frame(
        [
            {
                "key": f"{i:064d}",
                "base_key": None,
                "model": "fake/x",
                "endpoint": None,
                "status": "ok",
                "score": score,
                "raw": f'{{"score": {score:g}}}',
                "answers": "[]",
                "error": None,
                "attempts": 1,
                "latency_s": 0.1,
                "prompt_tokens": 1,
                "completion_tokens": 1,
                "cost_usd": None,
                "run_id": "r",
                "created_at": at or datetime(2026, 1, 1, tzinfo=UTC),
            }
            for i in range(n)
        ]
    )


def _skipped(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("skipping part")]


def test_a_foreign_part_is_named_once_and_read_by_no_reader(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """A well-formed fake part (newer rows, score 99, as a COPY into the store wrote) and a
    garbage file: neither changes a stored answer, neither raises."""
    caplog.set_level(logging.WARNING)
    real = store.write_part(settings.store_dir, _rows())
    fake = settings.store_dir / "part-99999999T000000000000-fake.parquet"
    _rows(score=99.0, at=datetime.now(UTC)).write_parquet(fake)
    garbage = settings.store_dir / "part-zzz.parquet"
    garbage.write_bytes(b"not parquet at all\n" * 10)

    assert store.part_files(settings.store_dir) == [real]
    assert store.done_keys(settings.store_dir).height == 3
    assert store.latest_rows(settings.store_dir)["score"].to_list() == [3.0, 3.0, 3.0]
    warehouse.publish_views(settings)
    view = warehouse.query(settings, "select score from stg_judgments")
    assert view["score"].to_list() == [3.0, 3.0, 3.0]
    lines = _skipped(caplog)
    assert len(lines) == 2  # one per foreign file, however often the store is read
    assert any(str(fake) in line and "no checksum recorded" in line for line in lines)
    assert any(str(garbage) in line and "not a Parquet file" in line for line in lines)

    compacted = store.compact(settings.store_dir)
    assert fake.exists() and garbage.exists()  # skipped, never deleted
    assert store.part_files(settings.store_dir) == [compacted]


def test_a_part_changed_after_it_was_written_is_skipped(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    kept = store.write_part(settings.store_dir, _rows(2))
    changed = store.write_part(settings.store_dir, _rows(3, at=datetime(2026, 2, 1, tzinfo=UTC)))
    _rows(3, score=99.0, at=datetime.now(UTC)).write_parquet(changed)  # same name, new rows
    assert store.part_files(settings.store_dir) == [kept]
    assert store.latest_rows(settings.store_dir)["score"].to_list() == [3.0, 3.0]
    (line,) = _skipped(caplog)
    assert str(changed) in line and "checksum differs" in line


def test_parts_written_before_checksums_are_adopted_once(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """A store an earlier version wrote (no checksums): its parts that fit the schema are
    recorded the first time the store is read; a part that appears later is foreign."""
    caplog.set_level(logging.WARNING)
    settings.store_dir.mkdir(parents=True)
    old = settings.store_dir / "part-20260101T000000000000-0ld00000.parquet"
    _rows(2).drop("endpoint", "base_key").write_parquet(old)  # as written before endpoints
    odd = settings.store_dir / "part-20260102T000000000000-0dd00000.parquet"
    pl.DataFrame({"key": ["k"], "note": ["not a judgment"]}).write_parquet(odd)
    assert store.part_files(settings.store_dir) == [old]
    assert store.done_keys(settings.store_dir).height == 2
    (line,) = _skipped(caplog)
    assert str(odd) in line and "unknown column(s) note" in line and "no column(s)" in line

    later = settings.store_dir / "part-20260103T000000000000-1a7e0000.parquet"
    _rows(3, score=99.0, at=datetime.now(UTC)).write_parquet(later)
    assert store.part_files(settings.store_dir) == [old]
    assert store.latest_rows(settings.store_dir)["score"].to_list() == [3.0, 3.0]
    assert any(str(later) in line and "no checksum" in line for line in _skipped(caplog))


def test_the_store_view_lists_parts_as_a_stage_adds_them(settings: Settings) -> None:
    """stg_judgments reads a list of verified parts, not a glob; a judge stage refreshes it
    after each part (warehouse.refresh_store_view), so SQL still sees calls arrive."""
    store.write_part(settings.store_dir, _rows(2))
    warehouse.publish_views(settings)
    count = "select count(*) as n from stg_judgments"
    store.write_part(settings.store_dir, _rows(5, at=datetime(2026, 1, 1, tzinfo=UTC)))
    assert warehouse.query(settings, count)["n"].item() == 2  # not listed yet
    assert warehouse.refresh_store_view(settings)
    assert warehouse.query(settings, count)["n"].item() == 5
    (settings.store_dir / "part-zzz.parquet").write_bytes(b"garbage")
    assert warehouse.refresh_store_view(settings)
    assert warehouse.query(settings, count)["n"].item() == 5


def test_plan_names_a_garbage_part_in_one_line_and_goes_on(tmp_path: Path) -> None:
    """Before: every `plan` or `run` ended in a traceback from polars' Parquet reader."""
    study = write_study(tmp_path)
    data = tmp_path / "data"
    store_dir = Settings(data_dir=data).store_dir
    store.write_part(store_dir, _rows())
    (garbage := store_dir / "part-zzz.parquet").write_bytes(b"garbage")
    proc = judgelab("plan", str(study), env={"JUDGELAB_DATA_DIR": str(data)}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    named = [line for line in proc.stderr.splitlines() if str(garbage) in line]
    assert len(named) == 1 and "not a Parquet file" in named[0], proc.stderr
    assert "planned" in proc.stdout


def _journal(store_dir: Path, frame: pl.DataFrame) -> None:
    book = journal.Journal(store_dir)

    async def rows() -> None:
        await asyncio.gather(*(book.append(r) for r in frame.to_dicts()))

    try:
        asyncio.run(rows())
    finally:
        book.close()


def test_a_foreign_part_named_like_a_journal_range_deletes_no_journal_row(
    settings: Settings,
) -> None:
    """Compaction forgets the journal rows a part's name covers: only a verified part's."""
    _journal(settings.store_dir, _rows(3))
    cover = settings.store_dir / f"{journal.part_name(1, 10**14)}-f0000000.parquet"
    cover.write_bytes(b"garbage")
    assert store.compact_journal(settings.store_dir) == 3
    assert store.done_keys(settings.store_dir).height == 3


def test_the_compactor_refreshes_the_view_after_each_part(settings: Settings) -> None:
    store.ensure_store(settings.store_dir)
    warehouse.publish_views(settings)
    compactor = Compactor(settings.store_dir, 2, partial(warehouse.refresh_store_view, settings))
    count = "select count(*) as n from stg_judgments"
    _journal(settings.store_dir, _rows(2))
    compactor.tick()
    compactor.tick()  # every 2 rows: a part, in the background
    compactor.thread.join()
    assert warehouse.query(settings, count)["n"].item() == 2
    _journal(settings.store_dir, _rows(3))
    compactor.close()  # the rest, at the end
    assert warehouse.query(settings, count)["n"].item() == 3
