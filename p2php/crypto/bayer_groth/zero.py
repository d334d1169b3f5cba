"""The zero argument (Bayer–Groth 2012, §5.2): committed rows satisfy ``Σ_{i=1}^{m} a_i ⋆ b_i = 0``.

``⋆`` is the bilinear map ``a ⋆ b = Σ_j a_j·b_j·y^j`` for a ``y`` the caller has already drawn. The prover adds
fresh rows ``a_0`` and ``b_{m+1}`` and commits to the coefficients ``d_0 … d_{2m}`` of

    A(x) ⋆ B(x) = Σ_k d_k·x^k,   A(x) = Σ_{i=0}^{m} x^i·a_i,   B(x) = Σ_{j=1}^{m+1} x^{m+1−j}·b_j,

whose coefficient ``d_{m+1} = Σ a_i ⋆ b_i`` is the claimed zero (so ``c_{D,m+1} = com(0; 0) = O`` is not sent). For
the challenge ``x`` it opens ``A(x)``, ``B(x)`` and the combined randomness; the verifier checks the three
commitments against those openings and ``Σ x^k·c_{Dk} = com(A(x) ⋆ B(x); t)``. A false claim survives only for the
``x`` that are roots of a nonzero polynomial of degree ``2m``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from p2php.crypto.bayer_groth.commitments import commit, generators, powers, star
from p2php.crypto.bayer_groth.equations import Equations, Term
from p2php.crypto.bayer_groth.transcript import Transcript
from p2php.crypto.secp256k1 import Point, Q, identity, random_scalar
from p2php.rng import DetRng

__all__ = ["ZeroArgument", "prove_zero", "verify_zero"]


@dataclass(frozen=True, slots=True)
class ZeroArgument:
    """``c_{A0}``, ``c_{B,m+1}``, ``c_{Dk}`` (``k ≠ m+1``), then ``a``, ``b`` (``n`` each), ``r, s, t``."""

    c_a0: Point
    c_b_last: Point
    c_d: tuple[Point, ...]
    a: tuple[int, ...]
    b: tuple[int, ...]
    r: int
    s: int
    t: int

    def points(self) -> list[Point]:
        return [self.c_a0, self.c_b_last, *self.c_d]

    def scalars(self) -> list[int]:
        return [*self.a, *self.b, self.r, self.s, self.t]

    @staticmethod
    def counts(m: int, n: int) -> tuple[int, int]:
        """``(points, scalars)`` of an argument over ``m`` pairs of rows of ``n`` entries."""
        return 2 + 2 * m, 2 * n + 3

    @classmethod
    def read(cls, points: Iterator[Point], scalars: Iterator[int], m: int, n: int) -> ZeroArgument:
        return cls(next(points), next(points), tuple(next(points) for _ in range(2 * m)),
                   tuple(next(scalars) for _ in range(n)), tuple(next(scalars) for _ in range(n)),
                   next(scalars), next(scalars), next(scalars))


def _with_gap(values: Sequence[Point], m: int) -> list[Point]:
    """``c_{D0} … c_{D,2m}`` from the ``2m`` sent, with the identity at ``k = m + 1``."""
    return [*values[: m + 1], identity(), *values[m + 1 :]]


def prove_zero(t: Transcript, y: int, a_rows: Sequence[Sequence[int]], r_a: Sequence[int],
               b_rows: Sequence[Sequence[int]], s_b: Sequence[int], rng: DetRng) -> ZeroArgument:
    """Prove ``Σ a_i ⋆ b_i = 0`` for ``c_{Ai} = com(a_i; r_{Ai})`` and ``c_{Bi} = com(b_i; s_{Bi})``, ``i = 1 … m``.

    Randomness, in order: ``a_0`` (``n`` scalars), ``r_0``, ``b_{m+1}`` (``n``), ``s_{m+1}``, ``t_k`` for
    ``k = 0 … 2m``, ``k ≠ m + 1``.
    """
    m, n = len(a_rows), len(a_rows[0])
    yp = powers(y, n, start=1)
    a0 = [random_scalar(rng) for _ in range(n)]
    r0 = random_scalar(rng)
    b_last = [random_scalar(rng) for _ in range(n)]
    s_last = random_scalar(rng)
    t_k = [0 if k == m + 1 else random_scalar(rng) for k in range(2 * m + 1)]
    a_all = [a0, *a_rows]  # a_0 … a_m
    b_all = [*b_rows, b_last]  # b_1 … b_{m+1}
    d = [0] * (2 * m + 1)
    for i, ai in enumerate(a_all):
        for j, bj in enumerate(b_all, start=1):
            k = i + m + 1 - j
            d[k] = (d[k] + star(ai, bj, yp)) % Q
    if d[m + 1]:
        raise ValueError("prove_zero: the rows do not satisfy the claimed equation")
    c_a0, c_b_last = commit(a0, r0), commit(b_last, s_last)
    c_d = [commit((d[k],), t_k[k]) for k in range(2 * m + 1) if k != m + 1]
    t.absorb(b"zero", (c_a0, c_b_last, *c_d))
    x = t.challenge(b"zero-x")
    xp = powers(x, 2 * m + 1)
    a = [sum(xp[i] * row[col] for i, row in enumerate(a_all)) % Q for col in range(n)]
    b = [sum(xp[m + 1 - j] * row[col] for j, row in enumerate(b_all, start=1)) % Q for col in range(n)]
    r = sum(xp[i] * ri for i, ri in enumerate((r0, *r_a))) % Q
    s = sum(xp[m + 1 - j] * sj for j, sj in enumerate((*s_b, s_last), start=1)) % Q
    tt = sum(xp[k] * t_k[k] for k in range(2 * m + 1)) % Q
    return ZeroArgument(c_a0, c_b_last, tuple(c_d), tuple(a), tuple(b), r, s, tt)


def verify_zero(t: Transcript, y: int, c_a: Sequence[Term], c_b: Sequence[Term], arg: ZeroArgument,
                n: int, eq: Equations | None = None) -> bool:
    """Whether ``arg`` shows ``Σ a_i ⋆ b_i = 0`` for the rows committed in ``c_a`` and ``c_b`` (``m`` each).

    With ``eq``, its equations join those (checked later by the caller).
    """
    own = eq is None
    eq = Equations() if eq is None else eq
    m = len(c_a)
    t.absorb(b"zero", (arg.c_a0, arg.c_b_last, *arg.c_d))
    x = t.challenge(b"zero-x")
    xp = powers(x, 2 * m + 1)
    gens = generators(n)
    eq.require((arg.c_a0, *c_a, *gens), (*xp[: m + 1], *(-v for v in arg.a)), base=-arg.r)
    b_weights = [xp[m + 1 - j] for j in range(1, m + 2)]
    eq.require((*c_b, arg.c_b_last, *gens), (*b_weights, *(-v for v in arg.b)), base=-arg.s)
    c_d = _with_gap(arg.c_d, m)
    ab = star(arg.a, arg.b, powers(y, n, start=1))
    eq.require((*c_d, gens[0]), (*xp, -ab), base=-arg.t)
    return not own or eq.hold()
