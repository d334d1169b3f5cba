"""Pedersen vector commitments and the small scalar algebra every Bayer–Groth sub-argument shares.

``com(v; r) = r·G + Σ v_j·H_j`` commits to a vector of up to ``n`` scalars with the generators ``H_1 … H_n`` of
protocol.md B.2 (``H_0`` is the Terelius–Wikström chain's and is not used here); a single scalar is committed as
``com((v); r) = r·G + v·H_1``. Binding rests on nobody knowing a discrete log between ``G`` and the hash-derived
``H_j``; hiding on ``r`` being fresh. A verifier never opens a commitment: it checks that a linear combination of
commitments and generators is the identity (:mod:`.equations`: every equation of a proof in one libsecp256k1 sum).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from p2php.crypto.secp256k1 import Point, Q, commitment_generators, lincomb

__all__ = ["commit", "generators", "hadamard", "powers", "product", "star"]


def generators(n: int) -> tuple[Point, ...]:
    """``(H_1, …, H_n)``, the bases of a commitment to ``n`` scalars."""
    return commitment_generators(n)[1:]


def commit(values: Sequence[int], r: int) -> Point:
    """``com(v; r) = r·G + Σ v_j·H_j`` (``r`` through the constant-time base product: it is secret)."""
    return lincomb(generators(len(values)), values, base=r)


def powers(x: int, count: int, start: int = 0) -> list[int]:
    """``[x^start, x^(start+1), …]``, ``count`` of them, mod ``q``."""
    out = []
    value = pow(x, start, Q)
    for _ in range(count):
        out.append(value)
        value = value * x % Q
    return out


def star(a: Sequence[int], b: Sequence[int], y_powers: Sequence[int]) -> int:
    """The bilinear map ``a ⋆ b = Σ_j a_j·b_j·y^j`` (``j`` from 1; ``y_powers`` is ``[y, y², …, y^n]``)."""
    return sum(p * q * w for p, q, w in zip(a, b, y_powers, strict=True)) % Q


def hadamard(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """The entry-wise product ``a ∘ b`` mod ``q``."""
    return [p * q % Q for p, q in zip(a, b, strict=True)]


def product(values: Iterable[int]) -> int:
    """``Π values`` mod ``q``."""
    out = 1
    for v in values:
        out = out * v % Q
    return out
