"""End to end: studies/pairwise.toml on the embedded judge, a few HH-RLHF pairs, through the CLI
and the real flow; it prints position consistency and bias, and a rerun makes no call. The
texts hold harmful requests: only tables of numbers are printed (and asserted on)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_flow_e2e import calls_made, judgelab

from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow

N_PAIRS = 2
N_CALLS = N_PAIRS * 2 * 3  # pairs × orders × prompt levels


def test_pairwise_study_on_the_embedded_judge_and_rerun_makes_no_calls(tmp_path: Path) -> None:
    data = tmp_path / "data"
    args = ("run", "studies/pairwise.toml", "--sample-size", str(N_PAIRS))
    out = judgelab(data, *args)
    assert calls_made(out, "smollm2-135m") == N_CALLS
    assert "tbl_pairwise_position" in out
    assert "consistency_pct" in out and "bias_pp" in out and "tbl_pairwise_agreement" in out
    settings = Settings(data_dir=data)
    rows = store.read_store(settings.store_dir)
    assert rows.height == N_CALLS and set(rows["status"]) <= {"ok", "unparseable", "out_of_range"}
    table = warehouse.query(settings, "select * from tbl_pairwise_position order by prompt_level")
    assert table.height == 3 and set(table["n_calls"]) == {2 * N_PAIRS}
    assert set(table["n_pairs"]) == {N_PAIRS}
    pairs = warehouse.query(settings, "select count(*) as n, count(preferred) as k from stg_pairs")
    assert pairs.row(0) == (N_PAIRS, N_PAIRS)  # HH-RLHF: every pair has the human's choice

    again = judgelab(data, *args)
    assert calls_made(again, "smollm2-135m") == 0
    assert f"{N_CALLS} already stored" in again
    assert table.equals(
        warehouse.query(settings, "select * from tbl_pairwise_position order by prompt_level")
    )
