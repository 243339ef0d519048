"""Anthropic's prompt cache: a long system prompt, shared by every call of a design, is marked
`cache_control` so the calls after the first read it at the cache price.

OpenAI caches a prompt prefix of 1,024 tokens or more by itself; Anthropic caches only
blocks marked with `cache_control`, and only from a minimum length (documented at
https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching: 1,024 tokens for Opus
and Sonnet models, 2,048 for Haiku; a shorter marked block is sent uncached, so the
threshold saves only a pointless change). The mark is added when the request is sent, never
to the planned messages: caching does not change what the model reads, so it is not part of
the call key, and an answer stored with and without it is the same call's.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 4  # the estimate tasks/costs.py uses too; the provider counts exactly
MARKED_PROVIDERS = ("anthropic",)
MIN_TOKENS = {"haiku": 2048}  # by a substring of the model name; otherwise DEFAULT_MIN
DEFAULT_MIN = 1024


def min_tokens(model: str) -> int:
    return next((n for part, n in MIN_TOKENS.items() if part in model), DEFAULT_MIN)


def mark(provider: str, model: str, messages: list[dict]) -> list[dict]:
    """`messages` with a long system prompt marked cacheable for a provider that needs the
    mark; the same list otherwise."""
    if provider not in MARKED_PROVIDERS or not messages or messages[0].get("role") != "system":
        return messages
    system = messages[0]["content"]
    if not isinstance(system, str) or len(system) / CHARS_PER_TOKEN < min_tokens(model):
        return messages
    block = {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
    return [{**messages[0], "content": [block]}, *messages[1:]]
