"""litellm's per-call success logging is skipped only while nobody listens for it."""

from __future__ import annotations

import asyncio

import litellm
from litellm import utils
from litellm.integrations.custom_logger import CustomLogger

from tasks.judging import providers


class Counting(CustomLogger):
    def __init__(self) -> None:
        super().__init__()
        self.successes = 0

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
        self.successes += 1


def _calls(n: int) -> None:
    async def run() -> None:
        for i in range(n):
            await litellm.acompletion(
                model="fake/hash", messages=[{"role": "user", "content": f"text {i}"}]
            )
        await asyncio.sleep(0.2)  # let litellm's logging tasks finish

    asyncio.run(run())


def test_success_logging_is_skipped_without_callbacks_and_kept_with_one(monkeypatch) -> None:
    providers.register()
    assert hasattr(utils._schedule_async_success_logging, "skips")  # the patch is in place
    built = []
    monkeypatch.setattr(
        utils,
        "_client_async_logging_helper",
        lambda **kw: built.append(1) or asyncio.sleep(0),
    )
    _calls(3)
    assert built == []  # nothing registered: no payload built, no task scheduled

    listener = Counting()
    monkeypatch.undo()  # the real logging helper again
    monkeypatch.setattr(litellm, "callbacks", [listener])
    _calls(3)
    assert listener.successes == 3  # a registered callback hears every call
