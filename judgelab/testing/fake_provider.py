"""The fake litellm provider `fake/…`: a deterministic, scale-aware judge FOR TESTS AND
BENCHMARKS ONLY, with planted properties for simulation tests. Registered by
tasks.judging.providers.register() only when JUDGELAB_FAKE_PROVIDERS=1."""

from __future__ import annotations

import functools
import hashlib
import json
import random
from pathlib import Path

from litellm import CustomLLM, ModelResponse

from tasks.judging.replies import model_response, schema_of


class FakeJudge(CustomLLM):
    """Deterministic, scale-aware fake judge FOR TESTS ONLY (model strings `fake/<behaviour>`).

    `fake/hash`: a grid value chosen by hashing the messages; `fake/unparseable`: prose;
    `fake/out_of_range`: max + 1; `fake/error`: raises, echoing the API key it was given (as
    careless providers do) so tests can check that keys are redacted.

    `fake/planted`: a judge with planted properties for simulation tests. Its `extra`
    parameters: `truth` (a JSON file mapping each text to its human rating as a fraction
    0..1 of the human scale), `shift` (added on the common 1–7 scale), `noise` (sd of a
    normal error on 1–7, seeded by the messages), `scale_shift` added only when the asked
    scale's range equals `shift_on` ([min, max], e.g. [-3, 3]). The answer is the shifted
    truth, clipped to 1–7, mapped onto the asked scale and rounded to its grid. On a verdict
    scale the truth is 1 (correct) or 0 (wrong), and `accept_wrong`, `reject_right` and
    `coin_on` plant leniency, strictness and guessing (see `_planted_verdict`).
    Drift (canary tests): `run_noise` adds normal noise (sd on 1–7) seeded by the messages,
    the request's seed and today's date (judgelab.clock), so each repeat and each day's
    batch differ; from the date `drift_from` on, `drift` is added on 1–7 (ratings) and
    `drift_accept_wrong` replaces `accept_wrong` (verdicts), as if the provider swapped the
    model behind the name that day.
    """

    calls = 0  # counted across instances so tests can assert how many calls were made

    def completion(self, model: str, messages: list, optional_params: dict, *args, **kwargs):
        FakeJudge.calls += 1
        if model == "error":
            raise RuntimeError(f"fake provider failure (api_key={kwargs.get('api_key')})")
        schema = schema_of(optional_params) or {}
        digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
        u = int.from_bytes(digest[:4], "big") / 2**32
        if "winner" in schema.get("properties", {}):
            return self._winner(model, messages, optional_params, schema, digest, u)
        if "verdict" in schema.get("properties", {}):
            return self._verdict(model, messages, optional_params, schema, digest, u)
        if "criteria" in schema.get("properties", {}):
            return self._rubric(model, messages, optional_params, schema, digest, u)
        if not schema:  # free text (a rewrite): echo the text the prompt wraps in <text> tags
            return self._echo(model, messages)
        score = schema.get("properties", {}).get("score", {"minimum": 1, "maximum": 7})
        lo, hi = score["minimum"], score["maximum"]
        if model == "planted":
            u = _planted_fraction(messages, optional_params, (lo, hi), digest)
        step = score.get("multipleOf", 1)
        value = round(round((lo + u * (hi - lo)) / step) * step, 6)
        if model == "unparseable":
            content = "I think this text is rather positive overall."
        elif model == "out_of_range":
            content = json.dumps({"score": hi + 1})
        else:
            content = json.dumps({"score": int(value) if step == 1 else value})
        resp = model_response(f"fake/{model}", content, 10, 5)
        if model == "probs":  # a distribution too, as the embedded judge gives
            resp.judgelab_probs = _planted_probs(schema, value)
        return resp

    @staticmethod
    def _verdict(
        model: str, messages: list, params: dict, schema: dict, digest: bytes, u: float
    ) -> ModelResponse:
        """Verdict scales: `hash` picks a category by hash; `planted` see `_planted_verdict`."""
        categories = schema["properties"]["verdict"]["enum"]
        if model == "unparseable":
            content = "It is hard to say whether this answer is right."
        elif model == "out_of_range":
            content = json.dumps({"verdict": "MAYBE"})
        else:
            pick = _planted_verdict(messages, params, digest) if model == "planted" else u >= 0.5
            content = json.dumps({"verdict": categories[int(pick)]})
        return model_response(f"fake/{model}", content, 10, 5)

    @staticmethod
    def _rubric(
        model: str, messages: list, params: dict, schema: dict, digest: bytes, u: float
    ) -> ModelResponse:
        """Rubric scales: `hash` scores by hash; `planted` scores `base` (default 6), plus
        `tone_bonus` when the text has at least `booster_min` boosters per 100 words (the
        confidence axis's high-pole markers), plus `length_bonus` per 100 words of the text (a
        judge that rewards length: the verbosity axis), plus normal noise of sd `noise`, seeded
        by the messages and the request's seed (so repeats differ)."""
        props = schema["properties"]
        names = list(props["criteria"]["properties"])
        lo, hi = props["overall"]["minimum"], props["overall"]["maximum"]
        if model == "planted":
            text = messages[-1]["content"].removeprefix('Text: "').removesuffix('"')
            seed = str(params.get("seed")).encode()
            value = params.get("base", 6.0) + params.get("noise", 0.0) * random.Random(
                digest + seed
            ).gauss(0.0, 1.0)
            if _booster_density(text) >= params.get("booster_min", 1e9):
                value += params.get("tone_bonus", 0.0)
            if params.get("length_bonus"):
                value += params["length_bonus"] * _n_words(text) / 100
            overall = int(min(hi, max(lo, round(value))))
        else:
            overall = int(lo + round(u * (hi - lo)))
        crit = {n: {"score": 3, "justification": "fake"} for n in names}
        content = {"criteria": crit, "overall": overall, "strengths": "s", "weaknesses": "w"}
        if model == "out_of_range":
            content["overall"] = hi + 1
        return model_response(f"fake/{model}", json.dumps(content), 10, 5)

    @staticmethod
    def _winner(
        model: str, messages: list, params: dict, schema: dict, digest: bytes, u: float
    ) -> ModelResponse:
        """Pairwise (winner) scales: `hash` picks A, B or tie by hash; `planted` see
        `_planted_winner`; `unparseable` and `out_of_range` as on other scales."""
        categories = schema["properties"]["winner"]["enum"]
        if model == "unparseable":
            content = "Both answers have their merits."
        elif model == "out_of_range":
            content = json.dumps({"winner": "C"})
        elif model == "planted":
            content = json.dumps({"winner": _planted_winner(messages, params, digest)})
        else:
            content = json.dumps({"winner": categories[min(int(u * 3), 2)]})
        return model_response(f"fake/{model}", content, 10, 5)

    @staticmethod
    def _echo(model: str, messages: list) -> ModelResponse:
        prompt = messages[-1]["content"]
        text = prompt.split("<text>", 1)[-1].split("</text>", 1)[0].strip()
        return model_response(f"fake/{model}", f"{text}\nCHANGES: none", 10, 5)

    async def acompletion(self, *args, **kwargs):
        return self.completion(*args, **kwargs)


