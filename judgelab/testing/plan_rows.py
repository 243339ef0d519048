"""Plan rows for made-up calls (TESTS AND BENCHMARKS): what the judge stage reads from a plan."""

from __future__ import annotations

from judgelab.study import Judge
from tasks.judging.keys import call_key, canonical_json, request_params
from tasks.judging.scales import Scale


def plan_rows(judge: Judge, conversations: list[list[dict]], scale: Scale) -> list[dict]:
    """One row per conversation: key (= base key: no endpoint), messages, params, scale."""
    params = request_params(judge, scale)
    rows = []
    for messages in conversations:
        key = call_key(judge.model, messages, scale, params, 0)
        rows.append(
            {
                "key": key,
                "base_key": key,
                "messages": canonical_json(messages),
                "params": canonical_json(params),
                "scale": scale.name,
            }
        )
    return rows


def user_turns(texts: list[str]) -> list[list[dict]]:
    return [[{"role": "user", "content": t}] for t in texts]
