"""One run per study at a time: two runs of a study (an overlapping schedule, a second
terminal) would both see the same calls missing and make them twice."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judgelab.names import confined


class StudyBusy(RuntimeError):
    pass


@contextmanager
def study_lock(lock_dir: Path, study: str) -> Iterator[None]:
    """Hold an exclusive lock on `lock_dir/<study>.lock` for the judge stage. The kernel
    drops it when the process dies, so a crashed run never blocks the next one."""
    path = confined(lock_dir, f"{study}.lock")  # before mkdir: a refused name creates nothing
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            raise StudyBusy(
                f"study {study!r} is being judged by {holder} ({path}); wait for that run "
                "to finish — the next run makes only the calls still missing"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
