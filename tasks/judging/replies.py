"""What a custom litellm provider (the embedded judge, the test double) reads from a request
and hands back: the JSON schema asked for, and a response object with token usage."""

from __future__ import annotations

from litellm import ModelResponse
from litellm.types.utils import Usage


def model_response(
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


def schema_of(optional_params: dict) -> dict | None:
    fmt = optional_params.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("schema") if isinstance(fmt, dict) else None
