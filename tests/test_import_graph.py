"""Shared code imports no study type's package: on the import graph (every `import` and
`from … import`, at module level or inside a function), not by searching for names. A type is
reached only through its record (tasks/study_types.py), which imports `tasks.<type>.kind` by name.

Owned by a type, and so free to import it: its package `tasks/<type>/`, and the tables named
after it (`schemas/<type>_*.py`: one table, one schema, one name). Test doubles
(`judgelab/testing/`) stand in for every type's judge."""

from __future__ import annotations

import ast
from pathlib import Path

from judgelab.settings import PROJECT_ROOT
from tasks.study_types import TYPES

SHARED = ["judgelab", "flows", "tasks", "schemas"]


def owner(path: Path) -> str | None:
    """The study type that owns a module, or None for shared code."""
    parts = path.relative_to(PROJECT_ROOT).parts
    if parts[0] == "tasks" and len(parts) > 2 and parts[1] in TYPES:
        return parts[1]
    if parts[0] == "schemas":
        return next((t for t in TYPES if parts[1].startswith(f"{t}_")), None)
    if parts[:2] == ("judgelab", "testing"):
        return "test doubles"
    return None


def type_imports(path: Path) -> list[str]:
    """`file:line: module` for each import of a study type's package in `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = (
                [f"tasks.{a.name}" for a in node.names] if node.module == "tasks" else [node.module]
            )
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            bits = name.split(".")
            if bits[0] == "tasks" and len(bits) > 1 and bits[1] in TYPES:
                found.append(f"{path.relative_to(PROJECT_ROOT)}:{node.lineno}: {name}")
    return found


def shared_type_imports() -> list[str]:
    return [
        hit
        for package in SHARED
        for path in sorted((PROJECT_ROOT / package).rglob("*.py"))
        if owner(path) is None
        for hit in type_imports(path)
    ]


def test_shared_code_imports_no_study_type() -> None:
    assert shared_type_imports() == []


def test_the_graph_sees_a_planted_import() -> None:
    """Module-level and function-level imports, both spellings, are caught."""
    planted = PROJECT_ROOT / "tasks" / "planted_import_tmp.py"
    planted.write_text(
        "from tasks import rating\n\n\ndef f():\n    import tasks.tone.axes\n\n"
        "    from tasks.accuracy.metrics import accuracy_metrics\n"
    )
    try:
        hits = shared_type_imports()
        assert hits == [
            "tasks/planted_import_tmp.py:1: tasks.rating",
            "tasks/planted_import_tmp.py:5: tasks.tone.axes",
            "tasks/planted_import_tmp.py:7: tasks.accuracy.metrics",
        ]
    finally:
        planted.unlink()


def test_a_types_own_modules_may_import_it() -> None:
    assert owner(PROJECT_ROOT / "tasks" / "tone" / "study_type.py") == "tone"
    assert owner(PROJECT_ROOT / "schemas" / "tone_scores.py") == "tone"
    assert owner(PROJECT_ROOT / "schemas" / "scores.py") is None
    assert owner(PROJECT_ROOT / "tasks" / "stages.py") is None
