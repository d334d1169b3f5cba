"""``p2php.api.__all__`` is the whole public API: every public name api.py defines is in it, and nothing else is."""

from __future__ import annotations

import ast
from pathlib import Path

from p2php import api

SOURCE = Path(api.__file__)


def _defined_names() -> set[str]:
    """Names bound at the top level of api.py by ``def``, ``class`` or assignment (imports are not definitions)."""
    names: set[str] = set()
    for node in ast.parse(SOURCE.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    names.discard("__all__")
    return names


def test_every_public_definition_is_exported() -> None:
    public = {name for name in _defined_names() if not name.startswith("_")}
    missing = sorted(public - set(api.__all__))
    assert not missing, f"defined in p2php/api.py but missing from __all__: {missing}"


def test_every_export_exists() -> None:
    absent = sorted(name for name in api.__all__ if not hasattr(api, name))
    assert not absent, f"in p2php.api.__all__ but not defined: {absent}"


def test_exports_are_listed_once_and_public() -> None:
    assert len(api.__all__) == len(set(api.__all__)), "a name is listed twice in p2php.api.__all__"
    assert not [name for name in api.__all__ if name.startswith("_")]


def test_the_functions_people_call_are_exported() -> None:
    for name in ("local_table", "host_table", "join_table", "start_peer", "resume_peer", "watch_table",
                 "load_transcript", "verify_transcript"):
        assert name in api.__all__
