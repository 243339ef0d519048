"""End to end through `judgelab run`: a study whose judges are a user's 10-row CSV of verdicts
makes no call and fills the pairwise tables; next to a live fake judge on the same pairs,
only the live judge calls, and a rerun calls nobody."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from importstudy import write_study
from test_flow_e2e import calls_made, judgelab

from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow

POSITION = "select judge, prompt_level, n_calls, consistency_pct from tbl_pairwise_position"


def test_an_imported_study_runs_end_to_end_without_calls(tmp_path: Path) -> None:
    data = tmp_path / "data"
    out = judgelab(data, "run", str(write_study(tmp_path / "study")))
    assert calls_made(out, "gpt") == 0 and calls_made(out, "claude") == 0
    assert "6 already stored" in out and "4 already stored" in out
    settings = Settings(data_dir=data)
    table = warehouse.query(settings, POSITION + " order by judge, prompt_level")
    assert table.rows() == [
        ("claude", "plain", 2, 0.0),
        ("claude", "strict", 2, 100.0),
        ("gpt", "plain", 4, 50.0),
        ("gpt", "strict", 2, 100.0),
    ]
    calls = warehouse.query(settings, "select count(*) as n, count(score) as k from fct_calls")
    assert calls.row(0) == (10, 10)
    assert (data / "reports" / "imported.html").is_file()


def test_a_live_judge_next_to_imported_ones_makes_only_its_own_calls(tmp_path: Path) -> None:
    data = tmp_path / "data"
    study_file = write_study(tmp_path / "study", live=True)
    out = judgelab(data, "run", str(study_file))
    assert calls_made(out, "live") == 3 * 2  # pairs × orders at its one prompt level
    assert calls_made(out, "gpt") == 0 and calls_made(out, "claude") == 0
    settings = Settings(data_dir=data)
    rows = store.read_store(settings.store_dir)
    assert rows.group_by("source").len().sort("source").rows() == [("call", 6), ("import", 10)]
    table = warehouse.query(settings, POSITION + " order by judge, prompt_level")
    assert table["judge"].to_list() == ["claude", "claude", "gpt", "gpt", "live"]
    assert table.filter(pl.col("judge") == "live")["n_calls"].item() == 6

    again = judgelab(data, "run", str(study_file))
    assert calls_made(again, "live") == 0
    assert store.read_store(settings.store_dir).height == 16
