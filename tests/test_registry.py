"""Study types are records (tasks/study_types.py): no module outside a type's own package compares a
study's type with a name or keeps a table keyed by type names, and every record is complete
(its dotted paths import, its views and report parts exist)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from judgelab.settings import PROJECT_ROOT
from tasks import warehouse
from tasks.study_types import TYPES, StudyType

CODE = ["judgelab", "flows", "tasks", "schemas"]


def own_package(path: Path) -> bool:
    """A type's package (tasks/<type>/) may name its own type; the registry names them all."""
    parts = path.relative_to(PROJECT_ROOT).parts
    return path == PROJECT_ROOT / "tasks" / "study_types.py" or parts[:2] in {
        ("tasks", t) for t in TYPES
    }


def type_switches(path: Path) -> list[str]:
    """`x.type == "…"`, `study_type != …`, `"rating" in …` comparisons, dict literals keyed by
    two or more study types' names (one such key is a column: "rating", "accuracy") and
    subscripts with one, as `file:line: code`."""
    tree = ast.parse(path.read_text())
    named = set(TYPES)

    def names_type(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant) and node.value in named:
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("type", "study_type"):
            return True
        if isinstance(node, ast.Name) and node.id == "study_type":
            return True
        return isinstance(node, ast.Tuple | ast.List | ast.Set) and any(
            isinstance(e, ast.Constant) and e.value in named for e in node.elts
        )

    found = []
    for node in ast.walk(tree):
        hit = (
            (isinstance(node, ast.Compare) and any(map(names_type, [node.left, *node.comparators])))
            or (
                isinstance(node, ast.Dict)
                and sum(k is not None and names_type(k) for k in node.keys) > 1
            )
            or (
                isinstance(node, ast.Subscript)
                and isinstance(node.slice, ast.Constant)
                and node.slice.value in named
            )
        )
        if hit:
            where = path.relative_to(PROJECT_ROOT)
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_the_scan_sees_a_planted_switch(tmp_path: Path) -> None:
    planted = PROJECT_ROOT / "tasks" / "planted_switch_tmp.py"
    planted.write_text(
        "def f(study):\n"
        '    return {"rating": 1, "tone": 2}.get(study.type) if study.type == "tone" else 0\n'
    )
    try:
        assert len(type_switches(planted)) == 2
    finally:
        planted.unlink()


def test_no_study_type_switch_outside_the_registry() -> None:
    found = [
        hit
        for package in CODE
        for path in sorted((PROJECT_ROOT / package).rglob("*.py"))
        if not own_package(path)
        for hit in type_switches(path)
    ]
    assert found == []


@pytest.mark.parametrize("name", TYPES)
def test_every_record_is_complete(name: str) -> None:
    record = StudyType.named(name)
    assert record.name == name
    for field in ["checks", "report", "stages"]:
        assert record.load(field) is not None
    assert record.flow_name == f"{name}-study" and record.rounds
    assert all(callable(r.plan) for r in record.rounds) and callable(record.after_judging)
    if record.canary is not None:
        assert callable(record.load("canary"))
    if record.power is not None:
        assert callable(record.load("power").plan)
    assert (record.canary is None) == (record.drift_statistic is None)
    views = {f.stem for f in warehouse.view_files()}
    assert {record.main_view, *record.artifact_views, *record.report_views} <= views
    report = record.load("report")
    assert report.DRILL.view in views and {p.view for p in report.PANELS} <= views
    assert callable(report.console) and report.TITLE and report.SCALE_NOTE
    keys, metrics = record.snapshot  # the run ledger's snapshot reads these of metric_source
    columns = warehouse.table_schema(record.metric_source).to_schema().columns
    assert keys and metrics and set(keys) | set(metrics) <= set(columns)
    if record.render_system is not None:
        assert callable(record.load("render_system"))
    assert [k.name for k in StudyType.every()] == list(TYPES)
