"""Every view publishes on a warehouse no stage has written yet, and answers with no rows."""

from datetime import UTC, datetime

import duckdb
import pytest

from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging import store
from tasks.runs import run_rows


def test_every_view_publishes_before_any_study(settings: Settings) -> None:
    store.ensure_store(settings.store_dir)
    names = warehouse.publish_views(settings)
    assert len(names) == len(warehouse.view_files())
    for name in names:  # empty, but for the sort orders (dim_), which come from files
        n = warehouse.query(settings, f"select count(*) as n from {name}")["n"][0]
        assert (n > 0) if name.startswith("dim_") else (n == 0), name


def test_reading_holds_one_reader_for_its_queries(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside `reading`, every query runs on one read-only connection, which still answers
    when views are published again meanwhile (the views read the Parquet parts as they are
    when queried); after the block, a query opens a reader of its own."""
    at = datetime(2026, 12, 3, tzinfo=UTC)
    store.ensure_store(settings.store_dir)
    warehouse.write_table(settings, run_rows("a", "rating", "r1", at, at, ["j"], {}), "runs", "a")
    warehouse.publish_views(settings)
    opened = []
    real = warehouse.reader
    monkeypatch.setattr(warehouse, "reader", lambda s: opened.append(s) or real(s))
    count = "select count(distinct study) as n from stg_runs"
    with warehouse.reading(settings):
        assert [warehouse.query(settings, count)["n"][0] for _ in range(5)] == [1] * 5
        warehouse.write_table(
            settings, run_rows("b", "rating", "r2", at, at, ["j"], {}), "runs", "b"
        )
        warehouse.publish_views(settings)  # renamed over the file the block reads
        assert warehouse.query(settings, count)["n"][0] == 2
        with pytest.raises(duckdb.PermissionException):  # still a reader
            warehouse.query(settings, "create table t as select 1")
        other = Settings(data_dir=settings.data_dir.parent / "other")
        with pytest.raises(FileNotFoundError):  # another warehouse is not the held one
            warehouse.query(other, count)
    assert len(opened) == 2
    assert warehouse.query(settings, count)["n"][0] == 2 and len(opened) == 3
