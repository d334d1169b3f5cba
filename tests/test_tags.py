"""Every domain-separation tag is defined once, in p2php/tags.py, and protocol.md §2.6 lists exactly those."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import p2php
from p2php import tags

PACKAGE = Path(p2php.__file__).resolve().parent
PROTOCOL = PACKAGE.parent / "protocol.md"
TESTS_ONLY = "tests only"


def _table_rows() -> list[list[str]]:
    """The cells of each body row of the markdown table under ``### 2.6``."""
    lines = PROTOCOL.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("### 2.6"))
    rows: list[list[str]] = []
    for line in lines[start + 1:]:
        if line.startswith("#"):
            break
        if not line.startswith("|"):
            if rows:
                break
            continue
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    assert len(rows) > 2, "protocol.md §2.6 has no tag table"
    header, separator, *body = rows
    assert header[0] == "tag" and set(separator[0]) <= {"-", ":"}, header
    return body


def _tag_bytes(text: str) -> bytes:
    """A tag as written in backticks (``\\x00`` spelled out) as bytes."""
    return text.encode("ascii").decode("unicode_escape").encode("latin-1")


def _documented() -> tuple[set[bytes], set[bytes]]:
    protocol: set[bytes] = set()
    tests_only: set[bytes] = set()
    for row in _table_rows():
        found = {_tag_bytes(t) for t in re.findall(r"`([^`]+)`", row[0])}
        assert found, f"a row of protocol.md §2.6 names no tag: {row}"
        (tests_only if row[-1] == TESTS_ONLY else protocol).update(found)
    return protocol, tests_only


def _named_tags() -> dict[str, bytes]:
    return {name: value for name, value in vars(tags).items() if name.isupper() and isinstance(value, bytes)}


def test_tags_module_equals_the_protocol_table() -> None:
    protocol, tests_only = _documented()
    missing_from_table = sorted(tags.PROTOCOL_TAGS - protocol)
    missing_from_module = sorted(protocol - tags.PROTOCOL_TAGS)
    assert not missing_from_table and not missing_from_module, (
        f"in p2php/tags.py, not in protocol.md §2.6: {missing_from_table}; "
        f"in protocol.md §2.6, not in p2php/tags.py: {missing_from_module}"
    )
    assert tests_only == tags.TEST_TAGS


def test_every_named_tag_is_listed_once() -> None:
    named = _named_tags()
    assert set(named.values()) == tags.PROTOCOL_TAGS | tags.TEST_TAGS
    assert not tags.PROTOCOL_TAGS & tags.TEST_TAGS
    assert len(set(named.values())) == len(named), "two names for one tag"
    assert all(value.startswith(b"p2php/") for value in named.values())


def test_no_tag_literal_outside_the_tags_module() -> None:
    """A ``b"p2php/…"`` literal anywhere else in the package is a second definition of a tag."""
    stray: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "tags.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, bytes) and node.value.startswith(b"p2php/"):
                stray.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value!r}")
    assert not stray, "domain tags defined outside p2php/tags.py:\n" + "\n".join(stray)


def test_the_table_parser_reads_rows_with_several_tags() -> None:
    protocol, _ = _documented()
    assert {b"p2php/identity/sign/v1", b"p2php/nonce/v1", b"p2php/rng/v1\x00"} <= protocol
