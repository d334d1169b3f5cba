"""No import cycles between the modules of p2php at run time.

Every ``import`` and ``from … import`` in ``p2php/**/*.py`` is an edge of the module graph — function-local ones
included (a local import that only dodges a cycle is still a cycle) — except those under ``if TYPE_CHECKING:``,
which never run. ``import a.b.c`` depends on the deepest of ``a.b.c``, ``a.b``, ``a`` that is a module of p2php;
``from a.b import c`` depends on ``a.b.c`` if that is a module, else on ``a.b``; relative imports are resolved
against the importing module's package; a package ``__init__`` importing its own submodules counts too. Every
strongly connected component with more than one module is a cycle, and all of them are reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import p2php

ROOT = Path(p2php.__file__).resolve().parent
PACKAGE = "p2php"


def _module_names() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = _module_names()


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: all of them except those under ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)  # the body never runs; an ``else:`` does
            continue
        stack.extend(ast.iter_child_nodes(node))


def _deepest(name: str) -> str | None:
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            target = _deepest(alias.name)
            if target is not None:
                yield target
        return
    if node.level:
        is_package = MODULES[module].name == "__init__.py"
        base = module.split(".") if is_package else module.split(".")[:-1]
        if node.level > 1:
            base = base[: len(base) - (node.level - 1)]
        source = ".".join([*base, *([node.module] if node.module else [])])
    else:
        source = node.module or ""
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        target = submodule if submodule in MODULES else _deepest(source)
        if target is not None:
            yield target


def import_graph() -> dict[str, dict[str, list[int]]]:
    """module -> {imported module -> [line numbers]}, p2php modules only, self-imports left out."""
    graph: dict[str, dict[str, list[int]]] = {name: {} for name in MODULES}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _runtime_imports(tree):
            for target in _targets(module, node):
                if target != module:
                    graph[module].setdefault(target, []).append(node.lineno)
    return graph


def strongly_connected(graph: dict[str, dict[str, list[int]]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return sorted(components)


def _describe(graph: dict[str, dict[str, list[int]]], component: list[str]) -> str:
    members = set(component)
    lines = [f"cycle among {len(component)} modules: {', '.join(component)}"]
    for module in component:
        for target, linenos in sorted(graph[module].items()):
            if target in members:
                where = ", ".join(str(n) for n in sorted(set(linenos)))
                lines.append(f"    {module} -> {target}  ({MODULES[module].relative_to(ROOT.parent)}:{where})")
    return "\n".join(lines)


def test_graph_sees_the_package() -> None:
    graph = import_graph()
    assert "p2php.session.records" in graph["p2php.session.audit"]  # from p2php.session.records import …
    assert "p2php.engine.contract" in graph["p2php.engine"]  # a package __init__ importing its submodule
    assert "p2php.tags" in graph["p2php.rng"]  # from p2php import tags: the submodule, not the package
    assert "p2php" not in graph["p2php.rng"]


def test_no_runtime_import_cycles() -> None:
    graph = import_graph()
    cycles = strongly_connected(graph)
    assert not cycles, "runtime import cycles in p2php:\n" + "\n".join(_describe(graph, c) for c in cycles)


def test_detector_finds_cycles() -> None:
    graph: dict[str, dict[str, list[int]]] = {
        "a": {"b": [1]},
        "b": {"c": [1]},
        "c": {"a": [1]},
        "d": {"e": [1]},
        "e": {"d": [1]},
        "f": {"a": [1]},
    }
    assert strongly_connected(graph) == [["a", "b", "c"], ["d", "e"]]


def test_type_checking_imports_are_skipped() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from p2php import bots\n"
        "else:\n"
        "    from p2php import cli\n"
        "def f():\n"
        "    from p2php import lobby\n"
    )
    seen = {t for node in _runtime_imports(tree) for t in _targets("p2php.api", node)}
    assert seen == {"p2php.cli", "p2php.lobby"}
