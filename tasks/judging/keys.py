"""The call key: sha256 over everything that changes a judge's answer, and nothing else."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from tasks.judging.scales import Scale

if TYPE_CHECKING:  # annotations only: judgelab.study checks baselines, which import keys
    from judgelab.study import Judge


def response_format(judge: Judge, scale: Scale) -> dict | None:
    """The litellm/OpenAI `response_format` this judge sends for this scale (none for text)."""
    if not scale.structured:
        return None
    if judge.response_format == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "score", "schema": scale.json_schema(), "strict": True},
        }
    if judge.response_format == "json_object":
        return {"type": "json_object"}
    return None


def repeat_seed(judge: Judge, repeat: int) -> int | None:
    """Repeat r sends the judge's seed + r, so a seeded provider sampling at temperature > 0
    gives r different samples instead of one sample r times; repeat 0 keeps the judge's seed
    (and therefore every call key stored before repeats varied)."""
    return None if judge.seed is None else judge.seed + repeat


def request_params(judge: Judge, scale: Scale, repeat: int = 0) -> dict:
    """Answer-affecting request parameters (timeouts, retries, keys and endpoints excluded)."""
    return {
        "temperature": judge.temperature,
        "seed": repeat_seed(judge, repeat),
        "max_tokens": judge.max_tokens,
        "reasoning_effort": judge.reasoning_effort,
        "response_format": response_format(judge, scale),
        "extra": judge.extra,
    }


def canonical_json(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def endpoint(judge: Judge) -> str | None:
    """The server a judge's calls go to: its api_base without surrounding blanks or trailing
    "/" (so one server has one spelling); None is the provider's default."""
    base = (judge.api_base or "").strip().rstrip("/")
    return base or None


def call_key(
    model: str,
    messages: list[dict],
    scale: Scale,
    params: dict,
    repeat: int,
    *,
    endpoint: str | None = None,
) -> str:
    """Two deployments behind one model string answer differently, so a call through another
    endpoint is another call; the endpoint enters the hash only when given, which keeps every
    key of a default-endpoint judge (and every key stored before endpoints counted)."""
    return key_from_json(
        canonical_json(model),
        canonical_json(messages),
        canonical_json(scale.key_material()),
        canonical_json(params),
        repeat,
        None if endpoint is None else canonical_json(endpoint),
    )


def import_key(
    judge: str, model: str, prompt_level: str, scale: str, item_id: str, repeat: int
) -> str:
    """The key of an imported judgment: its place in the design, not the file it came from,
    so importing the same file again is a no-op and an edited row is the same key with a
    new answer (tasks/imports/)."""
    material = ["import", judge, model, prompt_level, scale, item_id, int(repeat)]
    # tasks/imports/load.keys builds the same text for a whole frame at once
    return hashlib.sha256(canonical_json(material).encode()).hexdigest()


def key_from_json(
    model: str,
    messages: str,
    scale: str,
    params: str,
    repeat: int,
    endpoint: str | None = None,
    canary: str | None = None,
) -> str:
    """sha256 of canonical_json({canary?, endpoint?, messages, model, params, repeat, scale}),
    joined from pieces already encoded with canonical_json: a planner that stores the encoded
    messages anyway encodes them once, not once for the column and again for each key.
    `canary` (an encoded date bucket) makes a canary call of that bucket a call of its own,
    made again on purpose in the next bucket; without it every key is as before."""
    at = "" if endpoint is None else f'"endpoint":{endpoint},'
    at = at if canary is None else f'"canary":{canary},{at}'
    text = (
        f'{{{at}"messages":{messages},"model":{model},"params":{params},'
        f'"repeat":{int(repeat)},"scale":{scale}}}'
    )
    return hashlib.sha256(text.encode()).hexdigest()
