"""The embedded judge: answers are whole JSON on the scale's grid although only the value is
decoded, and llama.cpp gets one thread per free core."""

from __future__ import annotations

import os

import pytest

from tasks.judging import providers
from tasks.judging.grammar import answer_grammar
from tasks.judging.parse import parse_score
from tasks.judging.scales import load_scales

SCALES = {n: s for n, s in load_scales().items() if s.structured}
pytestmark = pytest.mark.usefixtures("embedded_judge")  # llama.cpp in this process


@pytest.mark.parametrize("name", sorted(SCALES))
def test_the_whole_grammar_is_the_opening_then_the_rest(name: str) -> None:
    scale = SCALES[name]
    opening, _ = answer_grammar(scale)
    assert opening.startswith("{") and opening.endswith(": ")
    if not scale.criteria:  # the opening, a grid value and the closing brace: a whole answer
        assert {parse_score(f"{opening}{v}}}", scale)[0] for v in scale.grid()} == {"ok"}


def test_local_answers_are_whole_json_on_the_grid() -> None:
    llama = providers.LocalLlama()
    messages = [
        {"role": "system", "content": "Rate how positive the text is."},
        {"role": "user", "content": 'Text: "What a wonderful, sunny morning!"'},
    ]
    try:
        for name in ("likert7", "bipolar3", "unit", "pct100", "verdict", "rubric_argument"):
            scale = SCALES[name]
            params = {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "score", "schema": scale.json_schema()},
                },
                "temperature": 0.0,
                "seed": 0,
                "max_tokens": 400 if scale.criteria else 16,
            }
            resp = llama.completion("smollm2-135m-instruct", messages, params)
            raw = resp.choices[0].message.content
            status, score = parse_score(raw, scale)
            assert status == "ok", (name, raw)
            assert scale.min <= score <= scale.max
            assert raw.startswith(answer_grammar(scale)[0])
            assert resp.usage.completion_tokens < len(raw)  # the opening was not decoded
    finally:
        llama.close()


def test_threads_follow_the_idle_cores(monkeypatch) -> None:
    import psutil

    monkeypatch.delenv("JUDGELAB_LOCAL_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(psutil, "cpu_count", lambda: 2)
    for busy_percent, threads in ((0.0, 2), (20.0, 2), (30.0, 1), (70.0, 1), (100.0, 1)):
        monkeypatch.setattr(psutil, "cpu_percent", lambda interval, b=busy_percent: b)
        assert providers.local_threads() == threads, busy_percent
    monkeypatch.setenv("JUDGELAB_LOCAL_THREADS", "1")
    monkeypatch.setattr(psutil, "cpu_percent", lambda interval: 0.0)
    assert providers.local_threads() == 1
