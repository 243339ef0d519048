"""Against a real `prefect server`: a batch judge's task shows what it waits for and how far
the provider's batch has come, as the UI reads its progress artifact; `judgelab batches`
lists the batch in flight and cancels one."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from mockstudy import cli_env, write_study
from prefect_api import Api

from judgelab.settings import PROJECT_ROOT
from judgelab.testing import mock_batches

pytestmark = pytest.mark.slow


def batch_study(path: Path, url: str, name: str) -> Path:
    # shard_size 10: an online judge's 40 calls would be 4 shards, made round by round; a
    # batch judge's are one shard, all its batches submitted at once
    study = write_study(path, url, ["mock-judge"], name=name, shard_size=10)
    study.write_text(study.read_text() + "batch = true\nbatch_poll_s = 0.2\n")
    return study


def batches_cli(data: Path, prefect_api: str, *args: str) -> subprocess.CompletedProcess:
    """`judgelab batches ARGS` with a wide terminal: CI's narrow COLUMNS would drop columns."""
    return subprocess.run(
        [sys.executable, "-m", "judgelab.cli", "batches", *args],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300,
        env=cli_env(data, prefect_api, COLUMNS="300"),
    )  # fmt: skip


def progress_lines(api: Api, name: str) -> list[str]:
    found = api.post("/artifacts/filter", {"artifacts": {"type": {"any_": ["progress"]}}})
    return [
        a["description"] or "" for a in found if f"{name} · mock-judge" in (a["description"] or "")
    ]


def test_a_batch_judges_task_shows_the_batch_it_waits_for(tmp_path: Path, prefect_api: str) -> None:
    api = Api(prefect_api)
    with mock_batches.running(delay=12.0) as url:
        study = batch_study(tmp_path / "batchui.toml", url, "batchui")
        proc = subprocess.Popen(
            [sys.executable, "-m", "judgelab.cli", "run", str(study)],
            cwd=PROJECT_ROOT, env=cli_env(tmp_path / "data", prefect_api),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        seen: list[str] = []
        while proc.poll() is None:
            seen += [line for line in progress_lines(api, "batchui") if line not in seen]
            time.sleep(0.5)
        out, err = proc.communicate()
    assert proc.returncode == 0, out + err
    waiting = [line for line in seen if "waiting for batch batch_" in line]
    assert waiting, seen
    # 10 items × 2 prompts × 2 scales = 40 calls in one batch, counted as the provider goes
    assert any(" of 40 done)" in line for line in waiting), waiting
    assert all("batchui · mock-judge · shard 1/1:" in line for line in waiting), waiting
    final = progress_lines(api, "batchui")
    assert final and all("40/40 calls" in line and "waiting" not in line for line in final)


def test_judgelab_batches_lists_and_cancels(tmp_path: Path, prefect_api: str) -> None:
    data = tmp_path / "data"
    with mock_batches.running(delay=60.0) as url:
        study = batch_study(tmp_path / "batchcancel.toml", url, "batchcancel")
        proc = subprocess.Popen(
            [sys.executable, "-m", "judgelab.cli", "run", str(study)],
            cwd=PROJECT_ROOT, env=cli_env(data, prefect_api),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        listing, deadline = "", time.monotonic() + 600
        while time.monotonic() < deadline and proc.poll() is None:
            listing = batches_cli(data, prefect_api).stdout
            if "batch_" in listing and "in_progress" in listing:
                break
            time.sleep(0.5)
        if proc.poll() is not None:  # the run ended before its batch was seen: say why
            out, err = proc.communicate()
            raise AssertionError(f"the run ended (exit {proc.returncode}): {out}{err}")
        assert "batchcancel · mock-judge" in listing and "in_progress" in listing, listing
        batch_id = next(w for w in listing.split() if w.startswith("batch_"))
        cancelled = batches_cli(data, prefect_api, "--cancel", batch_id)
        assert cancelled.returncode == 0 and f"batch {batch_id}" in cancelled.stdout
        assert "cancelling" in cancelled.stdout, cancelled.stdout
        _out, err = proc.communicate(timeout=300)
    # the run stores the answers so far and ends; its other calls wait for the next run
    assert "was cancelled" in err, err
    after = batches_cli(data, prefect_api, "--all").stdout
    assert batch_id in after and "cancelled" in after, after
    assert "no batches in flight" in batches_cli(data, prefect_api).stdout
