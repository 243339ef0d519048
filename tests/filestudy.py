"""A small rating study over a user's CSV file, judged by the planted fake judge: for tests
that need a study on disk and a `judgelab` command, but no benchmark and no model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from judgelab.settings import PROJECT_ROOT

STUDY = """[study]
name = "mine"
task = "sentiment"
benchmark = "file"
sample_size = 3
prompt_levels = ["base"]
scales = ["likert7"]

[study.data]
path = "mine.csv"
id_column = "id"
text_column = "sentence"
mean_column = "valence"
scale_min = 1
scale_max = 5

[[judges]]
name = "a"
model = "fake/x"
"""
CSV = "id,sentence,valence\n1,good,4\n2,bad,1\n3,fine,3\n4,great,5\n"


def write_study(folder: Path) -> Path:
    """mine.toml and mine.csv in `folder`; returns the study file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.csv").write_text(CSV)
    (folder / "mine.toml").write_text(STUDY)
    return folder / "mine.toml"


def judgelab(
    *args: str, env: dict[str, str | None], timeout: float = 600, script: str | None = None
) -> subprocess.CompletedProcess:
    """`judgelab ARGS` (or `python -c SCRIPT ARGS`) from the project root, output captured;
    `env` over this process's environment, a None value unsetting its variable."""
    merged = {**os.environ, **env}
    command = ["-c", script] if script is not None else ["-m", "judgelab.cli"]
    return subprocess.run(
        [sys.executable, *command, *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={k: v for k, v in merged.items() if v is not None},
    )
