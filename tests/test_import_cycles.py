"""No import cycles among judgelab's own modules: each module can be read (and imported)
knowing only the modules it imports. Imports inside functions count too (a lazy import
hides a cycle, it does not remove it); imports under `if TYPE_CHECKING:` do not (they
never run). Tests and benchmarks are outside the graph."""

from __future__ import annotations

import ast
from pathlib import Path

from judgelab.settings import PROJECT_ROOT

PACKAGES = ["judgelab", "flows", "tasks", "schemas"]


def modules(root: Path = PROJECT_ROOT) -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for f in sorted((root / package).rglob("*.py")):
            name = ".".join(f.relative_to(root).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = f
    return out


def _runtime_nodes(tree: ast.AST):
    """Every node except the bodies of `if TYPE_CHECKING:` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            typing_only = isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            stack.extend(child.orelse if typing_only else [child])


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the project modules it imports (a name imported from a package that is a
    module of its own counts as that module)."""

    def owner(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in mods.items():
        deps = set()
        for node in _runtime_nodes(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                deps |= {owner(a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                deps |= {owner(f"{node.module}.{a.name}") or owner(node.module) for a in node.names}
        graph[name] = deps - {None, name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                found.append(sorted([v, *component]))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_finder_sees_a_planted_cycle(tmp_path: Path) -> None:
    for package in PACKAGES:
        (tmp_path / package).mkdir()
    (tmp_path / "tasks" / "a.py").write_text("def f():\n    from tasks import b\n")
    (tmp_path / "tasks" / "b.py").write_text("from tasks.a import f\n")
    (tmp_path / "tasks" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tasks import d\n"
    )
    (tmp_path / "tasks" / "d.py").write_text("import tasks.c\n")
    assert cycles(import_graph(modules(tmp_path))) == [["tasks.a", "tasks.b"]]


def test_no_import_cycles() -> None:
    assert cycles(import_graph(modules())) == []
