"""Every frame after the handshake is authenticated on its link (sans-IO; protocol.md §3.2, "Link keys").

Messages are signed by their authors, but a connection also carries unsigned
transport frames, and a *direct* message that fails its checks is blamed on the
seat whose connection it came on.  Without a per-frame check, anyone who can
write into a TCP connection (an on-path attacker, a broken middlebox, a buggy
proxy) could make an honest seat look like a cheater.  So the handshake also
agrees on two link keys, and every later frame carries a 16-byte tag:

* both ends send an ephemeral X25519 public key with their challenge; the link
  proof signs both of them, so nobody in the middle can swap them;
* ``HKDF-SHA256(X25519 shared secret, salt = D(LINK_KEYS, transcript))`` gives one
  key per direction, so a frame cannot be reflected back to its sender;
* a frame's tag is ``HMAC-SHA256(key, u64(n) || body)[:16]`` with ``n`` the frame's
  number in its direction, so a frame cannot be replayed, dropped or reordered
  without the next tag failing.

A frame whose tag fails ends the connection like any framing error: the bytes
were not the peer's, so nobody is named, and the usual redial and catch-up
(§3.5) repair the link.  What arrives with a good tag was written by the peer.
"""

from __future__ import annotations

import hashlib
import hmac

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2php import tags
from p2php.canonical import digest
from p2php.errors import P2phpError

TAG_SIZE = 16
"""Bytes of authentication tag at the end of every frame after the handshake."""
KX_SIZE = 32
"""Bytes of an X25519 public key, as sent in the challenge frame."""


class LinkKeyError(P2phpError, ValueError):
    """The peer's key-exchange value is malformed or gives no usable shared secret."""


class LinkMac:
    """The tags of one direction of one link: frame ``n`` is tagged over ``u64(n) || body``."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("a link key is 32 bytes")
        self._key = key
        self.count = 0
        """Frames tagged (sending) or checked (receiving) so far in this direction."""

    def __repr__(self) -> str:  # never show the key
        return f"LinkMac(count={self.count})"

    def _tag(self, body: bytes | bytearray | memoryview) -> bytes:
        mac = hmac.new(self._key, self.count.to_bytes(8, "big"), hashlib.sha256)
        mac.update(body)
        return mac.digest()[:TAG_SIZE]

    def tag(self, body: bytes | bytearray | memoryview) -> bytes:
        """The tag of the next frame we send."""
        out = self._tag(body)
        self.count += 1
        return out

    def check(self, body: bytes | bytearray | memoryview, tag: bytes | bytearray | memoryview) -> bool:
        """Whether ``tag`` is the next frame's tag over ``body`` (the count moves on either way)."""
        ok = hmac.compare_digest(self._tag(body), bytes(tag))
        self.count += 1
        return ok


class KeyExchange:
    """Our side of the link key agreement: one fresh X25519 key per connection."""

    def __init__(self, private: bytes | None = None) -> None:
        """A fresh key pair; ``private`` (32 bytes) only for known-answer vectors, never for a real link."""
        self._private = X25519PrivateKey.generate() if private is None else X25519PrivateKey.from_private_bytes(
            private)
        self.public = self._private.public_key().public_bytes_raw()
        """What we send in our challenge frame (32 bytes)."""

    def __repr__(self) -> str:
        return "KeyExchange(<secret>)"

    def link_macs(self, theirs: object, transcript: bytes, dialer: bool) -> tuple[LinkMac, LinkMac]:
        """``(send, receive)`` for this link, from the peer's public value and the handshake transcript.

        ``transcript`` is what both ends hash identically (both hellos, both challenges,
        both public values); ``dialer`` says which direction is ours.
        """
        if not isinstance(theirs, bytes) or len(theirs) != KX_SIZE:
            raise LinkKeyError("the key-exchange value must be 32 bytes")
        try:
            shared = self._private.exchange(X25519PublicKey.from_public_bytes(theirs))
        except ValueError as err:  # a low-order point: the shared secret would be all zeros
            raise LinkKeyError("the key-exchange value gives no shared secret") from err
        keys = HKDF(algorithm=hashes.SHA256(), length=64, salt=digest(tags.LINK_KEYS, transcript),
                    info=tags.LINK_KEYS).derive(shared)
        dial_to_accept, accept_to_dial = LinkMac(keys[:32]), LinkMac(keys[32:])
        return (dial_to_accept, accept_to_dial) if dialer else (accept_to_dial, dial_to_accept)


def seal_frame(frame: bytes, mac: LinkMac) -> bytes:
    """A frame (``u32(L) || body``, from :func:`~p2php.net.framing.encode_frame`) with its tag appended.

    The length prefix then counts the tag too: ``u32(L + 16) || body || tag``.
    """
    body = memoryview(frame)[4:]
    return (len(body) + TAG_SIZE).to_bytes(4, "big") + body + mac.tag(body)
