"""Properties of the commutative P-256 cipher in :mod:`p2php.crypto.group`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2php.crypto.group import (
    ORDER,
    InvalidPoint,
    hash_to_point,
    inverse,
    is_point,
    mul,
    mul_many,
    random_scalar,
)
from p2php.rng import DetRng

scalars = st.integers(min_value=1, max_value=ORDER - 1)
points = st.binary(max_size=16).map(lambda d: hash_to_point(b"test", d))
fast = settings(max_examples=60, deadline=None)


@fast
@given(points, scalars, scalars)
def test_commutative(p: bytes, a: int, b: int) -> None:
    assert mul(mul(p, a), b) == mul(mul(p, b), a) == mul(p, a * b % ORDER)


@fast
@given(points, scalars)
def test_inverse_decrypts(p: bytes, k: int) -> None:
    c = mul(p, k)
    assert is_point(c)
    assert mul(c, inverse(k)) == p


@fast
@given(st.lists(points, min_size=0, max_size=5), scalars)
def test_mul_many_matches_mul(ps: list[bytes], k: int) -> None:
    assert mul_many(ps, k) == [mul(p, k) for p in ps]


def test_hash_to_point_deterministic_and_distinct() -> None:
    pts = [hash_to_point(b"deck", i.to_bytes(4, "big")) for i in range(1000)]
    assert len(set(pts)) == 1000
    assert all(len(p) == 32 and is_point(p) for p in pts[:50])
    assert hash_to_point(b"deck", (7).to_bytes(4, "big")) == pts[7]
    # Domains are separated, including the boundary between domain and data.
    assert hash_to_point(b"other", (7).to_bytes(4, "big")) != pts[7]
    assert hash_to_point(b"ab", b"c") != hash_to_point(b"a", b"bc")


def test_invalid_points_and_scalars() -> None:
    p = hash_to_point(b"t", b"")
    for bad in (b"", b"\x00" * 31, b"\x00" * 33, b"\xff" * 32):
        assert not is_point(bad)
        with pytest.raises(InvalidPoint):
            mul(bad, 5)
    with pytest.raises(InvalidPoint, match="32 bytes"):
        mul(bytearray(p), 5)  # type: ignore[arg-type]
    for k in (0, -1, ORDER, ORDER + 1):
        with pytest.raises(ValueError):
            mul(p, k)
    with pytest.raises(ValueError):
        inverse(0)


def test_off_curve_x_rejected() -> None:
    # About half of all x-coordinates are not on the curve; find one and check it is refused.
    for i in range(100):
        x = i.to_bytes(32, "big")
        if not is_point(x):
            with pytest.raises(InvalidPoint, match="not the x-coordinate"):
                mul(x, 3)
            return
    raise AssertionError("no off-curve x found")


def test_random_scalar_range_and_determinism() -> None:
    a = [random_scalar(DetRng(b"s")) for _ in range(3)]
    assert len(set(a)) == 1
    rng = DetRng(b"t")
    ks = [random_scalar(rng) for _ in range(200)]
    assert all(1 <= k < ORDER for k in ks)
    assert len(set(ks)) == 200
