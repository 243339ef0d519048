"""A judge's probability of each value on a scale's grid, from next-token logits: the rule.

Rule (documented in the README's readout section): every grid value is written as the answer
writes it, followed by the answer's closing `}`, and tokenized once (its canonical tokens,
after the fixed opening `{"score": `). The canonical token sequences form a trie. At each
trie node with more than one child the model's logits are restricted to the children's tokens
and softmaxed; a node with one child passes its probability on whole. A value's probability
is the product along its path. So the distribution sums to 1 over the grid, is what sampling
under a grammar that allows only canonical tokenizations gives at temperature 1, and on a grid
of one-token values (likert7, verdicts) its argmax is the temperature-0 grammar answer. On
multi-token grids (0–100, 0–1, −3..3) the argmax is the distribution's mode, which greedy
decoding (one token at a time) need not reach; the "answer" readout stays the parsed answer.

Cost: one forward pass per trie node with two or more children (likert7: 1; 0–100: 11).
Pure: the model is reached through `tokens_of` and `logits_after`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import numpy as np

from tasks.judging.scales import Scale


def grid_keys(scale: Scale) -> list[str]:
    """The keys of a stored distribution: the scale's values as the answer writes them
    (a category without its JSON quotes: "TRUE", "A")."""
    return [json.loads(v) if scale.categories else v for v in scale.grid()]


def has_distribution(scale: Scale) -> bool:
    """Scales whose value follows the answer's fixed opening directly (not rubrics or text)."""
    return not scale.criteria and not scale.text and bool(scale.grid())


def distribution(
    scale: Scale,
    tokens_of: Callable[[str], Sequence[int]],
    logits_after: Callable[[Sequence[int]], np.ndarray],
) -> dict[str, float]:
    """{value: probability} over the scale's grid by the rule above. `tokens_of(text)`: the
    canonical tokens of text written after the opening; `logits_after(path)`: next-token
    logits once the prompt (which ends with the opening) is followed by `path`."""
    close = "}"
    paths = {
        key: tuple(tokens_of(value + close))
        for key, value in zip(grid_keys(scale), scale.grid(), strict=True)
    }
    children: dict[tuple[int, ...], set[int]] = {}
    for path in paths.values():
        for i in range(len(path)):
            children.setdefault(path[:i], set()).add(path[i])
    logp: dict[tuple[int, ...], dict[int, float]] = {}
    for node, nxt in children.items():
        if len(nxt) == 1:
            logp[node] = {next(iter(nxt)): 0.0}
            continue
        toks = sorted(nxt)
        z = np.asarray(logits_after(node), dtype=np.float64)[toks]
        z = z - z.max()
        z = z - np.log(np.exp(z).sum())
        logp[node] = dict(zip(toks, z.tolist(), strict=True))
    out = {}
    for key, path in paths.items():
        out[key] = float(np.exp(sum(logp[path[:i]][path[i]] for i in range(len(path)))))
    return out


def from_top_logprobs(logprobs: object, scale: Scale) -> dict[str, float] | None:
    """A hosted judge's distribution from OpenAI-style `logprobs` (content: one entry per
    answer token, each with its `top_logprobs`): at the first token that is a grid value
    (stripped of blanks and quotes) and is followed by the answer's closing `}` or quote, the
    listed alternatives that are grid values, renormalised over the grid: a first-token rule,
    exact where every grid value is one token (1–7, verdicts, winners; 0–100 and −3..3 with
    tokenizers that keep them whole). None otherwise (a value split over tokens, such as 0–1's
    "0.57", or no logprobs returned)."""
    content = list(_get(logprobs, "content") or [])
    keys = grid_keys(scale)
    for i, entry in enumerate(content):
        if _get(entry, "token", "").strip().strip('"') not in keys:
            continue
        after = _get(content[i + 1], "token", "").lstrip() if i + 1 < len(content) else "}"
        if not after.startswith(("}", '"')):  # "5" of "57" split digit by digit: not a value
            return None
        found: dict[str, float] = {}
        for alt in _get(entry, "top_logprobs") or []:
            key = _get(alt, "token", "").strip().strip('"')
            if key in keys and key not in found:
                found[key] = float(np.exp(_get(alt, "logprob", -np.inf)))
        total = sum(found.values())
        if total <= 0:
            return None
        return {k: found.get(k, 0.0) / total for k in keys}
    return None


def _get(obj: object, name: str, default: object = None) -> object:
    value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return default if value is None else value


def expected(probs: dict[str, float], scale: Scale) -> float:
    """Σ p·v over the grid (a categorical scale's value is its index, as its score is)."""
    keys = grid_keys(scale)
    values = range(len(keys)) if scale.categories else [float(k) for k in keys]
    return float(sum(probs.get(k, 0.0) * v for k, v in zip(keys, values, strict=True)))
