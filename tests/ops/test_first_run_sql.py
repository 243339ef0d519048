"""`judgelab sql` during a first run into an empty data folder: the run publishes the views
as it starts, so queries answer at once (empty) and see the calls arrive. They used to fail
for the whole run ("judgelab.duckdb does not exist yet")."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from conftest import mirror_dir
from mockstudy import ENV, write_study

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.testing import mock_provider
from tasks.judging import store

pytestmark = pytest.mark.slow
COUNT = "select count(*) from stg_judgments where status = 'ok'"


def test_sql_answers_from_the_start_of_a_first_run(tmp_path: Path, prefect_api: str) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data)
    env = {
        **os.environ,
        **ENV,
        "PREFECT_API_URL": prefect_api,
        "JUDGELAB_DATA_DIR": str(data),
        "JUDGELAB_DATA_MIRROR": str(mirror_dir()),
        "JUDGELAB_STORE_PART_ROWS": "4",
    }
    with mock_provider.running(latency=0.4) as url:
        study = write_study(tmp_path / "first.toml", url, ["mock-a"], name="first", sample_size=8)
        run = subprocess.Popen(
            [sys.executable, "-m", "judgelab.cli", "run", str(study)],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        counts, cli_answer = [], None
        while run.poll() is None:
            if settings.duckdb_path.is_file():
                try:
                    with duckdb.connect(str(settings.duckdb_path), read_only=True) as con:
                        counts.append(con.execute(COUNT).fetchall()[0][0])
                except duckdb.Error:  # renamed over while opening: the next poll reads it
                    pass
            if counts and cli_answer is None:
                cli_answer = subprocess.run(
                    [sys.executable, "-m", "judgelab.cli", "sql", COUNT],
                    cwd=PROJECT_ROOT,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
            time.sleep(0.2)
        out = run.communicate()[0]
    assert run.returncode == 0, out
    final = store.read_store(settings.store_dir, ["key"]).height
    assert final == 32  # 8 items × 2 prompt levels × 2 scales
    assert cli_answer is not None and cli_answer.returncode == 0, cli_answer
    live = [c for c in counts if c < final]
    assert live, f"no query answered while the first run was judging: {counts}"
    assert len(set(live)) >= 2, f"queries never saw calls arrive: {sorted(set(counts))}"
