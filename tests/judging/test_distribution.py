"""Score distributions: the trie rule on hand-made logits, and the embedded judge's rows."""

from __future__ import annotations

import asyncio
import json
import math

import numpy as np
import pytest

from judgelab.study import Judge
from tasks.judging import providers
from tasks.judging.distribution import (
    distribution,
    expected,
    from_top_logprobs,
    grid_keys,
    has_distribution,
)
from tasks.judging.engine import Call, Engine, request_kwargs
from tasks.judging.keys import call_key, request_params
from tasks.judging.parse import parse_score
from tasks.judging.scales import Scale, load_scales

SCALES = load_scales()


def _chars(text: str) -> list[int]:
    """A tokenizer with one token per character (its code point)."""
    return [ord(c) for c in text]


def test_one_token_values_are_the_softmax_over_the_grid_tokens() -> None:
    scale = Scale("s", "", 1, 3, 1)
    logits = np.zeros(256)
    logits[[ord("1"), ord("2"), ord("3")]] = [0.0, 1.0, 2.0]
    logits[ord("9")] = 50.0  # off the grid: left out of the softmax
    probs = distribution(scale, _chars, lambda path: logits if not path else np.zeros(256))
    z = np.exp([0.0, 1.0, 2.0])
    assert probs == pytest.approx(dict(zip(["1", "2", "3"], z / z.sum(), strict=True)))


def test_multi_token_values_multiply_along_the_trie_and_sum_to_one() -> None:
    scale = Scale("s", "", 0, 12, 1)  # "1}" and "10}".."12}" share the first token
    rng = np.random.default_rng(3)
    table = {}

    def logits_after(path):
        return table.setdefault(tuple(path), rng.normal(size=256))

    probs = distribution(scale, _chars, logits_after)
    assert set(probs) == set(grid_keys(scale))
    assert math.isclose(sum(probs.values()), 1.0, rel_tol=1e-12)

    def p(path, options, tok):
        z = table[tuple(path)][[ord(o) for o in options]]
        return float(np.exp(z[options.index(tok)]) / np.exp(z).sum())

    digits = [str(d) for d in range(10)]
    # "11}": first "1" of the ten digits, then "1" among "}", "0", "1", "2"; "}" is forced
    by_hand = p([], digits, "1") * p(_chars("1"), ["}", "0", "1", "2"], "1")
    assert probs["11"] == pytest.approx(by_hand)
    assert probs["7"] == pytest.approx(p([], digits, "7"))  # "7" has one continuation, "}"


def test_expected_is_the_probability_weighted_value() -> None:
    scale = SCALES["bipolar3"]
    probs = {"-3": 0.1, "-1": 0.2, "0": 0.3, "2": 0.4}
    assert expected(probs, scale) == pytest.approx(0.1 * -3 + 0.2 * -1 + 0.3 * 0 + 0.4 * 2)
    verdict = SCALES["verdict"]  # a category's value is its index, as its score is
    assert expected({"FALSE": 0.25, "TRUE": 0.75}, verdict) == pytest.approx(0.75)
    assert grid_keys(verdict) == ["FALSE", "TRUE"]


MESSAGES = [
    {"role": "system", "content": "Rate how positive the text is."},
    {"role": "user", "content": 'Text: "What a wonderful, sunny morning!"'},
]


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, s in SCALES.items() if has_distribution(s)])
def test_the_embedded_judge_stores_a_distribution_over_the_grid(
    embedded_judge: str, name: str
) -> None:
    """Through the engine, as a study stores it: the probs column parses to a distribution on
    the grid; on one-token grids its argmax is the temperature-0 answer."""
    scale = SCALES[name]
    judge = Judge(name="local", model=embedded_judge)
    params = request_params(judge, scale)
    call = Call(call_key(judge.model, MESSAGES, scale, params, 0), MESSAGES, params, scale)
    providers.register()
    row = asyncio.run(Engine(judge, "run-1").judge_one(call))
    status, score = parse_score(row["raw"], scale)
    assert status == row["status"] == "ok"
    probs = json.loads(row["probs"])
    assert set(probs) == set(grid_keys(scale))
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-6)
    assert all(0.0 <= p <= 1.0 for p in probs.values())
    if name in ("likert7", "verdict", "winner"):  # one token per value
        answer = grid_keys(scale)[int(score)] if scale.categories else scale.fmt(score)
        assert max(probs, key=probs.get) == answer


def _logprobs(tokens: list[str], at: int, alternatives: dict[str, float]) -> dict:
    """OpenAI-style logprobs: `alternatives` (token → probability) listed at token `at`."""
    top = [{"token": t, "logprob": math.log(p)} for t, p in alternatives.items()]
    return {
        "content": [
            {"token": t, "logprob": -0.1, "top_logprobs": top if i == at else []}
            for i, t in enumerate(tokens)
        ]
    }


def test_a_hosted_judge_s_top_logprobs_become_a_grid_distribution() -> None:
    tokens = ['{"', "score", '":', " ", "5", "}"]
    lp = _logprobs(tokens, 4, {"5": 0.5, "4": 0.3, "five": 0.1, "6": 0.1})
    probs = from_top_logprobs(lp, SCALES["likert7"])
    assert probs["5"] == pytest.approx(0.5 / 0.9) and probs["4"] == pytest.approx(0.3 / 0.9)
    assert probs["1"] == 0.0 and sum(probs.values()) == pytest.approx(1.0)
    verdict = ['{"', "verdict", '":', ' "', "TRUE", '"}']
    probs = from_top_logprobs(_logprobs(verdict, 4, {"TRUE": 0.6, "FALSE": 0.2}), SCALES["verdict"])
    assert probs == pytest.approx({"FALSE": 0.25, "TRUE": 0.75})
    # 57 split digit by digit: its first token is no value of the grid
    split = ['{"', "score", '":', " ", "5", "7", "}"]
    assert from_top_logprobs(_logprobs(split, 4, {"5": 0.9}), SCALES["pct100"]) is None
    assert from_top_logprobs(None, SCALES["likert7"]) is None


def test_top_logprobs_are_requested_but_do_not_change_the_key() -> None:
    scale = SCALES["likert7"]
    plain = Judge(name="h", model="openai/gpt-4o-mini")
    asking = Judge(name="h", model="openai/gpt-4o-mini", top_logprobs=5)
    keys = [
        call_key(j.model, MESSAGES, scale, request_params(j, scale), 0) for j in (plain, asking)
    ]
    assert keys[0] == keys[1]
    sent = request_kwargs(asking, MESSAGES, request_params(asking, scale), None)
    assert (sent["logprobs"], sent["top_logprobs"]) == (True, 5)
    assert "logprobs" not in request_kwargs(plain, MESSAGES, request_params(plain, scale), None)
