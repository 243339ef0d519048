"""Study → plan: design grid, seeded stratified sample, unique keys; study-file errors."""

import json
from pathlib import Path

import polars as pl
import pytest

from judgelab.study import StudyError, load_study
from tasks.judging.scales import load_scales
from tasks.plan import build_plan, sample_items

ITEMS = pl.DataFrame(
    {
        "item_id": [f"{d}:{i}" for d in "abcd" for i in range(10)],
        "domain": [d for d in "abcd" for _ in range(10)],
        "text": [f"text {d}{i}" for d in "abcd" for i in range(10)],
    }
)


def test_sample_is_stratified_and_seeded() -> None:
    s1 = sample_items(ITEMS, 10, seed=1)
    assert sorted(s1.group_by("domain").len()["len"].to_list()) == [2, 2, 3, 3]
    assert s1.equals(sample_items(ITEMS, 10, seed=1))
    assert not s1.equals(sample_items(ITEMS, 10, seed=2))
    assert sample_items(ITEMS, 0, seed=1).height == 40


def test_plan_has_one_row_per_design_item_repeat() -> None:
    study = load_study("studies/sentiment.toml", sample_size=3)
    study = study.model_copy(
        update={
            "repeats": 2,
            "judges": [
                *study.judges,
                study.judges[0].model_copy(update={"name": "other", "model": "fake/hash"}),
            ],
        }
    )
    items = sample_items(ITEMS, 3, seed=0)
    plan = build_plan(study, items, load_scales())
    assert plan.height == 2 * 3 * 4 * 3 * 2  # judges × levels × scales × items × repeats
    assert plan["key"].n_unique() == plan.height
    assert plan["key"].to_list() == plan["base_key"].to_list()  # no api_base: no endpoint
    # the same judge, level, scale and item share messages across repeats, keys differ
    one = plan.filter(
        (pl.col("judge") == "other")
        & (pl.col("item_id") == items["item_id"][0])
        & (pl.col("prompt_level") == "base")
        & (pl.col("scale") == "unit")
    )
    assert one.height == 2 and one["messages"].n_unique() == 1
    assert "0.00 (extremely negative)" in one["messages"][0]


def test_study_file_errors_name_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "s.toml"
    bad.write_text(
        '[study]\nname = "x"\ntask = "sentiment"\nbenchmark = "vader"\n'
        'sample_size = -1\nprompt_levels = ["base"]\nscales = ["likert7"]\n'
        '[[judges]]\nname = "j"\nmodel = "fake/hash"\ntemprature = 0\n'
    )
    with pytest.raises(StudyError) as err:
        load_study(bad)
    msg = str(err.value)
    assert str(bad) in msg and "sample_size" in msg and "judges.0.temprature" in msg
    bad.write_text("[study\n")
    with pytest.raises(StudyError, match="not valid TOML"):
        load_study(bad)
    with pytest.raises(StudyError, match="does not exist"):
        load_study(tmp_path / "missing.toml")


def test_identical_texts_share_one_call() -> None:
    items = pl.DataFrame(
        {
            "item_id": ["a:1", "a:2", "b:1"],
            "domain": ["a", "a", "b"],
            "text": ["same words", "same words", "other words"],
        }
    )
    study = load_study("studies/sentiment.toml").model_copy(
        update={"prompt_levels": ["base"], "scales": ["likert7"]}
    )
    plan = build_plan(study, items, load_scales())
    assert plan.height == 3 and plan["key"].n_unique() == 2
    from tasks.judging.cache import call_counts

    counts = call_counts(plan, pl.DataFrame({"key": [plan["key"][0]]}))
    assert counts == {"smollm2-135m": {"planned": 2, "stored": 1, "missing": 1}}
    # `judgelab plan` says which count is which when judgments outnumber calls
    from tasks.judging.cache import judgments_line

    assert judgments_line(plan) == (
        "3 judgments (item × design × repeat) from 2 calls: 1 share the call of an identical "
        "text (one request, its answer used for each); planned, stored and missing count calls."
    )
    assert judgments_line(plan.filter(pl.col("item_id") != "a:2")) is None


def test_call_keys_are_stable_across_releases() -> None:
    """A stored call stays found: this key was computed before verdict, rubric and effort
    support were added, and must not change (a change would re-run every stored call)."""
    from judgelab.settings import PROJECT_ROOT

    study = load_study(PROJECT_ROOT / "studies" / "sentiment.toml")
    plan = build_plan(study, pl.DataFrame({"item_id": ["a"], "text": ["good"]}), load_scales())
    assert plan["key"][0] == "485fde8fddc98303b1b1a013a5454a69d92d1d870480eea8c9e88f0533afcca2"


def test_a_shard_keeps_calls_sharing_a_system_prompt_back_to_back() -> None:
    """Prefix reuse for local judges is a property of the shard's order, not of plan order:
    rows planned with their designs interleaved come out grouped by system prompt."""
    from tasks.judging.cache import missing_calls

    systems = ["Rate 1-7. Example: ...", "Rate 1-7.", "Rate -3..3, long guide " * 20]
    rows = [
        {
            "judge": "j",
            "key": f"{(i * 2654435761) % 2**32:08x}{i:056x}",
            "messages": json.dumps(
                [
                    {"content": systems[i % 3], "role": "system"},
                    {"content": f'Text {i % 7} "quoted" {i}', "role": "user"},
                ]
            ),
        }
        for i in range(300)
    ]
    plan = pl.DataFrame(rows)
    done = pl.DataFrame({"key": [rows[5]["key"], rows[6]["key"]]})
    for n_shards in (1, 3, 4):
        seen, prompts_per_shard = [], 0
        for shard in range(n_shards):
            todo = missing_calls(plan, done, "j", shard, n_shards)
            first = [json.loads(m)[0]["content"] for m in todo["messages"]]
            runs = [s for k, s in enumerate(first) if k == 0 or s != first[k - 1]]
            assert sorted(runs) == sorted(set(first))  # each system prompt in one run
            seen += todo["key"].to_list()
            prompts_per_shard += len(runs)
        assert sorted(seen) == sorted(set(plan["key"]) - set(done["key"]))
        # shards are ranges of that order: a prompt is split between shards at most once
        # per shard boundary, so a local judge evaluates each long prompt about once
        assert prompts_per_shard <= len(systems) + n_shards - 1
