"""The prompts a game's source asks with, found by reading it: for tests that every question has words.

A game names each decision by a short id (``Decide(seats, "mission")``) and gives people the question through
``GameState.describe_prompt``.  Reading the package's source for the ids, rather than listing them by hand,
makes a test fail when someone adds a decision and forgets its words.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

__all__ = ["prompts_in_source"]


def _literals(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):  # Decide(seats, "a" if ... else "b")
        return _literals(node.body) + _literals(node.orelse)
    return []


def prompts_in_source(package: ModuleType) -> set[str]:
    """Every string literal given as the prompt of a ``Decide(...)`` call in the package's own modules."""
    found: set[str] = set()
    for path in sorted(Path(str(package.__file__)).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Decide"):
                continue
            prompt = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "prompt"), None)
            if prompt is not None:
                found.update(_literals(prompt))
    return found
