"""Study → plan: design grid, seeded stratified sample, unique keys; study-file errors."""

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
    from tasks.judging.todo import call_counts

    counts = call_counts(plan, pl.DataFrame({"key": [plan["key"][0]]}))
    assert counts == {"smollm2-135m": {"planned": 2, "stored": 1, "missing": 1}}


def test_call_keys_are_stable_across_releases() -> None:
    """A stored call stays found: this key was computed before verdict, rubric and effort
    support were added, and must not change (a change would re-run every stored call)."""
    from judgelab.settings import PROJECT_ROOT

    study = load_study(PROJECT_ROOT / "studies" / "sentiment.toml")
    plan = build_plan(study, pl.DataFrame({"item_id": ["a"], "text": ["good"]}), load_scales())
    assert plan["key"][0] == "485fde8fddc98303b1b1a013a5454a69d92d1d870480eea8c9e88f0533afcca2"
