"""Private payloads between two peers, carried inside signed broadcast messages.

Some information is for one player's eyes only ("show your hand to Ron", the slot
keys that deal a card to Hermione).  It still travels in a broadcast so that the
transcript records *that* something was sent, but sealed under a key only the sender
and the recipient can compute:

``message_key = HKDF-SHA256(X25519(me, peer), info = b"p2php/box/v1" + context)``

where ``context`` names the session, the sender seat, the recipient seat and the
message sequence number.  X25519 is symmetric, and the context is written in the
same (sender, recipient) order by both sides, so both derive the same key, and every
message has its own key.

**Zero nonce.**  :func:`seal` uses ChaCha20-Poly1305 with an all-zero nonce.  A nonce
only has to be unique per key, and each key seals exactly one message, so the zero
nonce is safe -- provided the caller never reuses a context (the sequence number
inside it guarantees that).

**Accusation evidence.**  Because every message has its own key, a recipient can
disclose that one key to the table to prove what the sender sent (the sealed bytes
are in the sender's signed message) without exposing any other message or its
long-term key.  ChaCha20-Poly1305 alone is not key-committing: a malicious sender
could craft a ciphertext that opens to different plaintexts under two keys.  So the
sealed form starts with a 32-byte hash of the key: the sender's signature then
commits it to one key, and a disclosed key that matches the hash and opens the
ciphertext settles what was sent.
"""

from __future__ import annotations

import hmac

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2php import tags
from p2php.canonical import digest
from p2php.crypto.identity import Identity
from p2php.errors import P2phpError

__all__ = ["ChannelError", "key_check", "message_key", "open_sealed", "seal"]

KEY_SIZE = 32
_NONCE = bytes(12)
_CHECK_SIZE = 32


class ChannelError(P2phpError, ValueError):
    """A sealed payload that does not open: wrong key, wrong context or tampered bytes."""


def message_key(me: Identity, peer_box_key: bytes, context: bytes) -> bytes:
    """The 32-byte key of one private message between ``me`` and the peer.

    ``context`` must include session id, sender seat, recipient seat and message
    sequence number: the key is used for exactly one message.
    """
    try:
        shared = me.shared_secret(peer_box_key)
    except ValueError as exc:
        raise ChannelError(f"unusable peer box key: {exc}") from None
    return HKDF(algorithm=hashes.SHA256(), length=KEY_SIZE, salt=None, info=tags.BOX + context).derive(
        shared
    )


def key_check(key: bytes) -> bytes:
    """The public 32-byte hash of a message key that prefixes every sealed payload."""
    return digest(tags.BOX_KEY, key)


def _aead(key: bytes) -> ChaCha20Poly1305:
    if not isinstance(key, bytes) or len(key) != KEY_SIZE:
        raise ChannelError(f"a message key is {KEY_SIZE} bytes")
    return ChaCha20Poly1305(key)


def seal(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """``key_check(key) ‖ ChaCha20-Poly1305(key, nonce=0, plaintext, aad)``.

    Use each key for one message only (see the module docstring for why the zero
    nonce is then safe).  ``aad`` is authenticated but not encrypted -- put the public
    header of the carrying message there.
    """
    return key_check(key) + _aead(key).encrypt(_NONCE, plaintext, aad)


def open_sealed(key: bytes, sealed: bytes, aad: bytes) -> bytes:
    """The plaintext of ``sealed``; :class:`ChannelError` if it does not open under ``key``."""
    aead = _aead(key)
    if not isinstance(sealed, bytes) or len(sealed) < _CHECK_SIZE + 16:
        raise ChannelError("sealed payload too short")
    if not hmac.compare_digest(sealed[:_CHECK_SIZE], key_check(key)):
        raise ChannelError("payload was sealed under another key")
    try:
        return aead.decrypt(_NONCE, sealed[_CHECK_SIZE:], aad)
    except InvalidTag:
        raise ChannelError("payload does not authenticate (tampered, or wrong aad)") from None
