"""Stored calls stay valid: repeat 0 of every study type keeps the call keys of the first
release, and repeat r > 0 sends the judge's seed + r (so repeats are samples, not copies)."""

from __future__ import annotations

import hashlib
import json

import polars as pl
import pytest

from judgelab.study import Study
from tasks.judging.scales import load_scales
from tasks.pairwise.plan import build_plan as pairwise_plan
from tasks.plan import build_plan
from tasks.tone.plan import eval_plan

SCALES = load_scales()
JUDGES = [
    {"name": "small", "model": "local/smollm2-135m-instruct", "seed": 7},
    {"name": "hosted", "model": "openai/gpt-4o-mini", "temperature": 0.7},  # seed 0
    {"name": "unseeded", "model": "openai/gpt-4o", "temperature": 0.7, "seed": None},
]
TEXTS = pl.DataFrame({"item_id": ["a", "b"], "text": ["I love it.", "Meh, it broke."]})

# sha256 over the sorted repeat-0 keys, computed with the first release's plan code (the
# commit before repeats varied their seed). A change here invalidates users' stored answers.
GOLDEN = {
    "rating": "20db5ed3bd30639bfa121ccf70bdc0a9a34b22303fa62b70918b0e75829f6353",
    "accuracy": "8ec2954edfee370cbcce453eea666cb341ae4324610f19d11836659b9ee6e321",
    "tone": "24e7427759975857b2abe0f0281b5faf7aa2ab33f06f6f1afd9653010690df93",
    # pairwise: pinned at the release that added the type
    "pairwise": "536534593c3fa22a73ec55728579f0b68a49c4e6684ff6dc88979c6a24d2921d",
}
PAIRS = pl.DataFrame(
    {
        "pair_id": ["p1", "p2"],
        "context": ["Human: Is it safe?", "Human: Say hi."],
        "answer_a": ["Yes, with care.", "Hi!"],
        "answer_b": ["I can't say.", "Hello there."],
    }
)


def study(kind: str) -> Study:
    doc = {
        "name": f"golden-{kind}",
        "type": kind,
        "sample_size": 0,
        "repeats": 3,
        "judges": JUDGES,
    }
    if kind == "rating":
        doc |= {
            "task": "sentiment",
            "benchmark": "vader",
            "prompt_levels": ["base", "long_icl"],
            "scales": ["likert7", "bipolar3", "unit", "pct100"],
        }
    elif kind == "accuracy":
        doc |= {
            "task": "accuracy",
            "benchmark": "truthfulqa",
            "prompt_levels": ["base", "short_icl"],
            "scales": ["verdict"],
            "reasoning_efforts": ["default", "low"],
        }
    elif kind == "pairwise":
        doc |= {
            "task": "pairwise",
            "benchmark": "hhrlhf",
            "prompt_levels": ["base", "long_icl"],
            "scales": ["winner"],
            "reasoning_efforts": ["default", "low"],
        }
    else:
        doc |= {
            "task": "tone_argument",
            "benchmark": "ukpconvarg1",
            "prompt_levels": ["plain", "fact_first"],
            "scales": ["rubric_argument"],
        }
    return Study.model_validate(doc)


def plan(kind: str) -> pl.DataFrame:
    s = study(kind)
    if kind == "tone":
        return eval_plan(s, TEXTS.rename({"item_id": "version_id"}), SCALES)
    if kind == "pairwise":
        return pairwise_plan(s, PAIRS, SCALES)
    return build_plan(s, TEXTS, SCALES)


def digest(keys: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()


@pytest.mark.parametrize("kind", ["rating", "accuracy", "tone", "pairwise"])
def test_repeat_zero_keys_are_the_first_releases(kind: str) -> None:
    p = plan(kind)
    first = p.filter(pl.col("repeat") == 0)
    assert first.height == p.height // 3
    assert digest(first["key"].to_list()) == GOLDEN[kind]


@pytest.mark.parametrize("kind", ["rating", "accuracy", "tone", "pairwise"])
def test_repeat_r_sends_seed_plus_r(kind: str) -> None:
    p = plan(kind).with_columns(
        pl.col("params").map_elements(lambda s: json.loads(s)["seed"], pl.Int64).alias("seed")
    )
    base = {"small": 7, "hosted": 0, "unseeded": None}
    for judge, repeat, seed in p.select("judge", "repeat", "seed").unique().iter_rows():
        want = None if base[judge] is None else base[judge] + repeat
        assert seed == want, (judge, repeat, seed)
    # every repeat of one request is a different call (its own key), not a stored copy
    per_request = p.group_by("judge", "prompt_level", "scale", "reasoning_effort", "item_id")
    assert (per_request.agg(pl.col("key").n_unique())["key"] == 3).all()


def test_keys_joined_from_json_pieces_equal_the_hash_of_the_whole_payload() -> None:
    """The planner joins pre-encoded pieces; the key must stay sha256(canonical_json(payload)),
    with and without an endpoint, for any text (quotes, unicode, newlines)."""
    from tasks.judging.keys import call_key, canonical_json

    scale = SCALES["verdict"]
    messages = [
        {"role": "system", "content": 'Say "TRUE" — or not.\n'},
        {"role": "user", "content": "é"},
    ]
    params = {"temperature": 0.0, "seed": 3, "extra": {"b": 1, "a": [1, 2]}}
    for repeat, at in ((0, None), (2, "http://host:8000/v1")):
        payload = {
            "model": "openai/x",
            "messages": messages,
            "scale": scale.key_material(),
            "params": params,
            "repeat": repeat,
        } | ({} if at is None else {"endpoint": at})
        want = hashlib.sha256(canonical_json(payload).encode()).hexdigest()
        assert call_key("openai/x", messages, scale, params, repeat, endpoint=at) == want
