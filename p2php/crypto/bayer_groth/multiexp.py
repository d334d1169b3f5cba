"""The multi-exponentiation argument (Bayer–Groth 2012, §4): a ciphertext is the committed exponents applied to
``m × n`` ciphertexts, plus a re-masking.

Statement: rows ``C_1 … C_m`` of ``n`` ciphertexts, commitments ``c_{A1} … c_{Am}`` to exponent rows ``a_i``, a
ciphertext ``C``; claim ``C = Enc(0; ρ) + Σ_i ⟨a_i, C_i⟩`` (``⟨a, C⟩ = Σ_l a_l·C_l``, ``Enc(M; τ) = (τ·G, M + τ·Y)``).
The prover adds a fresh row ``a_0`` and commits to the "diagonals"

    E_k = Enc(b_k·G; τ_k) + Σ_{i=1…m, j=k−m+i ∈ [0, m]} ⟨a_j, C_i⟩,    k = 0 … 2m − 1,

with ``b_m = 0``, ``τ_m = ρ`` (so ``E_m = C``, which is not sent) and scalar commitments ``c_{Bk} = com(b_k; s_k)``
(``c_{Bm} = O``). For the challenge ``x`` it opens ``a = Σ x^j·a_j`` and the combined ``r, b, s, τ``; the verifier
checks ``c_{A0} + Σ x^j·c_{Aj} = com(a; r)``, ``Σ x^k·c_{Bk} = com(b; s)`` and

    Σ_k x^k·E_k = Enc(b·G; τ) + Σ_i x^{m−i}·⟨a, C_i⟩,

where the coefficient of ``x^m`` on the left is ``C`` itself. ``C`` comes in as weighted ciphertexts (the shuffle's
``Σ x^j·e_j``) so that its products fold into the check's one sum. The prover's sums ``Σ ⟨a_j, C_i⟩`` come from
:mod:`.diagonals` (by evaluation and interpolation: about half the products of the sums written out).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from p2php.crypto.bayer_groth.commitments import commit, generators, powers
from p2php.crypto.bayer_groth.diagonals import diagonal_terms
from p2php.crypto.bayer_groth.equations import Equations
from p2php.crypto.bayer_groth.transcript import Transcript
from p2php.crypto.elgamal import Ciphertext
from p2php.crypto.secp256k1 import Point, Q, lincomb, random_scalar
from p2php.rng import DetRng

__all__ = ["MultiExpArgument", "prove_multiexp", "verify_multiexp"]


@dataclass(frozen=True, slots=True)
class MultiExpArgument:
    """``c_{A0}``, ``c_{Bk}`` and ``E_k`` (``k = 0 … 2m−1``, ``k ≠ m``), then ``a`` (``n``), ``r, b, s, τ``."""

    c_a0: Point
    c_b: tuple[Point, ...]
    e: tuple[Ciphertext, ...]
    a: tuple[int, ...]
    r: int
    b: int
    s: int
    tau: int

    def points(self) -> list[Point]:
        return [self.c_a0, *self.c_b, *(p for ct in self.e for p in (ct.a, ct.b))]

    def scalars(self) -> list[int]:
        return [*self.a, self.r, self.b, self.s, self.tau]

    @staticmethod
    def counts(m: int, n: int) -> tuple[int, int]:
        """``(points, scalars)`` for ``m`` rows of ``n`` ciphertexts."""
        return 1 + 3 * (2 * m - 1), n + 4

    @classmethod
    def read(cls, points: Iterator[Point], scalars: Iterator[int], m: int, n: int) -> MultiExpArgument:
        c_a0 = next(points)
        c_b = tuple(next(points) for _ in range(2 * m - 1))
        e = tuple(Ciphertext(next(points), next(points)) for _ in range(2 * m - 1))
        a = tuple(next(scalars) for _ in range(n))
        return cls(c_a0, c_b, e, a, next(scalars), next(scalars), next(scalars), next(scalars))


def prove_multiexp(t: Transcript, y: Point, rows: Sequence[Sequence[Ciphertext]], a_rows: Sequence[Sequence[int]],
                   r_a: Sequence[int], rho: int, rng: DetRng) -> MultiExpArgument:
    """Prove ``C = Enc(0; ρ) + Σ ⟨a_i, C_i⟩`` for ``c_{Ai} = com(a_i; r_{Ai})`` (``C`` is implied by the rest).

    Randomness, in order: ``a_0`` (``n``), ``r_0``, then for ``k = 0 … 2m−1``, ``k ≠ m``: all ``b_k``, all ``s_k``,
    all ``τ_k``.
    """
    m, n = len(rows), len(rows[0])
    a0 = [random_scalar(rng) for _ in range(n)]
    r0 = random_scalar(rng)
    ks = [k for k in range(2 * m) if k != m]
    b_k = dict.fromkeys(range(2 * m), 0) | {k: random_scalar(rng) for k in ks}
    s_k = dict.fromkeys(range(2 * m), 0) | {k: random_scalar(rng) for k in ks}
    tau_k = {m: rho % Q} | {k: random_scalar(rng) for k in ks}
    a_all = [a0, *a_rows]
    c_a0 = commit(a0, r0)
    c_b = [commit((b_k[k],), s_k[k]) for k in ks]
    e = [Ciphertext(lincomb(pts_a, weights, base=tau_k[k]), lincomb([*pts_b, y], [*weights, tau_k[k]], base=b_k[k]))
         for k, (pts_a, pts_b, weights) in zip(ks, diagonal_terms(rows, a_all), strict=True)]
    t.absorb(b"multiexp", (c_a0, *c_b, *(p for ct in e for p in (ct.a, ct.b))))
    x = t.challenge(b"multiexp-x")
    xp = powers(x, 2 * m)
    a = [sum(xp[j] * row[col] for j, row in enumerate(a_all)) % Q for col in range(n)]
    r = sum(xp[j] * rj for j, rj in enumerate((r0, *r_a))) % Q
    return MultiExpArgument(
        c_a0, tuple(c_b), tuple(e), tuple(a), r,
        sum(xp[k] * b_k[k] for k in range(2 * m)) % Q,
        sum(xp[k] * s_k[k] for k in range(2 * m)) % Q,
        sum(xp[k] * tau_k[k] for k in range(2 * m)) % Q,
    )


def verify_multiexp(t: Transcript, y: Point, rows: Sequence[Sequence[Ciphertext]], c_a: Sequence[Point],
                    target: tuple[Sequence[Ciphertext], Sequence[int]], arg: MultiExpArgument, n: int,
                    eq: Equations | None = None) -> bool:
    """Whether ``arg`` shows ``C = Enc(0; ρ) + Σ ⟨a_i, C_i⟩`` for ``C = Σ w_j·C'_j`` given as ``target = (C', w)``.

    With ``eq``, its equations join those (checked later by the caller).
    """
    own = eq is None
    eq = Equations() if eq is None else eq
    m = len(rows)
    t.absorb(b"multiexp", arg.points())
    x = t.challenge(b"multiexp-x")
    xp = powers(x, 2 * m)
    gens = generators(n)
    eq.require((arg.c_a0, *c_a, *gens), (*xp[: m + 1], *(-v for v in arg.a)), base=-arg.r)
    ks = [k for k in range(2 * m) if k != m]
    eq.require((*arg.c_b, gens[0]), (*(xp[k] for k in ks), -arg.b), base=-arg.s)
    # Σ_k x^k·E_k (k ≠ m) + x^m·C − Σ_i x^{m−i}·⟨a, C_i⟩ = Enc(b·G; τ): one term list for each half of the
    # ciphertexts, the same weights on both (the equations merge a point that appears twice).
    cts = [*arg.e, *target[0]]
    weights = [*(xp[k] for k in ks), *(xp[m] * w for w in target[1])]
    for i, row in enumerate(rows, start=1):
        factor = -xp[m - i]
        cts += row
        weights += [factor * a_l for a_l in arg.a]
    eq.require([ct.a for ct in cts], weights, base=-arg.tau)
    eq.require([*(ct.b for ct in cts), y], [*weights, -arg.tau], base=-arg.b)
    return not own or eq.hold()
