"""The tone test's plans: rewrites per text × axis pole; evaluations per version × repeat, with
a seed per repeat so a sampling evaluator's repeats are real repeats."""

import json
import re
from pathlib import Path

import polars as pl
import pytest

from judgelab.study import Judge, Study
from tasks.judging.scales import load_scales
from tasks.tone.axes import load_axis
from tasks.tone.plan import eval_plan, rewrite_plan
from tasks.tone.similarity import local_backend_missing


def _study(**kw) -> Study:
    return Study(
        name="t",
        type="tone",
        task="tone_argument",
        benchmark="ukpconvarg1",
        sample_size=0,
        prompt_levels=["plain", "fact_first"],
        scales=["rubric_argument"],
        judges=[Judge(name="e", model="fake/hash", seed=7)],
        **kw,
    )


TEXTS = pl.DataFrame({"text_id": ["a", "b"], "text": ["It may rain on 3 May.", "Cats purr."]})


def test_rewrite_plan_asks_once_per_text_and_pole() -> None:
    study = _study(rewriter=Judge(name="r", model="fake/echo"), repeats=3)
    plan = rewrite_plan(study, TEXTS, {"confidence": load_axis("confidence")}, load_scales())
    assert sorted(plan["prompt_level"].unique()) == ["confidence:high", "confidence:low"]
    assert plan.height == 4 and plan["key"].n_unique() == 4 and set(plan["repeat"]) == {0}
    assert plan["params"].str.json_decode().struct.field("response_format").is_null().all()
    assert rewrite_plan(_study(), TEXTS, {}, load_scales()).is_empty()  # no rewriter, no calls


def test_eval_plan_gives_each_repeat_its_own_seed_and_key() -> None:
    versions = TEXTS.rename({"text_id": "version_id"})
    plan = eval_plan(_study(repeats=3), versions, load_scales())
    assert plan.height == 2 * 2 * 3  # variants × versions × repeats
    assert plan["key"].n_unique() == plan.height
    seeds = sorted({json.loads(p)["seed"] for p in plan["params"]})
    assert seeds == [7, 8, 9]


def test_tone_studies_repeat_three_times_unless_told() -> None:
    assert _study().repeats == 3
    assert _study(repeats=1).repeats == 1


def test_rewrites_and_evaluations_carry_their_judges_endpoint() -> None:
    """The rewriter and the evaluator each key their calls with their own endpoint; the base
    key is the one without any (the key of a judge at the provider's default)."""
    axes = {"confidence": load_axis("confidence")}
    versions = TEXTS.rename({"text_id": "version_id"})
    at = "http://127.0.0.1:5001/v1"
    default = _study(rewriter=Judge(name="r", model="openai/m"))
    served = _study(rewriter=Judge(name="r", model="openai/m", api_base=at)).model_copy(
        update={"judges": [Judge(name="e", model="fake/hash", seed=7, api_base=at)]}
    )
    reused = served.model_copy(update={"reuse_across_endpoints": True})
    for build in (
        lambda s: rewrite_plan(s, TEXTS, axes, load_scales()),
        lambda s: eval_plan(s, versions, load_scales()),
    ):
        base, plan, again = build(default), build(served), build(reused)
        assert plan["base_key"].to_list() == base["key"].to_list()
        assert not set(plan["key"]) & set(base["key"])
        assert again["key"].to_list() == base["key"].to_list()


@pytest.mark.skipif(local_backend_missing() is not None, reason=str(local_backend_missing()))
def test_plan_counts_evaluations_of_rule_based_rewrites_and_names_the_llm_ones_pending(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`judgelab plan` on a tone study with an LLM rewriter: its rewrite calls, the evaluation
    calls of the originals and the rule-based rewrites (deterministic, checked now), and a line
    for the LLM rewrites whose evaluations wait for them (2 texts × 2 confidence poles; each
    version is judged 3 prompt levels × 2 repeats)."""
    from judgelab.cli import main
    from judgelab.settings import PROJECT_ROOT

    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    assert main(["plan", str(PROJECT_ROOT / "studies" / "tone.toml"), "--sample-size", "2"]) == 0
    out = capsys.readouterr().out
    assert "4 LLM rewrites not made yet: their evaluation calls (up to 4 × 6 = 24)" in out
    said = re.search(
        r"Tone test: 4 LLM rewrite calls; (\d+) evaluation calls .*: 2 originals, "
        r"(\d) of 4 rule-based rewrites\.",
        out,
    )
    assert said, out
    evaluations, passed = (int(n) for n in said.groups())
    assert evaluations == (2 + passed) * 6
    rows = dict(re.findall(r"(smollm2-\w+)\s*┆\s*(\d+)", out))
    assert rows == {"smollm2-rewriter": "4", "smollm2-135m": str(evaluations)}
