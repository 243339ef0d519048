"""The litellm custom provider `local/…` (llama.cpp in-process), and the lean litellm set-up.

Registering it as a litellm provider means the engine calls `litellm.acompletion` for every
model alike, embedded or hosted. The test double `fake/…` lives in judgelab/testing and is
registered only when JUDGELAB_FAKE_PROVIDERS=1 (the test suite sets it; so can a benchmark).
"""

from __future__ import annotations

import asyncio
import atexit
import inspect
import os
import threading
import time

import litellm
import numpy as np
from litellm import CustomLLM

from tasks.judging import selftest
from tasks.judging.distribution import distribution, has_distribution
from tasks.judging.grammar import _scale_from_schema, opening_and_grammar
from tasks.judging.local_models import model_path
from tasks.judging.replies import model_response, schema_of


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


def grid_probs(llm, prompt: list[int], scale) -> dict[str, float]:
    """The scale's grid distribution after `prompt` (which ends with the answer's opening),
    by forward passes that rewind the model's context to the prompt's end: after the answer
    is decoded, so the answer itself is decoded exactly as without this."""
    n_vocab = llm.n_vocab()

    def logits_after(path) -> np.ndarray:
        if path:
            llm.n_tokens = len(prompt)
            llm.eval(list(path))
        else:  # the prompt's last token again, for the logits at the value position
            llm.n_tokens = len(prompt) - 1
            llm.eval(prompt[-1:])
        return np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n_vocab,)).copy()

    def tokens_of(text: str) -> list[int]:
        return llm.tokenize(text.encode(), add_bos=False)

    return distribution(scale, tokens_of, logits_after)


class LocalLlama(CustomLLM):
    """llama.cpp in-process. One model instance per GGUF, so calls are serialised by a lock.

    A scored call does not decode the answer's fixed opening (`{"score": `): the prompt ends
    with it, as the start of the assistant turn, and the grammar covers only the value and
    the closing brace. The stored answer is the whole JSON, as before. After the answer is
    decoded, the same prompt gives the probability of every grid value at the value position
    (tasks/judging/distribution.py); the response carries it as `judgelab_probs`."""

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
        """The model, loaded on first use. It first decodes once in a child process
        (tasks/judging/selftest.py, once per process): a build this machine cannot run fails
        with one line (LocalJudgeBroken) instead of killing this process with SIGILL — on a
        Dask worker, in a test, anywhere a model loads."""
        if name not in self._models:
            selftest.check([f"local/{name}"])
            from llama_cpp import Llama
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            llm = Llama(
                model_path=str(model_path(name)),
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
        schema = schema_of(optional_params)
        sampling = {
            "temperature": optional_params.get("temperature", 0.0),
            "seed": optional_params.get("seed"),
            "max_tokens": optional_params.get("max_tokens", 32),
        }
        probs = None
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
                scale = _scale_from_schema(schema)
                probs = grid_probs(llm, prompt, scale) if has_distribution(scale) else None
        usage = out["usage"]
        resp = model_response(
            f"local/{model}", content, usage["prompt_tokens"], usage["completion_tokens"]
        )
        if probs is not None:
            resp.judgelab_probs = probs
        return resp

    async def acompletion(self, *args, **kwargs):
        return await asyncio.to_thread(self.completion, *args, **kwargs)


_registered = False
FAKE_ENV = "JUDGELAB_FAKE_PROVIDERS"  # "1": register the test double `fake/…` too


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
    litellm.custom_provider_map = [{"provider": "local", "custom_handler": LocalLlama()}]
    if os.environ.get(FAKE_ENV) == "1":
        from judgelab.testing.fake_provider import FakeJudge

        litellm.custom_provider_map.append({"provider": "fake", "custom_handler": FakeJudge()})
    litellm.utils.custom_llm_setup()
    _registered = True


async def close_loop_clients() -> int:
    """Close and forget the HTTP clients litellm keeps for the running event loop; → how many.

    litellm caches one client per provider set-up *and event loop*
    (`litellm.in_memory_llm_clients_cache`, keys ending in `-<id(loop)>`, kept ten minutes),
    each with its pool of keep-alive sockets. Every shard runs its own loop, so every shard
    left about `concurrency` sockets open: a 20,000-call run in shards of 100 died of "Too many
    open files". A shard's loop calls this as it ends, when none of its requests is in flight.
    A client wrapping the caller's `litellm.aclient_session` is forgotten but not closed."""
    cache = litellm.in_memory_llm_clients_cache
    suffix = f"-{id(asyncio.get_running_loop())}"
    closed = 0
    for key in [k for k in list(cache.cache_dict) if str(k).endswith(suffix)]:
        client = cache.cache_dict.get(key)
        cache.delete_cache(key)  # a loop with this id later builds its own client
        wrapped = getattr(client, "_client", None)
        if wrapped is not None and wrapped is litellm.aclient_session:
            continue
        close = getattr(client, "aclose", None) or getattr(client, "close", None)
        if close is None:
            continue
        done = close()
        if inspect.isawaitable(done):
            await done
        closed += 1
    return closed


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
