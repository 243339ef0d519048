"""Call keys change with every answer-affecting field and with nothing else."""

import pytest

from judgelab.study import Judge
from tasks.judging.keys import call_key, request_params
from tasks.judging.scales import load_scales

SCALES = load_scales()
MSGS = [{"role": "system", "content": "Rate 1-7."}, {"role": "user", "content": 'Text: "hi"'}]
BASE = Judge(name="j", model="openai/gpt-4o-mini")


def key(judge: Judge = BASE, messages: list = MSGS, scale: str = "likert7", repeat: int = 0) -> str:
    s = SCALES[scale]
    return call_key(judge.model, messages, s, request_params(judge, s), repeat)


@pytest.mark.parametrize(
    "change",
    [
        {"model": "openai/gpt-4o"},
        {"temperature": 0.7},
        {"seed": 1},
        {"seed": None},
        {"max_tokens": 64},
        {"reasoning_effort": "low"},
        {"response_format": "json_object"},
        {"extra": {"top_p": 0.9}},
    ],
)
def test_answer_affecting_judge_fields_change_the_key(change: dict) -> None:
    assert key(BASE.model_copy(update=change)) != key()


def test_messages_scale_and_repeat_change_the_key() -> None:
    other = [MSGS[0], {"role": "user", "content": 'Text: "hi!"'}]
    assert key(messages=other) != key()
    assert key(scale="bipolar3") != key()
    assert key(repeat=1) != key()


@pytest.mark.parametrize(
    "change",
    [
        {"timeout": 5.0},
        {"max_attempts": 9},
        {"max_reasks": 0},
        {"backoff_base": 2.0},
        {"rpm": 60},
        {"tpm": 10_000},
        {"api_base": "http://127.0.0.1:1"},
        {"api_key_env": "OTHER_KEY"},
        {"concurrency": 64},
        {"name": "renamed"},
    ],
)
def test_transport_fields_do_not_change_the_key(change: dict) -> None:
    assert key(BASE.model_copy(update=change)) == key()


def test_key_is_stable_and_hex() -> None:
    k = key()
    assert k == key() and len(k) == 64 and int(k, 16) >= 0
