"""End to end through the CLI and the real Prefect flow: embedded judge, reruns, new judges."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from conftest import mirror_dir

from judgelab.settings import PROJECT_ROOT, Settings
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow


# CI's Prefect server (.ci/run starts it) spares each run an ephemeral one (~10 s)
CI_SERVER = (
    {"PREFECT_API_URL": os.environ["JUDGELAB_TEST_PREFECT_API_URL"]}
    if os.environ.get("JUDGELAB_TEST_PREFECT_API_URL")
    else {}
)


def judgelab(data_dir: Path, *args: str, env: dict | None = None) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "judgelab.cli", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={
            **os.environ,
            **CI_SERVER,
            "JUDGELAB_DATA_DIR": str(data_dir),
            "JUDGELAB_DATA_MIRROR": str(mirror_dir()),
            **(env or {}),
        },
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def calls_made(out: str, judge: str) -> int:
    return int(re.search(rf"judge {re.escape(judge)}: .*?(\d+) judge calls made", out).group(1))


FAKE_STUDY = """
[study]
name = "fake-sentiment"
task = "sentiment"
benchmark = "vader"
sample_size = 8
seed = 3
prompt_levels = ["base", "long_icl"]
scales = ["likert7", "unit"]

[[judges]]
name = "fake-hash"
model = "fake/hash"
api_key_env = "FAKE_JUDGE_KEY"
"""

NEW_JUDGE = """
[[judges]]
name = "fake-prose"
model = "fake/unparseable"
"""


def test_adding_a_judge_makes_only_its_calls(tmp_path: Path) -> None:
    data = tmp_path / "data"
    study = tmp_path / "fake.toml"
    study.write_text(FAKE_STUDY)
    secret = "sk-e2e-secret-0123456789abcdefghij"
    env = {"FAKE_JUDGE_KEY": secret}
    out = judgelab(data, "run", str(study), env=env)
    assert calls_made(out, "fake-hash") == 32  # 8 items × 2 levels × 2 scales
    study.write_text(FAKE_STUDY + NEW_JUDGE)
    out = judgelab(data, "run", str(study), env=env)
    assert calls_made(out, "fake-hash") == 0 and calls_made(out, "fake-prose") == 32
    settings = Settings(data_dir=data)
    rows = store.read_store(settings.store_dir)
    assert rows.height == 64 and rows["key"].n_unique() == 64
    per_run = rows.group_by("run_id").agg(pl.col("model").unique())
    assert sorted(per_run["model"].to_list()) == [["fake/hash"], ["fake/unparseable"]]
    table = warehouse.query(settings, "select * from tbl_rating_performance order by judge")
    prose = table.filter(pl.col("judge") == "fake-prose")
    assert prose["parse_fail_pct"].to_list() == [100.0] * 4 and prose["n_items"].sum() == 0
    # no key material in any file the run wrote
    for path in data.rglob("*"):
        if path.is_file() and path.stat().st_size < 50_000_000:
            assert secret.encode() not in path.read_bytes(), path


def test_reparse_rewrites_statuses_without_calls(tmp_path: Path) -> None:
    """Simulate answers stored by an older, buggier parser; reparse fixes them, no calls."""
    data = tmp_path / "data"
    study = tmp_path / "fake.toml"
    study.write_text(FAKE_STUDY.replace('api_key_env = "FAKE_JUDGE_KEY"\n', ""))
    judgelab(data, "run", str(study))
    settings = Settings(data_dir=data)
    rows = store.read_store(settings.store_dir)
    broken = rows.head(5).with_columns(
        pl.lit("unparseable").alias("status"),
        pl.lit(None, pl.Float64).alias("score"),
        pl.col("created_at").dt.offset_by("1s"),
    )
    store.write_part(settings.store_dir, broken)
    scores_file = warehouse.table_file(settings, "scores", "fake-sentiment")
    stamp = scores_file.stat().st_mtime_ns
    out = judgelab(data, "reparse", str(study))
    assert "5 changed" in out and "0 judge calls made" in out
    after = store.read_store(settings.store_dir)
    assert after.height == rows.height == after["key"].n_unique()  # compacted: one row a key
    assert set(after["run_id"]) == set(rows["run_id"])  # no new calls were made
    assert after.sort("key")["score"].equals(rows.sort("key")["score"])
    assert scores_file.stat().st_mtime_ns > stamp  # downstream tables were rebuilt
    live = warehouse.query(settings, "select count(*) as n from fct_calls where status <> 'ok'")
    assert live["n"][0] == 0


# report views a tiny one-model run can leave empty: no item where consensus and reference
# disagree, or (one judge, one effort) no pair of designs differing only in model or effort;
# the drift views fill only for a study with a [study.canary] (tests/ops/test_canary.py)
# tbl_corrected has rows only for a study that declares human labels (human_labels or
# label_share); tests/test_corrected.py and the report tests' studies do
MAY_BE_EMPTY = {"tbl_consensus_disagreements", "tbl_drift", "tbl_drift_alerts", "tbl_corrected"}
# the tone test and pairwise studies run on their own (tests/tone, tests/pairwise)
ON_THEIR_OWN = ("tbl_tone_", "tbl_rewrite_", "tbl_pairwise_")


def test_default_suite_runs_every_study_every_view_and_never_prints_texts(tmp_path: Path) -> None:
    """The default job (studies/all.toml) at a tiny size: rating tasks with both baselines, and
    the accuracy study, with the embedded judge, and the LLMBar audit's imported verdicts on
    3 pairs (six judges, no call); then again, with no call (one embedded run pair for the
    whole file: each costs minutes of CI)."""
    data = tmp_path / "data"
    out = judgelab(data, "run", "studies/all.toml", "--sample-size", "3")
    assert calls_made(out, "smollm2-135m") == 36  # sentiment: 3 texts × 3 levels × 4 scales
    assert out.count("judge calls made") == 3 + 6
    assert calls_made(out, "GPT-4") == 0 and "llmbar: imported: " in out
    assert "accuracy · judge smollm2-135m: 9 planned" in out  # 3 questions × 3 levels, effort n/a
    settings = Settings(data_dir=data)
    table = warehouse.query(settings, "select * from tbl_rating_performance")
    assert table.group_by("study", "kind").len().sort("study", "kind").rows() == [
        ("sentiment", "baseline", 1),
        ("sentiment", "judge", 12),
        ("toxicity", "baseline", 1),
        ("toxicity", "judge", 12),
    ]
    for view in warehouse.view_files():  # every report view has rows from real outputs
        if view.parent.name == "reports":
            n = warehouse.query(settings, f"select count(*) as n from {view.stem}")["n"][0]
            elsewhere = (
                view.stem in MAY_BE_EMPTY
                or view.stem.startswith(ON_THEIR_OWN)
                or "tasks" in view.parts  # a type package's views: its own tests run them
            )
            assert n > 0 or elsewhere, view.stem
    efforts = warehouse.query(
        settings, "select distinct reasoning_effort from tbl_accuracy_by_design"
    )
    assert efforts["reasoning_effort"].to_list() == ["n/a"]  # llama.cpp has no such control
    texts = warehouse.query(settings, "select text from stg_items where benchmark = 'convabuse'")
    assert texts.height == 4185
    leaked = [t for t in texts["text"] if len(t) > 12 and t in out]
    assert not leaked, f"{len(leaked)} toxicity texts were printed"  # count only, never the text
    # every call stored once, none failed in transport
    calls = store.read_store(settings.store_dir).filter(pl.col("source") == "call")
    assert calls.height == calls["key"].n_unique() == 36 + 36 + 9
    assert set(calls["status"]) <= {"ok", "unparseable", "out_of_range"}

    # the same run again makes no call and leaves the tables as they were
    again = judgelab(data, "run", "studies/all.toml", "--sample-size", "3")
    assert calls_made(again, "smollm2-135m") == 0 and "36 already stored" in again
    assert store.read_store(settings.store_dir).filter(pl.col("source") == "call").height == 81
    assert table.equals(warehouse.query(settings, "select * from tbl_rating_performance"))
    # the ad-hoc SQL command prints the same table; any view exports as CSV, one line a row
    printed = judgelab(data, "sql", "select judge, scale, bias from tbl_rating_performance")
    assert printed.count("smollm2-135m") == 24
    csv = judgelab(data, "show", "tbl_rating_performance", "--format", "csv")
    assert len(csv.strip().splitlines()) == 1 + table.height


PARSE_COUNTER = """
import collections, sys
import judgelab.study as study
parsed = collections.Counter()
read_toml = study.read_toml
def counted(path, text):
    parsed[str(path)] += 1
    return read_toml(path, text)
study.read_toml = counted
from judgelab import cli
rc = cli.main(sys.argv[1:])
print("parsed", sorted(parsed.values()))
sys.exit(rc)
"""


def test_a_run_parses_its_study_file_once(tmp_path: Path) -> None:
    """`judgelab run` parses each study file once: the preflight's parse is the one the suite
    and the study flow run (they parsed it again, twice, before)."""
    study = tmp_path / "fake.toml"
    study.write_text(FAKE_STUDY.replace("sample_size = 8", "sample_size = 2"))
    proc = subprocess.run(
        [sys.executable, "-c", PARSE_COUNTER, "run", str(study), "--sample-size", "1"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={
            **os.environ,
            **CI_SERVER,
            "JUDGELAB_DATA_DIR": str(tmp_path / "data"),
            "JUDGELAB_DATA_MIRROR": str(mirror_dir()),
            "FAKE_JUDGE_KEY": "k",
        },
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert calls_made(proc.stdout, "fake-hash") == 4  # the override reached the flow: 1 item
    assert proc.stdout.splitlines()[-1] == "parsed [1]"
