"""What every proof of a shuffle proves, and the shuffle itself: shared by Terelius–Wikström and Bayer–Groth.

Statement: ``e'_i = remask(e_{π(i)}, ρ_i)`` for ``i = 1 … N`` under the joint key ``Y`` and a context
(protocol.md B.7, B.11). Both proofs check the same statement the same way before any group operation, and a pass
draws its permutation and re-masking exponents the same way whichever proof it carries.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2php.crypto.elgamal import Ciphertext, remask
from p2php.crypto.proofs import MalformedProof, check_context
from p2php.crypto.secp256k1 import Point, random_scalar
from p2php.rng import DetRng

__all__ = ["MAX_SHUFFLE", "check_statement", "shuffle"]

#: The most ciphertexts one shuffle may hold: a verifier refuses larger statements before any group operation
#: (checking costs about 8·N scalar products, so 1024 bounds one check at roughly 0.5 s here). A secret-composition
#: deck's selection pass shuffles its owner's whole pool (688 instance ids for a TCG seat), hence not 512.
MAX_SHUFFLE = 1024


def check_statement(ctx: object, y: object, inputs: object, outputs: object) -> int:
    """``N`` after checking sizes, bounds and that every statement element is a point other than the identity."""
    check_context(ctx)
    if not isinstance(y, Point) or y.is_identity:
        raise MalformedProof("the joint key must be a point other than the identity")
    if not isinstance(inputs, Sequence) or not isinstance(outputs, Sequence):
        raise MalformedProof("the inputs and outputs of a shuffle are sequences of ciphertexts")
    n = len(inputs)
    if not 1 <= n <= MAX_SHUFFLE:
        raise MalformedProof(f"a shuffle holds 1 to {MAX_SHUFFLE} ciphertexts, not {n}")
    if len(outputs) != n:
        raise MalformedProof(f"a shuffle of {n} ciphertexts has {len(outputs)} outputs")
    for ct in (*inputs, *outputs):
        if not isinstance(ct, Ciphertext) or not isinstance(ct.a, Point) or not isinstance(ct.b, Point):
            raise MalformedProof("a shuffle's elements must be ciphertexts")
        if ct.a.is_identity or ct.b.is_identity:
            raise MalformedProof("a ciphertext component is the identity")
    return n


def shuffle(y: Point, deck: Sequence[Ciphertext], rng: DetRng) -> tuple[list[Ciphertext], list[int], list[int]]:
    """``(outputs, π, ρ)`` with ``outputs[i] = remask(deck[π[i]], ρ[i])``; ``π`` then ``ρ`` drawn from ``rng``."""
    perm = rng.permutation(len(deck))
    rhos = [random_scalar(rng) for _ in deck]
    return [remask(y, deck[j], rho) for j, rho in zip(perm, rhos, strict=True)], perm, rhos
