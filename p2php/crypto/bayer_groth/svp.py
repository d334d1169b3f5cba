"""The single-value product argument (Bayer–Groth 2012, §5.3): a committed vector's entries multiply to ``b``.

Statement: ``c_a = com(a; r)`` and a scalar ``b``; claim ``Π a_j = b``. The prover commits to the running products
``b_j = a_1·…·a_j`` only through blinded responses: with ``d`` and ``δ`` fresh (``δ_1 = d_1``, ``δ_n = 0``)

    c_d = com(d; r_d)
    c_δ = com(−δ_1·d_2, …, −δ_{n−1}·d_n; s_1)
    c_Δ = com(δ_2 − a_2·δ_1 − b_1·d_2, …, δ_n − a_n·δ_{n−1} − b_{n−1}·d_n; s_x)

then, for the challenge ``x``, ``ã = x·a + d``, ``b̃ = x·b⃗ + δ``, ``r̃ = x·r + r_d``, ``s̃ = x·s_x + s_1``. The verifier
checks ``x·c_a + c_d = com(ã; r̃)``, ``x·c_Δ + c_δ = com(x·b̃_{j+1} − b̃_j·ã_{j+1}; s̃)``, ``b̃_1 = ã_1`` and
``b̃_n = x·b``; the last two are implied by sending only ``b̃_2 … b̃_{n−1}`` (protocol.md B.11). Needs ``n ≥ 2``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from p2php.crypto.bayer_groth.commitments import commit, generators
from p2php.crypto.bayer_groth.equations import Equations, Term
from p2php.crypto.bayer_groth.transcript import Transcript
from p2php.crypto.secp256k1 import Point, Q, random_scalar
from p2php.rng import DetRng

__all__ = ["SvpArgument", "prove_svp", "verify_svp"]


@dataclass(frozen=True, slots=True)
class SvpArgument:
    """``c_d, c_δ, c_Δ`` then ``ã`` (``n``), ``b̃_2 … b̃_{n−1}``, ``r̃``, ``s̃``."""

    c_d: Point
    c_delta: Point
    c_big_delta: Point
    a_tilde: tuple[int, ...]
    b_tilde_mid: tuple[int, ...]
    r_tilde: int
    s_tilde: int

    def points(self) -> list[Point]:
        return [self.c_d, self.c_delta, self.c_big_delta]

    def scalars(self) -> list[int]:
        return [*self.a_tilde, *self.b_tilde_mid, self.r_tilde, self.s_tilde]

    @staticmethod
    def counts(n: int) -> tuple[int, int]:
        """``(points, scalars)`` of an argument for ``n`` entries."""
        return 3, 2 * n

    @classmethod
    def read(cls, points: Iterator[Point], scalars: Iterator[int], n: int) -> SvpArgument:
        return cls(next(points), next(points), next(points), tuple(next(scalars) for _ in range(n)),
                   tuple(next(scalars) for _ in range(n - 2)), next(scalars), next(scalars))


def prove_svp(t: Transcript, a: Sequence[int], r: int, rng: DetRng) -> SvpArgument:
    """Prove ``Π a = b`` for ``c_a = com(a; r)`` (already bound by the caller's transcript).

    Randomness, in order: ``d_1 … d_n``, ``r_d``, ``δ_2 … δ_{n−1}``, ``s_1``, ``s_x``.
    """
    n = len(a)
    if n < 2:
        raise ValueError("a single-value product argument needs n >= 2")
    running = [a[0] % Q]
    for v in a[1:]:
        running.append(running[-1] * v % Q)
    d = [random_scalar(rng) for _ in range(n)]
    r_d = random_scalar(rng)
    delta = [d[0], *(random_scalar(rng) for _ in range(n - 2)), 0]
    s_1, s_x = random_scalar(rng), random_scalar(rng)
    c_d = commit(d, r_d)
    c_delta = commit([-delta[j] * d[j + 1] % Q for j in range(n - 1)], s_1)
    c_big_delta = commit(
        [(delta[j + 1] - a[j + 1] * delta[j] - running[j] * d[j + 1]) % Q for j in range(n - 1)], s_x)
    t.absorb(b"svp", (c_d, c_delta, c_big_delta))
    x = t.challenge(b"svp-x")
    return SvpArgument(
        c_d, c_delta, c_big_delta,
        tuple((x * a[j] + d[j]) % Q for j in range(n)),
        tuple((x * running[j] + delta[j]) % Q for j in range(1, n - 1)),
        (x * r + r_d) % Q, (x * s_x + s_1) % Q,
    )


def verify_svp(t: Transcript, c_a: Term, b: int, arg: SvpArgument, n: int, eq: Equations | None = None) -> bool:
    """Whether ``arg`` shows that ``c_a`` commits to ``n`` scalars whose product is ``b``.

    With ``eq``, its equations join those (checked later by the caller) and only what fails at once returns False.
    """
    own = eq is None
    eq = Equations() if eq is None else eq
    t.absorb(b"svp", (arg.c_d, arg.c_delta, arg.c_big_delta))
    x = t.challenge(b"svp-x")
    a_t = arg.a_tilde
    b_t = [a_t[0], *arg.b_tilde_mid, x * b % Q]
    gens = generators(n)
    eq.require((c_a, arg.c_d, *gens), (x, 1, *(-v for v in a_t)), base=-arg.r_tilde)
    chained = [-(x * b_t[j + 1] - b_t[j] * a_t[j + 1]) for j in range(n - 1)]
    eq.require((arg.c_big_delta, arg.c_delta, *gens[: n - 1]), (x, 1, *chained), base=-arg.s_tilde)
    return not own or eq.hold()
