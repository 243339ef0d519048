"""The embedded judge's self-test: one decode in a child process, and one line when a build
cannot run here (SIGILL cannot be caught in the process that decodes)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import mirror_dir

from judgelab.settings import PROJECT_ROOT
from tasks.judging import selftest

MODEL = "local/smollm2-135m-instruct"


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test probes anew (passes are remembered per process)."""
    monkeypatch.setattr(selftest, "_passed", set())


def test_only_embedded_models_are_probed_once_each() -> None:
    models = ["openai/gpt-4o-mini", MODEL, "fake/planted", MODEL, "local/unknown"]
    assert selftest.local_models(models) == ["smollm2-135m-instruct"]
    assert selftest.SelfTest(["openai/gpt-4o-mini"]).proc is None  # nothing to probe


def test_a_working_build_passes_and_is_not_probed_again() -> None:
    selftest.check([MODEL])
    assert selftest._passed == {"smollm2-135m-instruct"}
    assert selftest.SelfTest([MODEL]).proc is None


def test_a_sigill_is_one_line_naming_cause_and_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(selftest.FAIL_ENV, "sigill")
    with pytest.raises(selftest.LocalJudgeBroken) as err:
        selftest.check([MODEL])
    line = str(err.value)
    assert "\n" not in line
    assert "CPU instructions this machine cannot run (SIGILL" in line
    assert "make setup" in line and "smollm2-135m-instruct" in line
    assert selftest._passed == set()


def test_a_damaged_model_file_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(selftest.FAIL_ENV, "corrupt")
    with pytest.raises(selftest.LocalJudgeBroken, match=r"failed its self-test \(ValueError"):
        selftest.check([MODEL])


def test_a_model_load_fails_with_the_line_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """The provider probes before it loads: in-process callers (a Dask worker, a test) get
    the exception, and the model is never loaded here."""
    from tasks.judging import providers

    monkeypatch.setenv(selftest.FAIL_ENV, "sigill")
    llama = providers.LocalLlama()
    with pytest.raises(selftest.LocalJudgeBroken, match="SIGILL"):
        llama._load("smollm2-135m-instruct")
    assert llama._models == {}


@pytest.mark.parametrize("mode", ["sigill", "corrupt"])
def test_run_stops_at_once_with_the_line_and_writes_nothing(tmp_path: Path, mode: str) -> None:
    data = tmp_path / "data"
    env = {
        **os.environ,
        "JUDGELAB_DATA_DIR": str(data),
        "JUDGELAB_DATA_MIRROR": str(mirror_dir()),
        selftest.FAIL_ENV: mode,
        "PREFECT_HOME": str(tmp_path / "prefect"),
    }
    env.pop("PREFECT_API_URL", None)
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "judgelab.cli", "run", "studies/all.toml"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    took = time.monotonic() - started
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("judgelab: the embedded judge"), line
    assert "Traceback" not in proc.stderr and "Illegal instruction" not in proc.stderr
    assert not data.exists() and not (tmp_path / "prefect").exists()  # no data, no server
    print(f"exit 2 after {took:.1f} s")  # the issue asks for under 10 s; figures live in notes
