"""ElGamal on secp256k1 under a joint key: masking, re-masking, decryption shares, cards as points.

Every seat ``p`` holds a key share ``x_p`` and publishes ``Y_p = x_p·G`` (with a Schnorr proof,
:func:`p2php.crypto.proofs.prove_key`); the joint key is ``Y = Σ Y_p``, whose secret ``Σ x_p`` nobody knows. A card
is a point ``M`` (:func:`card_point`) and its ciphertext is ``(a, b) = (r·G, M + r·Y)``. Anyone can re-mask a
ciphertext, ``(a + ρ·G, b + ρ·Y)``, which changes every byte of it and not the card; only all seats together can
open it: each sends its share ``D_p = x_p·a`` (with a Chaum–Pedersen proof) and ``M = b − Σ D_p``.

Sans-IO and deterministic: exponents come in as arguments (drawn by the caller from a :class:`~p2php.rng.DetRng`).
protocol.md Appendix B.3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from p2php import tags
from p2php.crypto.secp256k1 import (
    POINT_SIZE,
    InvalidEncoding,
    Point,
    base_mul,
    decode_point,
    generator,
    hash_to_group,
    lincomb,
    sum_points,
)

__all__ = [
    "CIPHERTEXT_SIZE",
    "Ciphertext",
    "NotACard",
    "card_point",
    "card_table",
    "combine_shares",
    "decryption_share",
    "encrypt",
    "initial_deck",
    "joint_key",
    "open_card",
    "public_share",
    "remask",
]

#: Size of an encoded ciphertext: ``a`` then ``b``, each 33 bytes.
CIPHERTEXT_SIZE = 2 * POINT_SIZE


class NotACard(InvalidEncoding):
    """A decrypted point that is no card of the deck (a wrong share or a forged ciphertext)."""


@dataclass(frozen=True, slots=True)
class Ciphertext:
    """An ElGamal ciphertext ``(a, b) = (r·G, M + r·Y)``."""

    a: Point
    b: Point

    def encode(self) -> bytes:
        """66 bytes: ``a`` then ``b`` compressed (raises :class:`InvalidEncoding` if either is the identity)."""
        return self.a.encode() + self.b.encode()

    def hash_bytes(self) -> bytes:
        """The 66 bytes hashed into a transcript (the identity as 33 zero bytes)."""
        return self.a.hash_bytes() + self.b.hash_bytes()

    @classmethod
    def decode(cls, data: object) -> Ciphertext:
        """Strictly decode 66 bytes (two canonical points, neither the identity)."""
        if not isinstance(data, bytes) or len(data) != CIPHERTEXT_SIZE:
            got = f"{len(data)} bytes" if isinstance(data, bytes | bytearray) else type(data).__name__
            raise InvalidEncoding(f"a ciphertext is {CIPHERTEXT_SIZE} bytes, got {got}")
        return cls(decode_point(data[:POINT_SIZE]), decode_point(data[POINT_SIZE:]))


def public_share(x: int) -> Point:
    """``Y_p = x_p·G``, the public half of a key share."""
    return base_mul(x)


def joint_key(shares: Sequence[Point]) -> Point:
    """``Y = Σ Y_p``; refuses no shares or a sum that is the identity (shares cancelling out)."""
    if not shares:
        raise ValueError("a joint key needs at least one share")
    y = sum_points(shares)
    if y.is_identity:
        raise InvalidEncoding("the key shares sum to the identity")
    return y


def encrypt(y: Point, m: Point, r: int) -> Ciphertext:
    """``(r·G, M + r·Y)``."""
    return Ciphertext(base_mul(r), m + y * r)


def remask(y: Point, ct: Ciphertext, rho: int) -> Ciphertext:
    """``(a + ρ·G, b + ρ·Y)``: the same card under fresh randomness."""
    return Ciphertext(lincomb((ct.a,), (1,), base=rho), lincomb((ct.b, y), (1, rho)))


def decryption_share(x: int, ct: Ciphertext) -> Point:
    """``D_p = x_p·a``, one seat's share of opening ``ct``."""
    return ct.a * x


def combine_shares(ct: Ciphertext, shares: Sequence[Point]) -> Point:
    """``M = b − Σ D_p``: the card point, once every seat's share is in."""
    return ct.b - sum_points(shares)


def card_point(deck: bytes, index: int) -> Point:
    """The point of card ``index`` of the deck named ``deck``: ``hash_to_group(CARD tag, deck, u32(index))``."""
    if not 0 <= index < 1 << 32:
        raise ValueError(f"a card index is a u32, got {index}")
    return hash_to_group(tags.VERIFIED_CARD, deck, index.to_bytes(4, "big"))


def card_table(deck: bytes, n: int) -> dict[Point, int]:
    """The lookup table from card point back to index, for cards ``0 … n-1``."""
    return {card_point(deck, i): i for i in range(n)}


def open_card(table: Mapping[Point, int], m: Point) -> int:
    """The index of card point ``m``; :class:`NotACard` if it is none of the table's."""
    try:
        return table[m]
    except KeyError:
        raise NotACard(f"{m!r} is not a card of this deck") from None


def initial_deck(y: Point, cards: Sequence[Point]) -> list[Ciphertext]:
    """The public starting deck ``(G, M_c + Y)``: encryption with ``r = 1``, which everyone can check.

    The "trivial" ciphertext ``(O, M_c)`` would do as well in theory, but the identity has no wire encoding.
    """
    g = generator()
    return [Ciphertext(g, m + y) for m in cards]
