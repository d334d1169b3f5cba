"""The product argument (Bayer–Groth 2012, §5): the entries of ``m`` committed rows multiply to a public ``b``.

With one row it is the single-value product argument alone. With ``m ≥ 2`` rows the prover commits to the
rows' entry-wise product, ``c_b = com(a_1 ∘ … ∘ a_m; s)``, shows it with a Hadamard argument, then shows with a
single-value product argument that ``c_b``'s entries multiply to ``b``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from p2php.crypto.bayer_groth.commitments import commit, hadamard
from p2php.crypto.bayer_groth.equations import Equations, Term
from p2php.crypto.bayer_groth.hadamard import HadamardArgument, prove_hadamard, verify_hadamard
from p2php.crypto.bayer_groth.svp import SvpArgument, prove_svp, verify_svp
from p2php.crypto.bayer_groth.transcript import Transcript
from p2php.crypto.secp256k1 import Point, random_scalar
from p2php.rng import DetRng

__all__ = ["ProductArgument", "prove_product", "verify_product"]


@dataclass(frozen=True, slots=True)
class ProductArgument:
    """``c_b`` and the Hadamard argument (both absent for one row), then the single-value product argument."""

    c_b: Point | None
    hadamard: HadamardArgument | None
    svp: SvpArgument

    def points(self) -> list[Point]:
        if self.c_b is None or self.hadamard is None:
            return self.svp.points()
        return [self.c_b, *self.hadamard.points(), *self.svp.points()]

    def scalars(self) -> list[int]:
        head = [] if self.hadamard is None else self.hadamard.scalars()
        return [*head, *self.svp.scalars()]

    @staticmethod
    def counts(m: int, n: int) -> tuple[int, int]:
        sp, ss = SvpArgument.counts(n)
        if m == 1:
            return sp, ss
        hp, hs = HadamardArgument.counts(m, n)
        return 1 + hp + sp, hs + ss

    @classmethod
    def read(cls, points: Iterator[Point], scalars: Iterator[int], m: int, n: int) -> ProductArgument:
        if m == 1:
            return cls(None, None, SvpArgument.read(points, scalars, n))
        c_b = next(points)
        hadamard_arg = HadamardArgument.read(points, scalars, m, n)
        return cls(c_b, hadamard_arg, SvpArgument.read(points, scalars, n))


def prove_product(t: Transcript, a_rows: Sequence[Sequence[int]], r_a: Sequence[int],
                  rng: DetRng) -> ProductArgument:
    """Prove that the entries of the rows ``a_i`` (committed as ``com(a_i; r_{Ai})``) multiply to their product.

    Randomness, in order: ``s`` (for ``c_b``, only if ``m ≥ 2``), the Hadamard argument's, the single-value
    product argument's.
    """
    if len(a_rows) == 1:
        return ProductArgument(None, None, prove_svp(t, a_rows[0], r_a[0], rng))
    b = list(a_rows[0])
    for row in a_rows[1:]:
        b = hadamard(b, row)
    s = random_scalar(rng)
    c_b = commit(b, s)
    t.absorb(b"product", (c_b,))
    hadamard_arg = prove_hadamard(t, a_rows, r_a, s, rng)
    return ProductArgument(c_b, hadamard_arg, prove_svp(t, b, s, rng))


def verify_product(t: Transcript, c_a: Sequence[Term], b: int, arg: ProductArgument, n: int,
                   eq: Equations | None = None) -> bool:
    """Whether ``arg`` shows that the ``m × n`` entries committed in ``c_a`` multiply to ``b``.

    With ``eq``, its equations join those (checked later by the caller) and only what fails at once returns False.
    """
    own = eq is None
    eq = Equations() if eq is None else eq
    if len(c_a) == 1:
        ok = verify_svp(t, c_a[0], b, arg.svp, n, eq)
    elif arg.c_b is None or arg.hadamard is None:
        return False
    else:
        t.absorb(b"product", (arg.c_b,))
        ok = verify_hadamard(t, c_a, arg.c_b, arg.hadamard, n, eq) and verify_svp(t, arg.c_b, b, arg.svp, n, eq)
    return ok and (not own or eq.hold())
