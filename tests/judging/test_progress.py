"""Progress of judge calls: the line's numbers, a bar on a terminal, log lines elsewhere."""

from __future__ import annotations

import io
import logging
import threading
import time

import pytest

from tasks.judging import progress
from tasks.judging.progress import Progress, progress_line


def test_progress_line_numbers() -> None:
    line = progress_line("s · j · shard 1/2", done=120, planned=500, failed=3, elapsed=40.0)
    assert line == "s · j · shard 1/2: 120/500 calls (24%), 3.0 calls/s, ETA 127 s, 3 failed"
    assert "ETA ?" in progress_line("x", 0, 10, 0, 5.0)
    assert "(100%)" in progress_line("x", 0, 0, 0, 1.0)


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_bar_with_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = Tty()
    p = Progress("judge", planned=4, stream=stream, ui=False)
    for status in ["ok", "ok", "unparseable", "ok"]:
        p.add(status)
    p.close()
    text = stream.getvalue()
    assert "judge" in text and "4/4" in text and "failed=1" in text
    assert (p.done, p.failed) == (4, 1)


def test_without_a_terminal_lines_are_logged_at_the_interval(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # start, then each call's finish (a logged line reads the clock once more)
    clock = iter([0.0, 1.0, 11.0, 11.0, 12.0, 25.0, 25.0, 25.0])
    # `progress.time` is the time module: other threads of this worker (a Prefect event loop
    # left by an earlier in-process flow) read the same clock and get the real one
    me, real = threading.get_ident(), time.monotonic
    monkeypatch.setattr(
        progress.time, "monotonic", lambda: next(clock) if threading.get_ident() == me else real()
    )
    caplog.set_level(logging.INFO, logger="judgelab.progress")
    p = Progress("judge", planned=4, interval=10.0, stream=io.StringIO(), ui=False)
    for status in ["ok", "error", "ok", "ok"]:  # at t = 1, 11, 12, 25
        p.add(status)
    p.close()
    lines = [r.getMessage() for r in caplog.records]
    # a line at t = 11 (10 s after the start) and at t = 25, then the closing line
    assert [ln.split(": ", 1)[1].split(" calls")[0] for ln in lines] == ["2/4", "4/4", "4/4"]
    assert lines[0].endswith("1 failed")
