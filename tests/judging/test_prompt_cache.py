"""Prompt caching: Anthropic's long system prompts are marked when sent, never in the key; the
cached tokens a provider reports are read from either provider's usage shape."""

from __future__ import annotations

from litellm.types.utils import Usage

from judgelab.study import Judge
from tasks.judging.engine import cache_tokens, request_kwargs
from tasks.judging.keys import call_key, request_params
from tasks.judging.scales import load_scales

SCALE = load_scales()["likert7"]
LONG = "Rate the sentiment. " * 300  # 6,000 characters: ~1,500 tokens
SHORT = "Rate the sentiment."


def kwargs(model: str, system: str, **extra: object) -> dict:
    judge = Judge(name="j", model=model, **extra)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "A text."}]
    return request_kwargs(judge, messages, request_params(judge, SCALE), None)


def test_a_long_anthropic_system_prompt_is_marked_cacheable() -> None:
    sent = kwargs("anthropic/claude-sonnet-4-5", LONG)["messages"]
    assert sent[0] == {
        "role": "system",
        "content": [{"type": "text", "text": LONG, "cache_control": {"type": "ephemeral"}}],
    }
    assert sent[1] == {"role": "user", "content": "A text."}


def test_short_prompts_other_providers_and_the_option_off_are_sent_as_planned() -> None:
    plain = {"role": "system", "content": LONG}
    assert kwargs("anthropic/claude-sonnet-4-5", SHORT)["messages"][0]["content"] == SHORT
    assert kwargs("openai/gpt-4o-mini", LONG)["messages"][0] == plain  # caches by itself
    off = kwargs("anthropic/claude-sonnet-4-5", LONG, prompt_cache=False)
    assert off["messages"][0] == plain
    # Haiku 4.5's minimum in litellm's map (prompt_cache_min_tokens) is 4,096: ~1,500 is below
    assert kwargs("anthropic/claude-haiku-4-5", LONG)["messages"][0] == plain


def test_the_mark_is_not_part_of_the_key() -> None:
    on, off = (Judge(name="j", model="anthropic/claude-sonnet-4-5", prompt_cache=v) for v in (1, 0))
    messages = [{"role": "system", "content": LONG}, {"role": "user", "content": "A text."}]
    keys = {call_key(j.model, messages, SCALE, request_params(j, SCALE), 0) for j in (on, off)}
    assert len(keys) == 1


def test_cached_tokens_from_openai_and_anthropic_usage() -> None:
    openai = Usage(
        prompt_tokens=2000,
        completion_tokens=5,
        total_tokens=2005,
        prompt_tokens_details={"cached_tokens": 1792},
    )
    assert cache_tokens(openai) == (1792, None)
    anthropic = {
        "prompt_tokens": 2000,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 1500,
    }
    assert cache_tokens(anthropic) == (0, 1500)
    assert cache_tokens({"prompt_tokens": 10}) == (None, None)
    assert cache_tokens(None) == (None, None)
