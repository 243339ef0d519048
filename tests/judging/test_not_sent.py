"""The line of a judge stopped on a non-retryable error counts every call it did not send,
those of the shards it never started included (600 calls, two shards: 3 refused, 597 not
sent; the line used to say 297, the first shard's)."""

from __future__ import annotations

import logging
from pathlib import Path

import polars as pl
import pytest

import flows.common as common
from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import warehouse

STUDY = """[study]
name = "refused"
task = "sentiment"
benchmark = "vader"
sample_size = 150
prompt_levels = ["base", "short_icl"]
scales = ["likert7", "unit"]
shard_size = 300

[[judges]]
name = "bad-key"
model = "openai/gpt-4o-mini"
api_key_env = "MOCK_JUDGE_KEY"
"""
HALT = {
    "status": 401,
    "error": "AuthenticationError",
    "message": "AuthenticationError: Incorrect API key provided",
    "count": 3,
}


def test_calls_of_shards_never_started_count_as_not_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "s.toml").write_text(STUDY)
    study = load_study(tmp_path / "s.toml")
    settings = Settings(data_dir=tmp_path / "data")
    ran = []

    def judge_shard(study, settings, judge, shard, n, *rest):  # shard 1: 3 refused, 297 left
        ran.append((judge, shard, n))
        return {"counts": {"error": 3}, "worker": "w", "halts": [HALT | {"skipped": 297}]}

    monkeypatch.setattr(common.stages, "judge_shard", judge_shard)
    monkeypatch.setattr(common, "get_run_logger", lambda: logging.getLogger("test"))
    # the plan part the run reads its failed calls' causes through; no call of it was stored
    empty_plan = pl.DataFrame(schema={"key": pl.String, "judge": pl.String})
    warehouse.write_table(settings, empty_plan, "plan", study.name)
    before = {"bad-key": {"planned": 600, "stored": 0, "missing": 600}}
    made, _, failures = common.judge_all(study, settings, before, "run-1")
    assert ran == [("bad-key", 0, 2)]  # the stopped judge runs no second shard
    assert made == {"bad-key": {"error": 3}}
    (failure,) = failures
    assert "3 calls failed with 401 AuthenticationError, 597 calls not sent" in failure.line
