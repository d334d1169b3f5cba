"""Joint randomness from hash chains, and commit-reveal for simultaneous choices.

**Hash chains.**  At the handshake each peer publishes the anchor ``v_0`` of a
chain ``v_{i-1} = H(binding, v_i)`` whose far end ``v_L`` only it knows.  For the
``i``-th random draw of the game every peer reveals ``v_i``; anyone checks
``H(binding, v_i) == v_{i-1}`` and :func:`combine` hashes the revealed values of all
seats into the draw.  Each value was fixed at the handshake (the anchor commits to
the whole chain) so nobody can choose its contribution after seeing the others';
the only influence left is refusing to reveal, which is visible and blamed.  One
message round per draw, no commit round needed.

``binding = digest(session_id, seat)`` is hashed into every step, so a peer cannot
copy another seat's anchor and echo its values to cancel them out.

**Commit-reveal** (:func:`commit` / :func:`check_commit`) covers choices that must
be simultaneous, e.g. secret bids: commit first, reveal once everyone committed.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from p2php import tags
from p2php.canonical import digest

__all__ = ["HashChain", "check_commit", "combine", "commit", "verify_next"]

MIN_SEED = 16
MIN_NONCE = 16
MAX_LENGTH = 1 << 20


def _step(binding: bytes, value: bytes) -> bytes:
    return digest(tags.CHAIN, binding, value)


class HashChain:
    """One peer's chain of ``length`` future reveals, all computed up front.

    Storing the whole chain costs 32 bytes a value (128 KiB for 4096 draws) and
    makes every :meth:`value` a lookup; building it is ``length`` SHA-256 calls.
    """

    __slots__ = ("binding", "length", "_values")

    def __init__(self, seed: bytes, binding: bytes, length: int) -> None:
        if not isinstance(seed, bytes) or len(seed) < MIN_SEED:
            raise ValueError(f"a chain seed needs at least {MIN_SEED} random bytes")
        if not 1 <= length <= MAX_LENGTH:
            raise ValueError(f"chain length must be in 1..{MAX_LENGTH}")
        self.binding = binding
        self.length = length
        v = digest(tags.CHAIN_SEED, seed, binding)
        values = [v]
        # ``_step(binding, v)`` with its first two parts hashed once: the chain is ``length`` steps at every
        # handshake (10 240 at a 10-peer table), and a step then costs one copy and one update.
        prefix = hashlib.sha256()
        for part in (tags.CHAIN, binding):
            prefix.update(len(part).to_bytes(8, "big") + part)
        for _ in range(length):
            h = prefix.copy()
            h.update(len(v).to_bytes(8, "big") + v)
            v = h.digest()
            values.append(v)
        values.reverse()  # values[i] is v_i; values[0] is the anchor
        self._values = values

    @property
    def anchor(self) -> bytes:
        """``v_0``, published at the handshake as the commitment to the whole chain."""
        return self._values[0]

    def value(self, i: int) -> bytes:
        """``v_i``, the ``i``-th reveal (``1 <= i <= length``)."""
        if not 1 <= i <= self.length:
            raise IndexError(f"chain reveals are numbered 1..{self.length}, got {i}")
        return self._values[i]


def verify_next(binding: bytes, previous: bytes, value: bytes) -> bool:
    """Whether ``value`` is the reveal that follows ``previous`` (the anchor or last reveal)."""
    if not isinstance(value, bytes) or not isinstance(previous, bytes):
        return False
    return hmac.compare_digest(_step(binding, value), previous)


def combine(values_in_seat_order: Sequence[bytes], label: bytes) -> bytes:
    """The 32-byte joint random value of one draw: a hash of every seat's reveal.

    ``label`` names the draw (e.g. step number and purpose), so the same reveals
    never yield the same randomness for two different uses.
    """
    return digest(tags.BEACON, label, *values_in_seat_order)


def commit(context: bytes, value: bytes, nonce: bytes) -> bytes:
    """Hiding, binding commitment to ``value``; ``context`` names session, seat and purpose.

    The nonce (>= 16 random bytes, drawn by the caller) hides low-entropy values such
    as a bid; the context stops a peer from replaying someone else's commitment.
    """
    if not isinstance(nonce, bytes) or len(nonce) < MIN_NONCE:
        raise ValueError(f"a commitment nonce needs at least {MIN_NONCE} random bytes")
    return digest(tags.COMMIT, context, value, nonce)


def check_commit(commitment: bytes, context: bytes, value: bytes, nonce: bytes) -> bool:
    """Whether ``(value, nonce)`` opens ``commitment`` in ``context``; never raises."""
    if not isinstance(commitment, bytes) or not isinstance(value, bytes) or not isinstance(nonce, bytes):
        return False
    if len(nonce) < MIN_NONCE:
        return False
    return hmac.compare_digest(commit(context, value, nonce), commitment)
