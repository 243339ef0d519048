"""Operating-system errors (disk full, too many open files, no permission, read-only file
system) as one line naming the path and the cause, wherever they were raised: directly, as the
cause of another exception (Prefect re-raises a task's), or inside a library's own error that
only carries the OS's words (polars: "… (os error 28)"; DuckDB and SQLite: the strerror text).
Standard library only: the CLI imports it before anything heavy."""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# the errors a user fixes outside judgelab, with what to do; others (a missing file, a refused
# connection) keep their own handling
FIXES = {
    errno.ENOSPC: "free space on that disk (or point JUDGELAB_DATA_DIR at another one), then "
    "run again: calls already made are kept",
    errno.EDQUOT: "free space within your disk quota, then run again: calls already made are kept",
    errno.EFBIG: "the file system refuses a file this large; point JUDGELAB_DATA_DIR at another",
    errno.EMFILE: "this process hit its limit of open files (`ulimit -n`: {limit}); raise "
    "it, e.g. `ulimit -n 4096`, or lower the judges' concurrency, then run again",
    errno.ENFILE: "the system ran out of open files; close other programs, then run again",
    errno.EACCES: "check the permissions of that path and its folders",
    errno.EPERM: "check the permissions of that path and its folders",
    errno.EROFS: "that file system is read-only; point JUDGELAB_DATA_DIR at a writable folder",
    errno.EIO: "the disk reported an I/O error; check it, then run again",
    errno.ENOTDIR: "a part of that path is a file, not a folder",
    errno.ENAMETOOLONG: "use a shorter path",
    errno.ELOOP: "that path has a symlink loop",
}
# how Rust (polars) prints an io::Error (Display, and Debug in a panic), and how Python
# prints an OSError
OS_ERROR = re.compile(r"\(os error (\d+)\)|Os \{ code: (\d+),|\[Errno (\d+)\]")
# words of libraries that do not pass the errno on
WORDS = {"database or disk is full": errno.ENOSPC}
IO_ERRORS = {"IOException", "OperationalError"}  # DuckDB's, SQLite's: strerror in the text


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc`, its causes and contexts, and the members of exception groups, each once."""
    seen, todo = set(), [exc]
    while todo:
        e = todo.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [x for x in (e.__cause__, e.__context__) if x is not None]
        todo += list(getattr(e, "exceptions", None) or [])


def _from_words(exc: BaseException) -> OSError | None:
    """An OSError for a library error that only says the OS's words."""
    text = str(exc)
    match = OS_ERROR.search(text)
    code = int(next(filter(None, match.groups()))) if match else None
    if code in FIXES:
        return OSError(code, os.strerror(code))
    for words, code in WORDS.items():
        if words in text.lower():
            return OSError(code, os.strerror(code))
    if type(exc).__name__ in IO_ERRORS or text.startswith("IO Error"):
        for code in FIXES:
            if os.strerror(code) in text:
                return OSError(code, os.strerror(code))
    return None


def find(exc: BaseException) -> OSError | None:
    """The OS error behind `exc` that the user fixes outside judgelab (FIXES, or one raised
    with its own `fix`), else None.
    A real OSError in the chain wins over one read from a message; one naming its file wins
    over one that does not."""
    found = [
        e for e in _chain(exc) if isinstance(e, OSError) and (e.errno in FIXES or hasattr(e, "fix"))
    ]
    if not found:
        found = [e for e in map(_from_words, _chain(exc)) if e is not None]
    named = [e for e in found if e.filename]
    return (named or found or [None])[0]


def line(err: OSError) -> str:
    """`PATH: cause (ENAME) — fix` (no `judgelab: ` prefix)."""
    name = errno.errorcode.get(err.errno or 0, f"errno {err.errno}")
    where = f"{err.filename}: " if err.filename else ""
    fix = getattr(err, "fix", None) or FIXES.get(err.errno or 0)
    if fix and "{limit}" in fix:
        import resource

        fix = fix.format(limit=resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    return f"{where}{err.strerror or os.strerror(err.errno or 0)} ({name})" + (
        f" — {fix}" if fix else ""
    )


def probe(path: Path, exc: BaseException) -> OSError | None:
    """The OS's reason behind a library error that does not give it (SQLite: "unable to open
    database file", "database or disk is full"), as an OSError naming `path`: opening `path`
    again right away shows the errno (EMFILE, EACCES); None when there is none to find."""
    text = str(exc).lower()
    if "disk is full" in text:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
    if "unable to open" not in text:
        return None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        return OSError(err.errno, err.strerror, str(path))
    os.close(fd)
    return None


@contextmanager
def naming(path: Path | str) -> Iterator[None]:
    """Inside: an OS error raised without a file name (polars' ComputeError "… (os error
    28)", an OSError of a C library) is raised again as an OSError naming `path`, chained to
    the original."""
    try:
        yield
    except Exception as exc:
        err = find(exc)
        if err is None or err.filename:
            raise
        raise OSError(err.errno, err.strerror, str(path)) from exc
