"""Counting libsecp256k1's variable-base products in a test (what "each point multiplied once" claims are about)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from p2php.crypto import secp256k1


@contextmanager
def counted_products() -> Iterator[list[int]]:
    """Yield a one-element list that counts every ``secp256k1._mul`` made inside the block (the module looks the
    name up at each call, so wrapping it sees every product)."""
    count = [0]
    original = secp256k1._mul

    def counted(raw: object, k: int) -> object:
        count[0] += 1
        return original(raw, k)

    secp256k1._mul = counted
    try:
        yield count
    finally:
        secp256k1._mul = original
