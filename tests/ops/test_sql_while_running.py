"""SQL while a run writes: queries answer throughout (and see calls arrive), from the start of
a first run into an empty data folder too (the run publishes the views as it starts; they used
to fail for the whole run: "judgelab.duckdb does not exist yet"); and a session holding the
DuckDB file read-write (as the `duckdb` CLI does) does not block the pipeline's publishing of
views (it does block other readers of that file: DuckDB's own rule)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from mockstudy import ENV, cli_env, write_study
from test_flow_e2e import judgelab

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.testing import mock_provider
from tasks.judging import store

pytestmark = pytest.mark.slow
COUNT = "select count(*) from stg_judgments where status = 'ok'"


def watch(study: Path, env: dict[str, str], settings: Settings) -> tuple[str, list, list]:
    """Run `study` to its end while querying the warehouse file every 0.2 s (read-only, as a
    user would), and through `judgelab sql` at the first answer and every tenth after it;
    → the run's output, the counts read and the CLI's answers."""
    run = subprocess.Popen(
        [sys.executable, "-m", "judgelab.cli", "run", str(study)],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    counts, cli_answers, asked_at = [], [], None
    while run.poll() is None:
        if settings.duckdb_path.is_file():
            try:
                with duckdb.connect(str(settings.duckdb_path), read_only=True) as con:
                    counts.append(con.execute(COUNT).fetchall()[0][0])
            except duckdb.Error:  # renamed over while opening: the next poll reads it
                pass
        if counts and (asked_at is None or len(counts) >= asked_at + 10):
            asked_at = len(counts)
            cli = subprocess.run(
                [sys.executable, "-m", "judgelab.cli", "sql", COUNT],
                cwd=PROJECT_ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert cli.returncode == 0, cli.stderr
            cli_answers.append(cli.stdout)
        time.sleep(0.2)
    out = run.communicate()[0]
    assert run.returncode == 0, out
    return out, counts, cli_answers


def test_sql_answers_from_the_start_of_a_first_run(tmp_path: Path, prefect_api: str) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    env = cli_env(settings.data_dir, prefect_api, JUDGELAB_STORE_PART_ROWS="4")
    with mock_provider.running(latency=0.4) as url:
        study = write_study(tmp_path / "first.toml", url, ["mock-a"], name="first", sample_size=8)
        _, counts, cli_answers = watch(study, env, settings)
    final = store.read_store(settings.store_dir, ["key"]).height
    assert final == 32  # 8 items × 2 prompt levels × 2 scales
    assert cli_answers, "`judgelab sql` was never tried during the run"
    live = [c for c in counts if c < final]
    assert live, f"no query answered while the first run was judging: {counts}"
    assert len(set(live)) >= 2, f"queries never saw calls arrive: {sorted(set(counts))}"


def test_queries_answer_while_a_run_writes(tmp_path: Path, prefect_api: str) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data)
    run_env = {**ENV, "PREFECT_API_URL": prefect_api}  # no ephemeral server per run
    env = cli_env(data, prefect_api, JUDGELAB_STORE_PART_ROWS="4")
    with mock_provider.running(latency=0.4) as url:
        study = write_study(tmp_path / "live.toml", url, ["mock-a"], name="live", sample_size=3)
        judgelab(data, "run", str(study), env=run_env)  # 12 calls: the warehouse file exists now
        write_study(study, url, ["mock-a", "mock-b"], name="live", sample_size=10)
        _, counts, cli_answers = watch(study, env, settings)
        # someone keeps the file open read-write for the whole run, as `duckdb FILE` does
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import duckdb,sys,time; c=duckdb.connect(sys.argv[1]); "
                "print('open', flush=True); time.sleep(600)",
                str(settings.duckdb_path),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout.readline().strip() == "open"
        try:
            rerun = judgelab(data, "run", str(study), env=run_env)  # publishes the views again
        finally:
            holder.kill()
    assert "0 judge calls made" in rerun
    assert cli_answers, "the run ended before `judgelab sql` was tried"
    with duckdb.connect(str(settings.duckdb_path), read_only=True) as con:
        final = con.execute(COUNT).fetchall()[0][0]
    stored = store.read_store(settings.store_dir, ["key"])["key"]
    assert final == stored.n_unique() == stored.len()
    assert final >= 80  # 10 items × 2 prompts × 2 scales × 2 judges (+ the first sample's)
    assert counts == sorted(counts)  # never a step back
    live = {c for c in counts if 12 < c < final}
    assert len(live) >= 2, f"queries never saw calls arrive: {sorted(set(counts))}"
