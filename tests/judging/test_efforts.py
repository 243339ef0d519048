"""Reasoning effort: one design per effort a provider offers, "n/a" where it has none."""

import polars as pl

from judgelab.study import Judge, Study
from tasks.judging.efforts import effort_designs
from tasks.judging.scales import load_scales
from tasks.plan import build_plan


def _judge(**kw) -> Judge:
    return Judge(name="j", model="fake/hash", **kw)


def test_efforts_expand_only_where_the_provider_has_the_control() -> None:
    with_control = effort_designs(_judge(supports_reasoning=True), ["default", "low"])
    assert [(label, j.reasoning_effort) for label, j in with_control] == [
        ("default", None),
        ("low", "low"),
    ]
    without = effort_designs(_judge(supports_reasoning=False), ["default", "low"])
    assert [(label, j.reasoning_effort) for label, j in without] == [("n/a", None)]
    # litellm's model map decides when the judge does not say: the fake provider is unknown
    assert [label for label, _ in effort_designs(_judge(), ["low"])] == ["n/a"]
    # rating studies: the judge's own setting, one design
    assert [label for label, _ in effort_designs(_judge(reasoning_effort="high"), None)] == ["high"]


def test_accuracy_plan_keys_differ_by_effort_and_items_are_not_quoted() -> None:
    study = Study(
        name="a",
        type="accuracy",
        task="accuracy",
        benchmark="truthfulqa",
        sample_size=0,
        prompt_levels=["base"],
        scales=["verdict"],
        reasoning_efforts=["default", "low"],
        judges=[_judge(supports_reasoning=True)],
    )
    items = pl.DataFrame({"item_id": ["q1"], "text": ['Question: "Q?"\nCandidate answer: "A"']})
    plan = build_plan(study, items, load_scales())
    assert plan["reasoning_effort"].to_list() == ["default", "low"]
    assert plan["key"].n_unique() == 2
    user = [m[-1]["content"] for m in plan["messages"].str.json_decode()]
    assert user == ['Question: "Q?"\nCandidate answer: "A"'] * 2
