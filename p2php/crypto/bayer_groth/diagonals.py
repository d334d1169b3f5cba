"""The prover's diagonals of the multi-exponentiation argument (:mod:`.multiexp`), by evaluation and interpolation.

The prover must send, for ``k = 0 … 2m−1``, ``k ≠ m``,

    D_k = Σ_{i=1…m, j=k−m+i ∈ [0, m]} ⟨a_j, C_i⟩

(``E_k`` is ``D_k`` plus a fresh encryption, added by the caller). Summed directly that is ``m(m+1)`` inner products
of ``n`` ciphertexts: ``2N(m+1)`` full-size products, most of a pass's proving time. The ``D_k`` are the
coefficients of one polynomial with group coefficients,

    P(x) = ⟨A(x), B(x)⟩ = Σ_k x^k·D_k,    A(x) = Σ_{j=0…m} x^j·a_j,    B(x) = Σ_{i=1…m} x^{m−i}·C_i,

of degree ``2m − 1``. So the prover evaluates ``P`` at ``0``, ``±1, …, ±(m−1)`` and "infinity" (the leading
coefficient ``D_{2m−1} = ⟨a_m, C_1⟩``) -- one inner product of ``n`` ciphertexts each, ``2m`` in all -- and
recovers every ``D_k`` as a fixed linear combination of those values (the inverse Vandermonde matrix of the nodes,
mod ``q``). ``B(±t)`` costs only products by the small integers ``t^e`` (``t < m ≤ 8``), shared by ``+t`` and
``−t``: ``B(±t) = B_even(t) ± B_odd(t)``. For ``m ≥ 3`` that is about half the full-size products (108 cards:
``m = 6``, 1 512 → 672). Same points as the direct sum, so the proof's bytes are unchanged (the known-answer vectors
of protocol.md B.11 and ``tests/test_crypto_bayer_groth.py`` hold both ways to the same result); nothing here is on
the wire, and a verifier never needs it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from p2php.crypto.elgamal import Ciphertext
from p2php.crypto.secp256k1 import Point, Q, lincomb

__all__ = ["DiagonalTerms", "diagonal_terms"]

DiagonalTerms = tuple[list[Point], list[Point], list[int]]
"""``D_k`` as ``(points_a, points_b, weights)``: ``D_k = (Σ w·a, Σ w·b)``, left unsummed so that the caller folds its
encryption of ``b_k`` into the same single sum."""

INTERPOLATE_FROM = 3
"""The smallest ``m`` for which evaluating and interpolating makes fewer products than summing directly."""


def diagonal_terms(rows: Sequence[Sequence[Ciphertext]], a_all: Sequence[Sequence[int]]) -> list[DiagonalTerms]:
    """The terms of ``D_k`` for ``k = 0 … 2m−1``, ``k ≠ m``, in that order (``rows`` = ``C_1 … C_m``, ``a_all`` =
    ``a_0 … a_m``)."""
    m = len(rows)
    if m < INTERPOLATE_FROM:
        return _direct(rows, a_all)
    return _interpolated(rows, a_all)


def _direct(rows: Sequence[Sequence[Ciphertext]], a_all: Sequence[Sequence[int]]) -> list[DiagonalTerms]:
    """``D_k`` as the plain sum of its ``⟨a_j, C_i⟩`` (every term a full-size product)."""
    m = len(rows)
    out = []
    for k in range(2 * m):
        if k == m:
            continue
        pts_a: list[Point] = []
        pts_b: list[Point] = []
        weights: list[int] = []
        for i in range(1, m + 1):
            j = k - m + i
            if 0 <= j <= m:
                pts_a += [ct.a for ct in rows[i - 1]]
                pts_b += [ct.b for ct in rows[i - 1]]
                weights += a_all[j]
        out.append((pts_a, pts_b, weights))
    return out


def _interpolated(rows: Sequence[Sequence[Ciphertext]], a_all: Sequence[Sequence[int]]) -> list[DiagonalTerms]:
    """``D_k`` from ``P`` at the nodes of :func:`_nodes` and ``D_{2m−1}`` (see the module's docstring)."""
    m = len(rows)
    values_a: list[Point] = []
    values_b: list[Point] = []

    def evaluate(t: int, b_a: Sequence[Point], b_b: Sequence[Point]) -> None:
        weights = _a_at(a_all, t)
        values_a.append(lincomb(b_a, weights))
        values_b.append(lincomb(b_b, weights))

    last = rows[m - 1]
    evaluate(0, [ct.a for ct in last], [ct.b for ct in last])  # B(0) = C_m
    for t in range(1, m):
        b_a_plus, b_a_minus = _b_at(rows, t, "a")
        b_b_plus, b_b_minus = _b_at(rows, t, "b")
        evaluate(t, b_a_plus, b_b_plus)
        evaluate(-t, b_a_minus, b_b_minus)
    first = rows[0]
    top_a = lincomb([ct.a for ct in first], a_all[m])  # D_{2m−1} = ⟨a_m, C_1⟩
    top_b = lincomb([ct.b for ct in first], a_all[m])
    inverse, top_weights = _interpolation(m)
    out = []
    for k in range(2 * m - 1):
        if k != m:
            out.append(([*values_a, top_a], [*values_b, top_b], [*inverse[k], top_weights[k]]))
    out.append(([top_a], [top_b], [1]))
    return out


def _a_at(a_all: Sequence[Sequence[int]], t: int) -> list[int]:
    """``A(t) = Σ_j t^j·a_j`` mod ``q``, entry by entry."""
    n = len(a_all[0])
    out = [0] * n
    for row in reversed(a_all):  # Horner: ((a_m·t + a_{m−1})·t + …)
        out = [(v * t + r) % Q for v, r in zip(out, row, strict=True)]
    return out


def _b_at(rows: Sequence[Sequence[Ciphertext]], t: int, half: str) -> tuple[list[Point], list[Point]]:
    """``B(t)`` and ``B(−t)`` of one half (``"a"`` or ``"b"``) of the ciphertexts, column by column:
    ``B_even(t) ± B_odd(t)`` with ``B_even(t) = Σ_{e even} t^e·C_{m−e}`` (small positive scalars only)."""
    m = len(rows)
    even = [(rows[m - 1 - e], t**e) for e in range(0, m, 2)]
    odd = [(rows[m - 1 - e], t**e) for e in range(1, m, 2)]
    plus: list[Point] = []
    minus: list[Point] = []
    for col in range(len(rows[0])):
        e_sum = lincomb([getattr(row[col], half) for row, _ in even], [w for _, w in even])
        o_sum = lincomb([getattr(row[col], half) for row, _ in odd], [w for _, w in odd])
        plus.append(e_sum + o_sum)
        minus.append(e_sum - o_sum)
    return plus, minus


def _nodes(m: int) -> list[int]:
    """The finite evaluation points, in the order :func:`_interpolated` evaluates: ``0, 1, −1, …, m−1, −(m−1)``."""
    return [0, *(s for t in range(1, m) for s in (t, -t))]


@functools.cache
def _interpolation(m: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """For ``k = 0 … 2m−2``: the weights of ``P`` at :func:`_nodes` in ``D_k``, and the weight of ``D_{2m−1}``.

    ``Q(x) = P(x) − x^{2m−1}·D_{2m−1}`` has degree ``2m − 2``, so its coefficients are ``V⁻¹`` times its values at
    the ``2m − 1`` nodes (``V`` the Vandermonde matrix, inverted mod ``q``); the second part of ``Q(t)`` gives
    ``D_{2m−1}`` the weight ``−Σ_r V⁻¹[k][r]·t_r^{2m−1}``.
    """
    nodes = _nodes(m)
    size = len(nodes)
    inverse = _invert([[pow(t, k, Q) for k in range(size)] for t in nodes])
    tops = tuple(-sum(w * pow(t, size, Q) for w, t in zip(row, nodes, strict=True)) % Q for row in inverse)
    return tuple(tuple(row) for row in inverse), tops


def _invert(matrix: list[list[int]]) -> list[list[int]]:
    """The inverse mod ``q`` of a square matrix (Gauss–Jordan; the Vandermonde matrix of distinct nodes is
    invertible)."""
    size = len(matrix)
    work = [[*row, *(int(i == j) for j in range(size))] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = next(r for r in range(col, size) if work[r][col] % Q)
        work[col], work[pivot] = work[pivot], work[col]
        scale = pow(work[col][col], -1, Q)
        work[col] = [v * scale % Q for v in work[col]]
        for r in range(size):
            factor = work[r][col]
            if r != col and factor:
                work[r] = [(v - factor * p) % Q for v, p in zip(work[r], work[col], strict=True)]
    return [row[size:] for row in work]
