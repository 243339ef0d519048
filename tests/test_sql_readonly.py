"""`judgelab sql` only reads: every statement that writes a file, changes the session or loads
code is refused in one line (exit 2) and writes nothing; files outside the warehouse and the
judgment store cannot be read."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from judgelab.cli import main
from judgelab.settings import Settings
from judgelab.testing.sql_door import refused
from tasks import warehouse
from tasks.judging import store


@pytest.fixture
def published(tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Three stored answers (score 3) and the views, as a run leaves them."""
    rows = [
        {
            "key": f"{i:064d}",
            "model": "fake/x",
            "status": "ok",
            "score": 3.0,
            "answers": "[]",
            "attempts": 1,
            "latency_s": 0.1,
            "run_id": "r",
            "created_at": datetime(2026, 1, 1, tzinfo=UTC),
        }
        for i in range(3)
    ]
    store.write_part(settings.store_dir, store.rows_to_frame(rows))
    warehouse.publish_views(settings)
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(settings.data_dir))
    pl.DataFrame({"a": [1]}).write_parquet(tmp_path / "outside.parquet")
    return settings


def _files(root: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def test_every_write_and_outside_read_is_refused_in_one_line(
    tmp_path: Path, published: Settings, capsys: pytest.CaptureFixture
) -> None:
    before = _files(tmp_path)
    for what, sql in refused(published.store_dir, published.warehouse_dir, tmp_path).items():
        assert main(["sql", sql]) == 2, what
        captured = capsys.readouterr()
        assert captured.out == "", what
        (line,) = captured.err.splitlines()  # one line, no traceback
        assert line.startswith("judgelab: "), (what, line)
    assert _files(tmp_path) == before  # nothing written, nothing changed
    assert store.latest_rows(published.store_dir)["score"].to_list() == [3.0, 3.0, 3.0]


def test_reads_inside_the_warehouse_still_answer(
    published: Settings, capsys: pytest.CaptureFixture
) -> None:
    assert main(["sql", "select count(*) as n, max(score) as top from stg_judgments"]) == 0
    assert "│ 3 ┆ 3.0 │" in capsys.readouterr().out
    parts = f"{published.store_dir.resolve()}/part-*.parquet"
    assert main(["sql", f"select count(*) as n from read_parquet('{parts}')"]) == 0
    assert "│ 3 │" in capsys.readouterr().out
