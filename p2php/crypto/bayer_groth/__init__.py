"""The Bayer–Groth shuffle argument (Eurocrypt 2012) on secp256k1: a proof of a shuffle in O(√N) elements.

One concept per module, bottom up: :mod:`.commitments` (Pedersen vector commitments, the ``⋆`` map),
:mod:`.transcript` (the Fiat–Shamir state), :mod:`.svp` (single-value product), :mod:`.zero`, :mod:`.hadamard`,
:mod:`.product`, :mod:`.multiexp` (its prover's diagonals in :mod:`.diagonals`), and :mod:`.shuffle`, which composes
them with the interface of :mod:`p2php.crypto.shuffle_proof`; every verifier equation goes to :mod:`.equations`,
which checks them as one weighted sum. Specified in protocol.md Appendix B.11.
"""

from __future__ import annotations

from p2php.crypto.bayer_groth.shuffle import (
    MAX_SHUFFLE,
    BgShuffleProof,
    proof_size,
    prove_shuffle,
    shape,
    shuffle,
    shuffle_and_prove,
    verify_shuffle,
    verify_shuffles,
)

__all__ = [
    "MAX_SHUFFLE",
    "BgShuffleProof",
    "proof_size",
    "prove_shuffle",
    "shape",
    "shuffle",
    "shuffle_and_prove",
    "verify_shuffle",
    "verify_shuffles",
]
