"""Peer identities: an Ed25519 signing key and an X25519 key-agreement key.

Every message a peer broadcasts is signed, so a transcript is evidence: a cheater
cannot deny what it sent, and nobody can put words in its mouth.  The X25519 key lets
any two peers agree on per-message keys for private payloads
(:mod:`p2php.crypto.channel`).  Both keys are derived from one 32-byte secret with
HKDF (distinct ``info`` labels), so a peer stores or backs up a single secret.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import cached_property

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from p2php import tags
from p2php.canonical import digest

__all__ = ["Identity", "PublicIdentity", "SECRET_SIZE", "usable_box_key"]

SECRET_SIZE = 32
KEY_SIZE = 32
SIGNATURE_SIZE = 64


def _subkey(secret: bytes, label: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=label).derive(secret)


_PROBE = X25519PrivateKey.from_private_bytes(bytes([1]) * 32)  # any key: X25519 clamps it to a multiple of 8


def usable_box_key(box_key: object) -> bool:
    """Whether ``box_key`` is 32 bytes that X25519 agrees a secret with: not a point of small order.

    X25519 multiplies by a clamped scalar (a multiple of the cofactor 8), so the shared secret is zero -- and
    ``cryptography`` raises -- for every private key at once exactly when the peer's point has small order (the
    encodings of 0, 1, -1, the two points of order 8, and their non-canonical copies). One probe tells.
    """
    if not isinstance(box_key, bytes) or len(box_key) != KEY_SIZE:
        return False
    try:
        _PROBE.exchange(X25519PublicKey.from_public_bytes(box_key))
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class PublicIdentity:
    """What a peer announces at the handshake: its two raw 32-byte public keys."""

    sign_key: bytes
    box_key: bytes

    def verify(self, sig: bytes, data: bytes) -> bool:
        """Whether ``sig`` is this peer's signature of ``data``.

        Inputs come straight off the network, so anything malformed (wrong lengths,
        non-bytes, an invalid key) is simply ``False``, never an exception.
        """
        if not (isinstance(sig, bytes) and isinstance(data, bytes) and isinstance(self.sign_key, bytes)):
            return False
        if len(sig) != SIGNATURE_SIZE or len(self.sign_key) != KEY_SIZE:
            return False
        key = self._sign_public
        if key is None:
            return False
        try:
            key.verify(sig, data)
        except (InvalidSignature, ValueError):
            return False
        return True

    @cached_property
    def _sign_public(self) -> Ed25519PublicKey | None:
        """The parsed signing key, once per peer rather than once per message (``None``: not a valid key)."""
        try:
            return Ed25519PublicKey.from_public_bytes(self.sign_key)
        except (ValueError, TypeError):
            return None

    def fingerprint(self) -> str:
        """Short hex digest of both keys (16 hex digits), for people to compare on screen."""
        return hashlib.sha256(digest(tags.FINGERPRINT, self.sign_key, self.box_key)).hexdigest()[:16]


class Identity:
    """A peer's private keys.  Build it with :meth:`from_secret` (or :meth:`generate`)."""

    __slots__ = ("_sign", "_box", "public")

    def __init__(self, sign: Ed25519PrivateKey, box: X25519PrivateKey) -> None:
        self._sign = sign
        self._box = box
        self.public = PublicIdentity(
            sign.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw),
            box.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw),
        )

    @classmethod
    def from_secret(cls, secret: bytes) -> Identity:
        """Derive both keys from a 32-byte secret (deterministic: same secret, same peer)."""
        if not isinstance(secret, bytes) or len(secret) != SECRET_SIZE:
            raise ValueError(f"an identity secret is {SECRET_SIZE} random bytes")
        sign = Ed25519PrivateKey.from_private_bytes(_subkey(secret, tags.IDENTITY_SIGN))
        box = X25519PrivateKey.from_private_bytes(_subkey(secret, tags.IDENTITY_BOX))
        return cls(sign, box)

    @classmethod
    def generate(cls) -> Identity:
        """A fresh identity from ``os.urandom`` (the one place this package draws randomness)."""
        return cls.from_secret(os.urandom(SECRET_SIZE))

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data``."""
        return self._sign.sign(data)

    def shared_secret(self, peer_box_key: bytes) -> bytes:
        """Raw X25519 shared secret with a peer; use :func:`channel.message_key`, not this.

        Raises ``ValueError`` for a malformed or low-order peer key.
        """
        if not isinstance(peer_box_key, bytes) or len(peer_box_key) != KEY_SIZE:
            raise ValueError("a box key is 32 raw bytes")
        return self._box.exchange(X25519PublicKey.from_public_bytes(peer_box_key))

    def __repr__(self) -> str:
        return f"Identity({self.public.fingerprint()})"
