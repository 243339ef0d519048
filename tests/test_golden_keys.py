"""Stored answers stay found: the call keys every shipped study plans are pinned.

A key is the sha256 of everything that changes a judge's answer (tasks/judging/keys.py). A
refactor that changes a key, its JSON layout or what goes in it would orphan every answer a
user has stored, and the next run would pay for all of them again. This test plans each
shipped study (rating: sentiment, toxicity; accuracy; tone: its rewrite calls and the
evaluation calls of its rule-based versions) on a small sample and compares a digest of its
sorted keys with tests/golden_keys.json, written when the keys were known good.
`JUDGELAB_WRITE_GOLDEN=1` rewrites the file: only for a deliberate, documented key change.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from conftest import mirror_dir

from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import stages, warehouse
from tasks.tone import stages as tone

GOLDEN = Path(__file__).parent / "golden_keys.json"
STUDIES = ["sentiment", "toxicity", "accuracy", "tone"]
SAMPLE = 12


def digest(keys: list[str]) -> dict:
    return {"n": len(keys), "sha256": hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()}


def planned_keys(name: str, settings: Settings) -> dict[str, dict]:
    """Digests of the keys a shipped study plans, per plan part."""
    study = load_study(Path("studies") / f"{name}.toml", sample_size=SAMPLE)
    if study.type == "tone":
        tone.load_texts.fn(study, settings)
        tone.plan_rewrites.fn(study, settings)
        tone.versions_and_checks.fn(study, settings)  # no rewrite stored: lexical versions
        tone.plan_evaluations.fn(study, settings)
        parts = [tone.rewrite_part(study), tone.eval_part(study)]
    else:
        stages.load_benchmark.fn(study, settings)
        stages.make_plan.fn(study, settings)
        parts = [study.name]
    return {
        part: digest(warehouse.read_table(settings, "plan", part, ["key"])["key"].to_list())
        for part in parts
    }


@pytest.mark.parametrize("name", STUDIES)
def test_shipped_studies_plan_the_keys_they_always_did(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(Path(__file__).parents[1])
    settings = Settings(data_dir=tmp_path / "data", data_mirror=mirror_dir())
    found = planned_keys(name, settings)
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.is_file() else {}
    if os.environ.get("JUDGELAB_WRITE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(golden | {name: found}, indent=1, sort_keys=True) + "\n")
        golden[name] = found
    assert all(d["n"] > 0 for d in found.values())
    assert found == golden[name]