def _planted_probs(schema: dict, value: float) -> dict[str, float]:
    """Half the mass on the answer, half spread evenly over the scale's grid."""
    from tasks.judging.distribution import grid_keys
    from tasks.judging.grammar import _scale_from_schema

    keys = grid_keys(_scale_from_schema(schema))
    probs = dict.fromkeys(keys, 0.5 / len(keys))
    answer = min(keys, key=lambda k: abs(float(k) - value))
    probs[answer] += 0.5
    return probs


def _booster_density(text: str) -> float:
    """Boosters per 100 words, with the confidence axis's high-pole lexicon."""
    from tasks.tone.axes import load_axis
    from tasks.tone.checks import marker_count, words

    n = len(words(text))
    return 100 * marker_count(text, load_axis("confidence").pole("high").markers) / n if n else 0.0


def _n_words(text: str) -> int:
    """Words as the tone checks count them (markdown markup is not a word)."""
    from tasks.tone.tokens import words

    return len(words(text))


def _planted_verdict(messages: list, params: dict, digest: bytes) -> bool:
    """A planted verdict: the truth (1 correct, 0 wrong), except that a wrong answer is accepted
    with probability `accept_wrong`, a right one rejected with probability `reject_right`, and
    on the texts listed in the JSON file `coin_on` the verdict is a coin flip; the draws are
    seeded by the messages."""
    text = messages[-1]["content"]
    draw = random.Random(digest + _run_seed(params)).random()
    if "coin_on" in params and text in _truth(params["coin_on"]):
        return draw < 0.5
    if _truth(params["truth"])[text] >= 0.5:
        return draw >= params.get("reject_right", 0.0)
    accept = params.get("accept_wrong", 0.0)
    if _drifted(params):
        accept = params.get("drift_accept_wrong", accept)
    return draw < accept


