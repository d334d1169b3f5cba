"""The Hadamard product argument (Bayer–Groth 2012, §5.1): ``c_b`` commits to the entry-wise product of ``m`` rows.

Statement: ``c_{A1} … c_{Am}`` (rows ``a_i``) and ``c_b``; claim ``b = a_1 ∘ a_2 ∘ … ∘ a_m`` (``m ≥ 2``). The prover
commits to the running products ``b_i = a_1 ∘ … ∘ a_i`` (``c_{B1} = c_{A1}`` and ``c_{Bm} = c_b`` are known, so only
``c_{B2} … c_{B,m−1}`` are sent). For challenges ``x, y`` every step ``b_{i+1} = a_{i+1} ∘ b_i`` folds into one
zero argument (:mod:`~p2php.crypto.bayer_groth.zero`) over the ``⋆`` map of ``y``:

    Σ_{i=1}^{m−1} a_{i+1} ⋆ (x^i·b_i)  +  (−1⃗) ⋆ Σ_{i=1}^{m−1} x^i·b_{i+1}  =  0

with the pairs' commitments ``(c_{A,i+1}, x^i·c_{Bi})`` and ``(com(−1⃗; 0), Σ x^i·c_{B,i+1})``, which the verifier
derives itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from p2php.crypto.bayer_groth.commitments import commit, hadamard, powers
from p2php.crypto.bayer_groth.equations import Equations, Form, Term, minus_ones
from p2php.crypto.bayer_groth.transcript import Transcript
from p2php.crypto.bayer_groth.zero import ZeroArgument, prove_zero, verify_zero
from p2php.crypto.secp256k1 import Point, Q, random_scalar
from p2php.rng import DetRng

__all__ = ["HadamardArgument", "prove_hadamard", "verify_hadamard"]


@dataclass(frozen=True, slots=True)
class HadamardArgument:
    """``c_{B2} … c_{B,m−1}`` and the zero argument."""

    c_b_mid: tuple[Point, ...]
    zero: ZeroArgument

    def points(self) -> list[Point]:
        return [*self.c_b_mid, *self.zero.points()]

    def scalars(self) -> list[int]:
        return self.zero.scalars()

    @staticmethod
    def counts(m: int, n: int) -> tuple[int, int]:
        zp, zs = ZeroArgument.counts(m, n)
        return m - 2 + zp, zs

    @classmethod
    def read(cls, points: Iterator[Point], scalars: Iterator[int], m: int, n: int) -> HadamardArgument:
        mid = tuple(next(points) for _ in range(m - 2))
        return cls(mid, ZeroArgument.read(points, scalars, m, n))


def prove_hadamard(t: Transcript, a_rows: Sequence[Sequence[int]], r_a: Sequence[int], s_b: int,
                   rng: DetRng) -> HadamardArgument:
    """Prove that ``com(a_1 ∘ … ∘ a_m; s_b)`` commits to the rows' product (``c_{Ai} = com(a_i; r_{Ai})``).

    Randomness, in order: ``s_2 … s_{m−1}``, then the zero argument's.
    """
    m, n = len(a_rows), len(a_rows[0])
    if m < 2:
        raise ValueError("a Hadamard argument needs m >= 2 rows")
    b_rows = [list(a_rows[0])]
    for row in a_rows[1:]:
        b_rows.append(hadamard(b_rows[-1], row))
    s = [r_a[0], *(random_scalar(rng) for _ in range(m - 2)), s_b]
    c_b_mid = tuple(commit(b_rows[i], s[i]) for i in range(1, m - 1))
    t.absorb(b"hadamard", c_b_mid)
    x, y = t.challenge(b"hadamard-x"), t.challenge(b"hadamard-y")
    xp = powers(x, m)  # x^0 … x^{m−1}
    zero_a = [*a_rows[1:], [Q - 1] * n]
    zero_r = [*r_a[1:], 0]
    zero_b = [[xp[i] * v % Q for v in b_rows[i - 1]] for i in range(1, m)]
    zero_s = [xp[i] * s[i - 1] % Q for i in range(1, m)]
    zero_b.append([sum(xp[i] * b_rows[i][col] for i in range(1, m)) % Q for col in range(n)])
    zero_s.append(sum(xp[i] * s[i] for i in range(1, m)) % Q)
    return HadamardArgument(c_b_mid, prove_zero(t, y, zero_a, zero_r, zero_b, zero_s, rng))


def verify_hadamard(t: Transcript, c_a: Sequence[Term], c_b: Term, arg: HadamardArgument, n: int,
                    eq: Equations | None = None) -> bool:
    """Whether ``arg`` shows that ``c_b`` commits to the entry-wise product of the rows committed in ``c_a``.

    With ``eq``, its equations join those (checked later by the caller). The zero argument's commitments
    ``x^i·c_{B,i}`` stay forms: no product of their own.
    """
    m = len(c_a)
    t.absorb(b"hadamard", arg.c_b_mid)
    x, y = t.challenge(b"hadamard-x"), t.challenge(b"hadamard-y")
    xp = powers(x, m)
    chain: list[Term] = [c_a[0], *arg.c_b_mid, c_b]  # c_{B1} … c_{Bm}
    zero_a: list[Term] = [*c_a[1:], minus_ones(n)]
    zero_b: list[Term] = [Form.of((chain[i - 1],), (xp[i],)) for i in range(1, m)]
    zero_b.append(Form.of(chain[1:], xp[1:]))
    return verify_zero(t, y, zero_a, zero_b, arg.zero, n, eq)
