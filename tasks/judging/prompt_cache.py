"""Anthropic's prompt cache: a long system prompt, shared by every call of a design, is marked
`cache_control` so the calls after the first read it at the cache price.

OpenAI caches a prompt prefix of 1,024 tokens or more by itself; Anthropic caches only
blocks marked with `cache_control`, and only from a minimum length: the rule `judgelab plan`
estimates cache hits with (tasks/costs.py `cache_rule`: litellm's `prompt_cache_min_tokens`
for the model, else 1,024 tokens). A shorter marked block would be sent uncached, so the
threshold only saves a pointless change. The mark is added when the request is sent, never
to the planned messages: caching does not change what the model reads, so it is not part of
the call key, and an answer stored with and without it is the same call's.
"""

from __future__ import annotations

MARKED_PROVIDERS = ("anthropic",)


def min_tokens(model: str) -> int | None:
    """The shortest system prompt worth marking (None: the map does not price the model)."""
    from tasks.costs import cache_rule, rates

    found = rates(model)
    rule = cache_rule(found) if found is not None else None
    return rule.min_tokens if rule is not None else None


def mark(provider: str, model: str, messages: list[dict]) -> list[dict]:
    """`messages` with a long system prompt marked cacheable for a provider that needs the
    mark; the same list otherwise."""
    if provider not in MARKED_PROVIDERS or not messages or messages[0].get("role") != "system":
        return messages  # every call of other providers ends here, before any lookup
    from tasks.costs import CHARS_PER_TOKEN

    system = messages[0]["content"]
    least = min_tokens(model) or 1024
    if not isinstance(system, str) or len(system) / CHARS_PER_TOKEN < least:
        return messages
    block = {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
    return [{**messages[0], "content": [block]}, *messages[1:]]
