"""Canonical encoding of plain data, and the hashes built on it.

Determinism is a contract of p2php: two peers that applied the same actions must
produce byte-identical encodings of their public state, in any process and under
any ``PYTHONHASHSEED``.  msgpack alone does not guarantee that (a dict encodes in
insertion order, and a float or a set has no single canonical form), so every
value goes through :func:`canonical` first: dict keys are sorted, tuples become
lists, and anything that is not plain data (floats, sets, objects) is refused
loudly instead of being encoded in some order that may differ elsewhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgpack

from p2php.errors import P2phpError

Plain = None | bool | int | str | bytes | list["Plain"] | dict[str, "Plain"]


class NotCanonical(P2phpError, TypeError):
    """A value that has no canonical encoding (a float, a set, an object ...)."""


_ATOMS = frozenset({type(None), bool, int, str, bytes})
"""The exact types that are their own canonical form (subclasses such as an ``IntEnum`` take the general path)."""
_STR_KEYS = frozenset({str})
_INT_KEYS = frozenset({int})


def canonical(value: Any) -> Any:
    """Return ``value`` rewritten as canonical plain data (sorted dict keys, lists)."""
    t = type(value)
    if t in _ATOMS:
        return value
    if t is list or t is tuple:
        if _ATOMS.issuperset(map(type, value)):  # a list of scalars (hands, piles): one C-level pass
            return list(value)
        return [canonical(v) for v in value]
    if t is dict:
        keys = sorted(value) if _key_types_ok(value) else None
        if keys is not None:
            return {k: canonical(value[k]) for k in keys}
    return _canonical_general(value)


def _key_types_ok(d: dict[Any, Any]) -> bool:
    """All keys exactly ``str`` or all exactly ``int`` (others go the general way, which decides the same)."""
    types = set(map(type, d))
    return types <= _STR_KEYS or types <= _INT_KEYS


def _canonical_general(value: Any) -> Any:
    """:func:`canonical` for every value its fast paths do not take: subclasses, other mappings, errors."""
    if value is None or isinstance(value, bool | int | str | bytes):
        return value
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, Mapping):
        keys = list(value.keys())
        if not all(isinstance(k, str) for k in keys) and not all(
            isinstance(k, int) and not isinstance(k, bool) for k in keys
        ):
            raise NotCanonical(f"dict keys must be all str or all int, got {keys[:5]!r}")
        return {k: canonical(value[k]) for k in sorted(keys)}
    raise NotCanonical(f"{type(value).__name__} has no canonical encoding: {value!r:.80}")


def _packable(value: Any) -> Any:
    """What :func:`encode` packs: ``canonical(value)`` up to copies msgpack cannot tell apart (a list or
    tuple of scalars is packed as it is, without building the list :func:`canonical` returns)."""
    t = type(value)
    if t in _ATOMS:
        return value
    if t is list or t is tuple:
        if _ATOMS.issuperset(map(type, value)):
            return value
        return [v if type(v) in _ATOMS else _packable(v) for v in value]
    if t is dict and _key_types_ok(value):
        keys = sorted(value)
        if _ATOMS.issuperset(map(type, value.values())):
            return value if keys == list(value) else {k: value[k] for k in keys}  # msgpack keeps the order
        return {k: (v if type(v) in _ATOMS else _packable(v)) for k in keys for v in (value[k],)}
    return canonical(value)


_pack = msgpack.Packer(use_bin_type=True, strict_types=False).pack
"""``msgpack.packb`` without making a Packer per call (~0.4 µs each; a Packer resets after each pack, and after an
error). Every signed message's envelope and body go through it. Sharing it is safe with threads (the bridge checks
transcripts in a worker thread): a pack of plain data runs in C from start to end without giving up the GIL, as
``p2php.games.hpsha.state`` already relies on; only a free-threaded build (no GIL) would need one per thread."""


def encode(value: Any) -> bytes:
    """Canonical msgpack bytes of ``value`` (see :func:`canonical`)."""
    packed: bytes = _pack(_packable(value))
    return packed


def decode(data: bytes) -> Any:
    """Inverse of :func:`encode`; refuses anything but plain msgpack data."""
    return msgpack.unpackb(data, raw=False, strict_map_key=False, use_list=True)


def digest(*parts: bytes) -> bytes:
    """SHA-256 over length-prefixed parts, so ``(a, bc)`` and ``(ab, c)`` differ."""
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.digest()


def hash_value(value: Any) -> bytes:
    """SHA-256 of the canonical encoding of ``value``."""
    return hashlib.sha256(encode(value)).digest()
