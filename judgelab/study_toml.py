"""A study file as TOML text: read (UTF-8, a BOM accepted, one-line errors), its top-level
tables checked, the line a validation error points at, and the study files a suite names."""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path


class StudyError(ValueError):
    """A study file is malformed; the message names the file and the field."""


def study_text(path: Path) -> str:
    """A study file's text, in one line when it cannot be read; a UTF-8 byte-order mark (as
    some Windows editors write) is accepted."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise StudyError(f"study file {path} does not exist") from None
    except IsADirectoryError:
        raise StudyError(f"{path} is a directory, not a study file (.toml)") from None
    except OSError as exc:
        raise StudyError(f"study file {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise StudyError(
            f"{path}: line {line}: not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8"
        ) from None


def read_toml(path: Path, text: str | None = None) -> dict:
    try:
        return tomllib.loads(study_text(path) if text is None else text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"{path}: not valid TOML: {exc}") from None


HEADER = re.compile(r"^\s*(\[\[?)\s*([\w.]+)\s*\]\]?")


def locate(text: str, loc: tuple) -> int | None:
    """The line of a study file a validation error points at: the key's line in its table
    (`[study]`, `[study.analysis]`, the n-th `[[judges]]`, `[rewriter]`), else the line of a
    sub-table the key names (`[study.analysys]`), else the table's."""
    if (
        loc
        and loc[0] in ("judges", "rules", "imports")
        and len(loc) > 1
        and isinstance(loc[1], int)
    ):
        table, nth, keys = str(loc[0]), loc[1], [str(k) for k in loc[2:]]
    elif loc and loc[0] == "rewriter":
        table, nth, keys = "rewriter", 0, [str(k) for k in loc[1:]]
    else:
        parts = [str(k) for k in loc if not isinstance(k, int)]
        table, nth, keys = ".".join(["study", *parts[:-1]]), 0, parts[-1:]
    seen, current, found, subtable = -1, None, None, None
    for number, line in enumerate(text.splitlines(), 1):
        if m := HEADER.match(line):
            current = m.group(2)
            if current == table:
                seen += 1
                if seen == nth:
                    found = found or number
            elif keys and current == f"{table}.{keys[0]}":
                subtable = subtable or number
            continue
        in_table = current == table and seen == nth
        if in_table and keys and re.match(rf"\s*{re.escape(keys[0])}\s*=", line):
            return number
    return subtable or found


def top_line(text: str, name: str) -> int | None:
    """The first line defining top-level `name`: its table header (`[name]`, `[[name]]`,
    `[name.x]`) or a `name = …` line before the first header."""
    before_tables = True
    for number, line in enumerate(text.splitlines(), 1):
        if m := HEADER.match(line):
            before_tables = False
            if m.group(2).split(".")[0] == name:
                return number
        elif before_tables and re.match(rf"\s*{re.escape(name)}\s*=", line):
            return number
    return None


def study_files(path: str | Path) -> list[Path]:
    """The study files a run file names: itself, or for a suite (`[suite] studies = [...]`)
    each listed file, relative to the suite's folder."""
    path = Path(path)
    doc = read_toml(path)
    if "suite" not in doc:
        return [path]
    listed = doc["suite"].get("studies")
    if not listed or not all(isinstance(x, str) for x in listed):
        raise StudyError(f'{path}: [suite] needs studies = ["a.toml", ...]')
    files = [path.parent / name for name in listed]
    for f in files:
        if not f.is_file():
            raise StudyError(f"{path}: suite names {f}, which does not exist")
    return files


def suggest(name: str, known: list[str]) -> str:
    """ "did you mean 'x'? " for a close match among `known`, else ""."""
    close = difflib.get_close_matches(name, known, n=1)
    return f"did you mean {close[0]!r}? " if close else ""


# the block a study without judges is told to add: the embedded judge, no key, no cost
EMBEDDED_JUDGE = """[[judges]]
name = "smollm2-135m"
model = "local/smollm2-135m-instruct"   # embedded; hosted: docs/how-to/hosted-judges.md"""
TABLES = ("study", "judges", "rewriter", "rules", "imports")  # the top-level tables of a study file


def check_tables(path: Path, text: str, raw: dict) -> None:
    """Unknown top-level tables (`[rewritter]`, `[[judge]]`) and repeated judge names fail
    here, at their own line: pydantic never sees the first, and sees the second without one."""
    for name in raw:
        if name not in TABLES:
            line = top_line(text, name)
            where = f"line {line}, " if line else ""
            raise StudyError(
                f"{path}: {where}[{name}]: unknown table; {suggest(name, list(TABLES))}"
                "a study file has [study], [study.*], [[judges]], [rewriter], [[rules]] and "
                "[[imports]]"
            )
    judges = raw.get("judges", [])
    if judges == [] and not raw.get("imports"):
        raise StudyError(f"{path}: no [[judges]] table: add one, e.g.\n\n{EMBEDDED_JUDGE}")
    if not isinstance(judges, list):
        return
    seen: set[str] = set()
    for i, judge in enumerate(judges):
        name = judge.get("name") if isinstance(judge, dict) else None
        if isinstance(name, str) and name in seen:
            raise StudyError(
                f"{path}: line {locate(text, ('judges', i, 'name'))}, judges.{i}.name: judge "
                f"name {name!r} is used by an earlier [[judges]] table; names must be unique"
            )
        seen.add(name)
