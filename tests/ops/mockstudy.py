"""A small rating study against the mock HTTP provider, shared by the operations tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
from conftest import mirror_dir

from judgelab.settings import PROJECT_ROOT
from judgelab.testing import mock_provider

JUDGE = """
[[judges]]
name = "{name}"
model = "openai/{name}"
api_base = "{url}"
api_key_env = "MOCK_JUDGE_KEY"
concurrency = 4
timeout = 5.0
backoff_base = 0.05
"""
STUDY = """
[study]
name = "{name}"
task = "sentiment"
benchmark = "vader"
sample_size = {sample_size}
seed = 5
prompt_levels = ["base", "short_icl"]
scales = ["likert7", "unit"]
shard_size = {shard_size}

[study.analysis]
bootstrap = 50
"""
ENV = {"MOCK_JUDGE_KEY": "sk-mock-0123456789"}


def write_study(
    path: Path,
    url: str,
    judges: list[str],
    name: str = "ops",
    sample_size: int = 10,
    shard_size: int = 500,
) -> Path:
    text = STUDY.format(name=name, sample_size=sample_size, shard_size=shard_size)
    text += "".join(JUDGE.format(name=j, url=url) for j in judges)
    path.write_text(text)
    return path


def request_digests(plan: pl.DataFrame) -> dict[str, str]:
    """Call key → the hash the mock logs for that call's messages."""
    return {
        k: mock_provider.messages_hash(json.loads(m))
        for k, m in plan.select("key", "messages").iter_rows()
    }


def cli_env(data: Path, prefect_api: str, **extra: str) -> dict[str, str]:
    """The environment of a `judgelab` command in these tests: the mock's key, the real
    Prefect server, a data dir of the test's own and the benchmark mirror."""
    return {
        **os.environ,
        **ENV,
        "PREFECT_API_URL": prefect_api,
        "JUDGELAB_DATA_DIR": str(data),
        "JUDGELAB_DATA_MIRROR": str(mirror_dir()),
        **extra,
    }


def run_cli(data: Path, prefect_api: str, *args: str) -> subprocess.CompletedProcess:
    """`judgelab ARGS` to its end, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "judgelab.cli", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=cli_env(data, prefect_api),
    )
