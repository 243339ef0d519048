"""A small rating study against the mock HTTP provider, shared by the operations tests."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

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
