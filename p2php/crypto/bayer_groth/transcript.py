"""The Fiat–Shamir transcript of a Bayer–Groth argument: one running digest, challenges drawn from it.

The argument is a sequence of rounds (commitments, then a challenge). Non-interactively each challenge must depend
on the whole statement and on every commitment sent before it (leaving either out is the "weak Fiat–Shamir" flaw);
a running digest gives exactly that without re-hashing the statement per challenge:

    st_0 = D(BG tag, GENS tag, statement parts…)
    st_k = D(BG-T tag, st_{k−1}, label, P_1 ‖ … ‖ P_j)        (absorbing points, each as its 33 bytes)
    ch   = Hs(BG-C tag, st_k, label)                          (a full-size challenge, protocol.md B.1)

Labels are short ASCII names, distinct for every absorb and challenge of the argument (protocol.md B.11).
"""

from __future__ import annotations

from collections.abc import Iterable

from p2php import tags
from p2php.canonical import digest
from p2php.crypto.secp256k1 import Point, hash_to_scalar

__all__ = ["Transcript"]


class Transcript:
    """The running Fiat–Shamir state of one argument; prover and verifier make the same calls in the same order."""

    __slots__ = ("_state",)

    def __init__(self, *statement: bytes) -> None:
        self._state = digest(tags.VERIFIED_BG, tags.VERIFIED_GENS, *statement)

    def absorb(self, label: bytes, points: Iterable[Point]) -> None:
        """Bind the points just sent (the identity hashes as 33 zero bytes, B.1)."""
        self._state = digest(tags.VERIFIED_BG_T, self._state, label, b"".join(p.hash_bytes() for p in points))

    def binding(self) -> bytes:
        """The running digest itself: everything absorbed so far (for a verifier's batch seed, never a challenge)."""
        return self._state

    def challenge(self, label: bytes) -> int:
        """A challenge bound to everything absorbed so far."""
        return hash_to_scalar(tags.VERIFIED_BG_C, self._state, label)
