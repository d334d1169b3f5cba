"""A version-independent deterministic random generator.

Python's :mod:`random` may change its algorithms between versions (``shuffle`` and
``randrange`` have), which would break replay of old transcripts, so p2php uses its
own: a SHA-256 counter stream.  Block ``i`` is ``SHA-256(seed || i)`` (``i`` as 8
big-endian bytes); integers are drawn 8 bytes at a time and reduced without bias by
rejection sampling; shuffles are Fisher–Yates from the last index down.

The generator is used for every random choice inside an engine (seeded from joint
randomness, see :mod:`p2php.crypto.beacon`), for the secret permutations of a
mental-poker shuffle (seeded from a peer's private secret), and for bots.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

from p2php import tags

T = TypeVar("T")

_LIMIT = 1 << 64
_WORDS = struct.Struct(">4Q").unpack  # a block's four 8-byte words, big-endian
_BOUNDS = tuple(_LIMIT - (_LIMIT % n) if n else 0 for n in range(1025))
"""``below(n)``'s rejection bound for each ``n`` up to 1024 (a 64-bit word at or above it is drawn again)."""


def _words_of(seed: bytes, counter: int, blocks: int) -> tuple[int, ...]:
    """The 8-byte words of ``blocks`` stream blocks from block ``counter`` on, in order."""
    sha256 = hashlib.sha256
    return struct.unpack(f">{4 * blocks}Q", b"".join([sha256(seed + c.to_bytes(8, "big")).digest()
                                                       for c in range(counter, counter + blocks)]))


class DetRng:
    """Deterministic generator over a SHA-256 counter stream."""

    __slots__ = ("_seed", "_counter", "_words", "_pos")

    def __init__(self, seed: bytes | str | int) -> None:
        if isinstance(seed, int):
            seed = seed.to_bytes(16, "big", signed=True)
        elif isinstance(seed, str):
            seed = seed.encode()
        self._seed = hashlib.sha256(tags.RNG + seed).digest()
        self._counter = 0
        self._words: tuple[int, ...] = ()
        self._pos = 4

    def _word(self) -> int:
        """The next 8-byte word of the stream (a block's four words are unpacked at once: the hot path
        of every shuffle and every bot's choice)."""
        pos = self._pos
        if pos == 4:
            self._words = _WORDS(hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest())
            self._counter += 1
            pos = 0
        self._pos = pos + 1
        return self._words[pos]

    def bytes(self, n: int) -> bytes:
        """``n`` pseudo-random bytes."""
        out = bytearray()
        while len(out) < n:
            out += self._word().to_bytes(8, "big")
        return bytes(out[:n])

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        if n == 1:
            return 0
        if n > _LIMIT:
            # Wide ranges (scalars of an elliptic-curve group): draw enough words.
            words = (n.bit_length() + 63) // 64 + 1
            bound = (1 << (64 * words)) // n * n
            while True:
                x = 0
                for _ in range(words):
                    x = (x << 64) | self._word()
                if x < bound:
                    return x % n
        bound = _LIMIT - (_LIMIT % n)
        while True:
            pos = self._pos  # _word(), inline: one draw per bot decision
            if pos == 4:
                self._words = _WORDS(hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest())
                self._counter += 1
                pos = 0
            self._pos = pos + 1
            x = self._words[pos]
            if x < bound:
                return x % n

    def choice(self, items: Sequence[T]) -> T:
        """A uniformly chosen element of a non-empty sequence."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates shuffle in place (from the last index down)."""
        # below(i + 1) for each i, drawing the same words in the same order as below() would: the words a
        # shuffle of m items needs (m - 1, and one more per rejection, about never) are made at once, the
        # blocks hashed in one list and unpacked in one call, and the generator is left where it would be.
        m = len(items)
        if m < 2:
            return
        pos, counter, seed = self._pos, self._counter, self._seed
        stream = list(self._words[pos:])  # what is left of the current block (nothing when pos == 4)
        have = len(stream)
        made = -(-(m - 1 - have) // 4) if m - 1 > have else 0  # new blocks
        if made:
            stream += _words_of(seed, counter, made)
        bounds, nb, idx = _BOUNDS, len(_BOUNDS), 0
        for i in range(m - 1, 0, -1):
            n = i + 1
            bound = bounds[n] if n < nb else _LIMIT - (_LIMIT % n)
            x = stream[idx]
            idx += 1
            while x >= bound:  # rejected (probability n / 2**64): the next word, and a block more for the rest
                stream += _words_of(seed, counter + made, 1)
                made += 1
                x = stream[idx]
                idx += 1
            j = x % n
            items[i], items[j] = items[j], items[i]
        if idx <= have:
            self._pos = pos + idx
            return
        used = idx - have  # words taken from new blocks: the last one opened holds the next word
        opened = -(-used // 4)
        self._counter = counter + opened
        self._words = tuple(stream[have + 4 * (opened - 1): have + 4 * opened])
        self._pos = used - 4 * (opened - 1)

    def permutation(self, n: int) -> list[int]:
        """A uniformly random permutation of ``range(n)``."""
        p = list(range(n))
        self.shuffle(p)
        return p
