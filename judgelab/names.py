"""Names that end up in file names (studies, judges, prompts, table parts) and paths built from
them: a name like `../x` would write outside the data directory, so both are checked here."""

from __future__ import annotations

import re
from pathlib import Path

# ASCII only, so look-alikes of `/` (U+2215, U+FF0F) cannot pass; no leading `.`, so neither
# `..` nor hidden files
SAFE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
MAX_NAME = 100  # a name in a study file
MAX_PART = 200  # a file name built from names (a run's part adds a timestamp); limit is 255


class UnsafePath(ValueError):
    """A path built from a name would leave its base directory."""


def check_name(value: str, what: str, max_len: int = MAX_NAME) -> str:
    """`value` unchanged if it is safe as one file-name component, else a ValueError naming it."""
    if not isinstance(value, str) or not SAFE_NAME.fullmatch(value) or len(value) > max_len:
        raise ValueError(
            f"{what} {value!r} is not a safe name: use ASCII letters, digits, '.', '_' and '-', "
            f"not starting with '.', 1–{max_len} characters"
        )
    return value


def confined(base: Path, *parts: str) -> Path:
    """`base/part/…` where each part is one safe name and the result resolves (symlinks
    followed) strictly inside `base`; anything else is refused with an UnsafePath."""
    for part in parts:
        try:
            check_name(part, "path part", MAX_PART)
        except ValueError as exc:
            raise UnsafePath(f"refusing a path under {base}: {exc}") from None
    return _inside(base, base.joinpath(*parts))


def confined_file(base: Path, file_name: str, root: Path | None = None) -> Path:
    """`base/file_name` for a file name the user chose (a study file's stem): any single path
    component is allowed, as long as the result stays inside `base` and, symlinks followed,
    inside `root` too (a `data/reports` symlink to another folder is refused)."""
    if file_name in ("", ".", "..") or any(c in file_name for c in "/\\\0"):
        raise UnsafePath(f"refusing {file_name!r} as a file name under {base}")
    path = _inside(base, base / file_name)
    return path if root is None else _inside(root, path)


def _inside(base: Path, path: Path) -> Path:
    """`path` unchanged if it resolves strictly inside `base` (checked after symlinks)."""
    final, root = path.resolve(), base.resolve()
    if final == root or not final.is_relative_to(root):
        raise UnsafePath(f"refusing {path}: it resolves to {final}, outside {root}")
    return path
