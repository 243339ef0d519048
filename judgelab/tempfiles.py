"""The temp files of judgelab's atomic writers (write `.tmp-<pid>-…-<target>.tmp` beside the
target, then rename it over the target).

- Never matched by a reader's `*.parquet` glob: DuckDB's globs match dot files, and a
  half-written part is "too small to be a Parquet file".
- Removed when a write fails (a disk-full write leaves nothing).
- Swept at the start of a run when a writer that died left one (SIGKILL, power loss).

Standard library only, plus psutil for this process's start time."""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

from judgelab import oserrors

PREFIX = ".tmp-"
SUFFIX = ".tmp"  # not the target's suffix: a view's `*.parquet` glob never reads a temp file
OWNER = re.compile(r"^\.tmp-(\d+)-")  # the pid of the process that writes it


def discard(path: Path) -> None:
    """Remove a temp file if it is there; a failing unlink never hides the write's error."""
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


@contextlib.contextmanager
def replacing(dest: Path) -> Iterator[Path]:
    """A temp path beside `dest` for the caller to write: renamed over `dest` when the block
    ends, removed when it raises. An OS error without a file name (polars says "… (os error
    28)") is raised again naming `dest`."""
    # this process's id (see OWNER) and the target's name: a leftover says whose and what for
    tmp = dest.parent / f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}-{dest.name}{SUFFIX}"
    try:
        with oserrors.naming(dest):
            yield tmp
            os.replace(tmp, dest)
    finally:
        discard(tmp)


def process_started() -> float:
    """This process's start time (epoch seconds)."""
    import psutil

    return psutil.Process().create_time()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def stale(path: Path, started: float) -> bool:
    """A temp file no live writer will rename: older than this process and, when its name
    carries the writer's pid, that process is gone (a live run's temp file is left alone)."""
    try:
        if path.stat().st_mtime >= started:
            return False
    except FileNotFoundError:  # renamed or removed meanwhile
        return False
    owner = OWNER.match(path.name)
    return owner is None or (int(owner[1]) != os.getpid() and not _alive(int(owner[1])))


def sweep(root: Path, started: float | None = None) -> list[Path]:
    """Remove the stale temp files (`stale`) under `root`; returns them."""
    started = process_started() if started is None else started
    removed = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if name.startswith(PREFIX) and stale(path, started):
                discard(path)
                removed.append(path)
    return removed
