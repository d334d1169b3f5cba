"""Hash-chain beacon and commit-reveal."""

from __future__ import annotations

import pytest

from p2php.canonical import digest
from p2php.crypto.beacon import HashChain, check_commit, combine, commit, verify_next

SESSION = b"session-xyz"


def binding(seat: int) -> bytes:
    return digest(SESSION, seat.to_bytes(4, "big"))


def test_chain_verifies_in_order() -> None:
    chain = HashChain(b"s" * 32, binding(0), 50)
    prev = chain.anchor
    for i in range(1, 51):
        v = chain.value(i)
        assert verify_next(binding(0), prev, v)
        prev = v
    with pytest.raises(IndexError):
        chain.value(0)
    with pytest.raises(IndexError):
        chain.value(51)


def test_chain_rejects_skipped_forged_and_foreign_values() -> None:
    chain = HashChain(b"s" * 32, binding(0), 10)
    assert not verify_next(binding(0), chain.anchor, chain.value(2))  # skipped one
    assert not verify_next(binding(0), chain.value(2), chain.value(1))  # out of order
    assert not verify_next(binding(0), chain.anchor, bytes(32))  # forged
    assert not verify_next(binding(1), chain.anchor, chain.value(1))  # another seat's binding
    assert not verify_next(binding(0), chain.anchor, None)  # type: ignore[arg-type]


def test_bindings_separate_chains() -> None:
    a = HashChain(b"same seed bytes!", binding(0), 5)
    b = HashChain(b"same seed bytes!", binding(1), 5)
    assert a.anchor != b.anchor
    assert {a.value(i) for i in range(1, 6)}.isdisjoint(b.value(i) for i in range(1, 6))
    assert HashChain(b"same seed bytes!", binding(0), 5).anchor == a.anchor
    with pytest.raises(ValueError):
        HashChain(b"short", binding(0), 5)
    with pytest.raises(ValueError):
        HashChain(b"s" * 32, binding(0), 0)


def test_long_chain_is_fast_enough() -> None:
    chain = HashChain(b"k" * 32, binding(3), 4096)
    assert verify_next(binding(3), chain.value(4095), chain.value(4096))


def test_combine() -> None:
    vals = [HashChain(bytes([i]) * 32, binding(i), 3).value(1) for i in range(3)]
    r = combine(vals, b"draw/1")
    assert len(r) == 32
    assert r != combine(vals, b"draw/2")
    assert r != combine(vals[::-1], b"draw/1")
    assert r != combine(vals[:2], b"draw/1")


def test_commit_reveal() -> None:
    ctx = digest(SESSION, b"seat 2", b"bid")
    nonce = b"n" * 16
    c = commit(ctx, b"7 galleons", nonce)
    assert check_commit(c, ctx, b"7 galleons", nonce)
    assert not check_commit(c, ctx, b"8 galleons", nonce)
    assert not check_commit(c, ctx, b"7 galleons", b"m" * 16)
    assert not check_commit(c, digest(SESSION, b"seat 1", b"bid"), b"7 galleons", nonce)
    assert not check_commit(c, ctx, b"7 galleons", b"short")
    assert not check_commit(None, ctx, b"7 galleons", nonce)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        commit(ctx, b"x", b"short")
