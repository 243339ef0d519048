"""Calls done / planned while judge calls run: a bar on a terminal, plain log lines elsewhere
(CI, workers), and the same counts in the Prefect UI as a progress artifact and as lines on
the run's Logs tab."""

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
log.setLevel(logging.INFO)  # judgelab's own lines at INFO; libraries stay at the root's WARNING
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


class RunLog(logging.Handler):
    """Sends records to the Logs tab of the Prefect run they are made in (Prefect's API
    handler); outside a run it drops them, so a terminal sees each line once, from the CLI's
    own handler."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.api: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if not _in_prefect_run():
            return
        if self.api is None:
            from prefect.logging.handlers import APILogHandler

            self.api = APILogHandler()
        self.api.emit(record)


run_log = RunLog()
log.addHandler(run_log)


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
        self.note = ""  # what the calls wait for (a provider batch), shown after the counts
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
        line = progress_line(self.label, self.done, self.planned, self.failed, elapsed)
        return f"{line}; {self.note}" if self.note else line

    def waiting(self, batch: dict) -> None:
        """A provider batch is still working: say so, with its own counts, in the UI and
        (every `interval`) in the log."""
        answered = batch["done"] + batch["failed"]
        first = not self.note
        self.note = (
            f"waiting for batch {batch['batch_id']} ({batch['status']}, "
            f"{answered} of {batch['n']} done)"
        )
        if self.bar is not None:
            self.bar.set_postfix_str(self.note)
        self._show(ui_now=first)

    def add(self, status: str) -> None:
        """One call finished with `status` (anything but ok counts as a failure)."""
        self.done += 1
        self.failed += status != OK
        if self.bar is not None:
            self.bar.update(1)
            if status != OK:
                self.bar.set_postfix(failed=self.failed, refresh=False)
        self._show()

    def _show(self, ui_now: bool = False) -> None:
        """The line every `interval`, the UI every UI_INTERVAL (at once when `ui_now`)."""
        now = time.monotonic()
        if now - self.last_line >= self.interval:
            self.last_line = now
            self._say(logging.INFO)
        if self.artifact is not None and (ui_now or now - self.last_ui >= UI_INTERVAL):
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

    def _say(self, level: int) -> None:
        """The line on the terminal (unless the bar shows it) and on the run's Logs tab."""
        if self.bar is None:
            log.log(level, self.line())
        else:
            run_log.handle(log.makeRecord(log.name, level, __file__, 0, self.line(), None, None))

    def close(self) -> None:
        """The last line; a warning when calls failed, so the run's log flags the shard."""
        if self.bar is not None:
            self.bar.close()
        self._say(logging.WARNING if self.failed else logging.INFO)
        if self.artifact is not None:
            self._update_ui()
