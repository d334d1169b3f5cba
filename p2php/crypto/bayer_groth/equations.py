"""A verifier's equations, gathered and checked as one weighted sum (batch verification).

Every check a Bayer–Groth verifier makes is an equation ``base·G + Σ k_i·P_i = O``. Checked one at a time, a point
that appears in several of them is multiplied once per equation: the generators ``H_1 … H_n`` appear in five, and
the verifier's derived commitments (``c_D = y·c_A + c_B − z·ΣH_j``, the Hadamard chain's ``x^i·c_{B,i}``) cost
products of their own before they are used. Gathered as :class:`Form` (a linear combination kept symbolic) and
checked once as ``Σ_e ρ^e·(equation e)``, every distinct point is multiplied once.

``ρ`` is hashed from a seed that binds the statement and the whole proof, responses included (protocol.md B.11): a
prover who could choose a response after learning ``ρ`` could make two failing equations cancel. If any equation
fails, the weighted sum is ``O`` only when ``ρ`` is a root of a nonzero polynomial of degree below the number of
equations ``E``: probability below ``E/q`` for each proof tried (Schwartz–Zippel; ``E = 9``, 6 for one row).

Without a seed (a sub-argument checked on its own, as its tests do) every equation is checked as it comes.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from p2php import tags
from p2php.crypto.secp256k1 import Point, Q, commitment_generators, hash_to_scalar, lincomb

__all__ = ["Equations", "Form", "Term", "minus_ones"]


class Form:
    """``Σ k·P`` kept as its terms (no product made until the one final sum)."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[Point, int]) -> None:
        self.terms = terms

    @classmethod
    def of(cls, items: Iterable[Term], scalars: Iterable[int]) -> Form:
        """``Σ k_i·item_i``; an item may itself be a form."""
        terms: dict[Point, int] = {}
        _add(terms, items, scalars, 1)
        return cls(terms)

    def __mul__(self, k: int) -> Form:
        return Form({p: v * k for p, v in self.terms.items()})


Term = Point | Form
"""What an equation's term multiplies: a point, or a form of points."""


@functools.cache
def minus_ones(n: int) -> Form:
    """``com(−1⃗; 0) = −(H_1 + … + H_n)`` as a form: in one sum with other uses of ``H_j``, it costs no product.
    (Shared between calls: a form is never changed once made.)"""
    return Form(dict.fromkeys(commitment_generators(n)[1:], Q - 1))


def _add(total: dict[Point, int], items: Iterable[Term], scalars: Iterable[int], weight: int) -> None:
    """``total += weight·Σ k·item``, coefficients left unreduced (the one final sum reduces them mod ``q``)."""
    get = total.get
    for item, k in zip(items, scalars, strict=True):
        k *= weight
        if isinstance(item, Form):
            for p, v in item.terms.items():
                total[p] = get(p, 0) + v * k
        else:
            total[item] = get(item, 0) + k


class Equations:
    """The equations ``base·G + Σ k·term = O`` of one verification: batched under ``seed``, or checked one by one."""

    __slots__ = ("_batch", "_ok", "_rho", "_weight", "_total", "_base")

    def __init__(self, seed: bytes | None = None) -> None:
        self._batch = seed is not None
        self._ok = True
        self._rho = hash_to_scalar(tags.VERIFIED_BG_BATCH, seed) if seed is not None else 0
        self._weight = 1
        self._total: dict[Point, int] = {}
        self._base = 0

    def require(self, items: Sequence[Term], scalars: Sequence[int], base: int = 0) -> None:
        """Add the equation ``base·G + Σ scalars_i·items_i = O``."""
        if not self._batch:
            terms: dict[Point, int] = {}
            _add(terms, items, scalars, 1)
            if not lincomb(list(terms), list(terms.values()), base=base).is_identity:
                self._ok = False
            return
        _add(self._total, items, scalars, self._weight)
        self._base += base * self._weight
        self._weight = self._weight * self._rho % Q

    def hold(self) -> bool:
        """Whether every equation added holds (batched: except with probability below ``E/q``)."""
        if not self._batch:
            return self._ok
        total = self._total
        return lincomb(list(total), list(total.values()), base=self._base).is_identity
