"""Calls done / planned while judge calls run: a bar on a terminal, plain log lines elsewhere
(CI, workers), and the same counts in the Prefect UI as a progress artifact."""

from __future__ import annotations

import logging
import sys
import time
from typing import TextIO
from uuid import UUID

from tqdm import tqdm

from tasks.artifacts import artifact_key
from tasks.judging.parse import OK

log = logging.getLogger("judgelab.progress")
UI_INTERVAL = 5.0  # seconds between progress-artifact updates


def progress_line(label: str, done: int, planned: int, failed: int, elapsed: float) -> str:
    """One line: calls done / planned, share, rate, ETA and failures so far."""
    rate = done / elapsed if elapsed > 0 else 0.0
    share = 100 * done / planned if planned else 100.0
    eta = f"{(planned - done) / rate:.0f} s" if rate > 0 else "?"
    return (
        f"{label}: {done}/{planned} calls ({share:.0f}%), {rate:.1f} calls/s, "
        f"ETA {eta}, {failed} failed"
    )


def _in_prefect_run() -> bool:
    from prefect.context import FlowRunContext, TaskRunContext

    return TaskRunContext.get() is not None or FlowRunContext.get() is not None


class Progress:
    """Counts finished calls of one batch of work and shows them as they go."""

    def __init__(
        self,
        label: str,
        planned: int,
        interval: float = 30.0,
        stream: TextIO | None = None,
        ui: bool = True,
    ) -> None:
        self.label, self.planned, self.interval = label, planned, interval
        self.done = self.failed = 0
        self.started = self.last_line = self.last_ui = time.monotonic()
        stream = stream or sys.stderr
        self.bar = (
            tqdm(total=planned, desc=label, unit="call", file=stream, dynamic_ncols=True)
            if stream.isatty()
            else None
        )
        if self.bar is not None:
            self.bar.set_postfix(failed=0, refresh=False)
        self.artifact: UUID | None = None
        if ui and _in_prefect_run():
            from prefect.artifacts import create_progress_artifact

            self.artifact = create_progress_artifact(
                0.0, key=artifact_key("progress", label), description=self.line(), _sync=True
            )

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        return progress_line(self.label, self.done, self.planned, self.failed, elapsed)

    def add(self, status: str) -> None:
        """One call finished with `status` (anything but ok counts as a failure)."""
        self.done += 1
        self.failed += status != OK
        if self.bar is not None:
            self.bar.update(1)
            if status != OK:
                self.bar.set_postfix(failed=self.failed, refresh=False)
        now = time.monotonic()
        if self.bar is None and now - self.last_line >= self.interval:
            self.last_line = now
            log.info(self.line())
        if self.artifact is not None and now - self.last_ui >= UI_INTERVAL:
            self.last_ui = now
            self._update_ui()

    def made_elsewhere(self, n: int) -> None:
        """`n` planned calls were made by another run meanwhile: they leave this count."""
        self.planned -= n
        if self.bar is not None:
            self.bar.total = self.planned
            self.bar.refresh()

    def _update_ui(self) -> None:
        from prefect.artifacts import update_progress_artifact

        share = 100.0 * self.done / self.planned if self.planned else 100.0
        try:
            update_progress_artifact(self.artifact, share, description=self.line(), _sync=True)
        except Exception as exc:  # the UI is a view; a hiccup there must not stop judge calls
            log.debug("progress artifact update failed: %s", exc)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        else:
            log.info(self.line())
        if self.artifact is not None:
            self._update_ui()