def _run_seed(params: dict) -> bytes:
    """Draws of a judge with `run_noise` differ per repeat (seed) and per day; else b""."""
    if not params.get("run_noise"):
        return b""
    from judgelab import clock

    return f"{params.get('seed')}|{clock.now().date()}".encode()


def _drifted(params: dict) -> bool:
    """Whether today (judgelab.clock) is on or after the planted `drift_from` date."""
    if "drift_from" not in params:
        return False
    from judgelab import clock

    return clock.now().date().isoformat() >= params["drift_from"]


@functools.cache
def _truth(path: str) -> dict[str, float] | list[str]:
    return json.loads(Path(path).read_text())


def _planted_fraction(
    messages: list, params: dict, scale_range: tuple[float, float], digest: bytes
) -> float:
    """Where a planted fake judge answers, as a fraction of the asked scale (see FakeJudge)."""
    text = messages[-1]["content"].removeprefix('Text: "').removesuffix('"')
    on_1to7 = 1 + 6 * _truth(params["truth"])[text]
    on_1to7 += params.get("shift", 0.0)
    if list(scale_range) == list(params.get("shift_on", [])):
        on_1to7 += params.get("scale_shift", 0.0)
    on_1to7 += params.get("noise", 0.0) * random.Random(digest).gauss(0.0, 1.0)
    if params.get("run_noise"):
        on_1to7 += params["run_noise"] * random.Random(digest + _run_seed(params)).gauss(0.0, 1.0)
    if _drifted(params):
        on_1to7 += params.get("drift", 0.0)
    return (min(7.0, max(1.0, on_1to7)) - 1) / 6


def _planted_winner(messages: list, params: dict, digest: bytes) -> str:
    """A planted pairwise judge. `truth` is a JSON file mapping each user message (a pair in
    one order) to the position of the better answer, "A", "B" or "tie". With probability
    2 · `first_bias` the first position (A) wins whatever it shows; otherwise a tie with
    probability `tie`, a coin flip between A and B with probability `noise`, else the truth.
    As the truth puts the better answer first in one order and second in the other, the
    first position wins 0.5 + first_bias of the decisive answers when `tie` is 0 (the
    position bias the tables should recover). Draws are seeded by the messages and the
    request's seed, so repeats differ."""
    draws = random.Random(digest + str(params.get("seed")).encode())
    if draws.random() < 2 * params.get("first_bias", 0.0):
        return "A"
    roll = draws.random()
    if roll < params.get("tie", 0.0):
        return "tie"
    if roll < params.get("tie", 0.0) + params.get("noise", 0.0):
        return "A" if draws.random() < 0.5 else "B"
    return _truth(params["truth"])[messages[-1]["content"]]
