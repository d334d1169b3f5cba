"""The handshake: who sits where, with which keys, playing what.

Each peer sends one signed ``hello`` on every connection before anything else.
All peers must agree on the protocol version, game, options and player count;
each hello carries the peer's Ed25519 and X25519 public keys, the anchor of its
randomness hash chain and a fresh nonce.  The session id is the hash of all
hellos in seat order, so it is unique to this table, and every later signature
is bound to it.
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass, field
from typing import Any

from p2php import PROTOCOL_VERSION, tags
from p2php.canonical import digest, encode
from p2php.crypto.beacon import HashChain
from p2php.crypto.identity import Identity, PublicIdentity, usable_box_key
from p2php.errors import P2phpError, RefusalCode
from p2php.net.framing import MAX_VALUES, VALUE_BYTES, body_values
from p2php.text import NAME, lookalike_keys, quote, safe, with_seat

CHAIN_LENGTH = 1024
"""Randomness draws one hash chain holds (one per Randomness step); a longer game renews the chain (§8)."""


class HandshakeRefused(P2phpError, ValueError):
    """A hello that does not match this table (or is badly signed); ``code`` says which check failed."""

    def __init__(self, code: RefusalCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass
class LocalSecrets:
    """Everything secret about one peer in one game, derived from a 32-byte master.

    The master never leaves the peer.  At the audit the peer releases only
    ``decks_secret`` (from which every deck seed follows), so its identity keys
    stay private even after the game.
    """

    master: bytes = field(default_factory=lambda: os.urandom(32))

    def __post_init__(self) -> None:
        if not isinstance(self.master, bytes) or len(self.master) != 32:
            raise ValueError("a peer's master secret is exactly 32 bytes")
        self.identity = Identity.from_secret(digest(tags.IDENTITY, self.master))
        self.decks_secret = digest(tags.DECKS, self.master)
        self._chain_seed = digest(tags.BEACON_SEED, self.master)
        self.nonce = digest(tags.NONCE, self.master)

    def chain(self, binding: bytes, renewal: int = 0) -> HashChain:
        """The peer's hash chain, or its ``renewal``-th successor (announced when the one before runs out).

        Renewed chains come from the same master (a resumed peer rebuilds them), each from
        its own seed, so a value of one chain says nothing about the next.
        """
        cache: dict[tuple[bytes, int], HashChain] = self.__dict__.setdefault("_chains", {})
        if (binding, renewal) not in cache:
            seed = self._chain_seed if renewal == 0 else digest(tags.CHAIN_RENEW, self._chain_seed,
                                                                 renewal.to_bytes(4, "big"))
            cache[binding, renewal] = HashChain(seed, binding, CHAIN_LENGTH)
        return cache[binding, renewal]


def deck_seed(decks_secret: bytes, deck_number: int) -> bytes:
    return digest(tags.DECK_SEED, decks_secret, deck_number.to_bytes(4, "big"))


def chain_binding(seat: int, sign_key: bytes) -> bytes:
    """Binds a hash chain to its owner so no peer can copy another's anchor."""
    return digest(tags.CHAIN_BINDING, seat.to_bytes(2, "big"), sign_key)


def make_hello(
    secrets: LocalSecrets, seat: int, players: int, game: str, options: dict[str, Any], name: str,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Our signed hello; ``extra`` adds fields (a rematch's, §3.9), signed like the rest."""
    pub = secrets.identity.public
    chain = secrets.chain(chain_binding(seat, pub.sign_key))
    hello: dict[str, Any] = {
        "hello": PROTOCOL_VERSION,
        "game": game,
        "options": options,
        "players": players,
        "seat": seat,
        "name": name,
        "sign_key": pub.sign_key,
        "box_key": pub.box_key,
        "anchor": chain.anchor,
        "chain": CHAIN_LENGTH,
        "nonce": secrets.nonce,
        **(extra or {}),
    }
    hello["sig"] = secrets.identity.sign(digest(tags.HELLO, encode(hello)))
    return hello


@dataclass(frozen=True)
class Table:
    """What every peer agreed on in the handshake."""

    game: str
    options: dict[str, Any]
    hellos: tuple[dict[str, Any], ...]

    @property
    def players(self) -> int:
        return len(self.hellos)

    @property
    def session_id(self) -> bytes:
        return digest(tags.SESSION, encode(list(self.hellos)))

    @property
    def safety_code(self) -> str:
        """A short code every seat compares aloud: equal codes mean one table with the same keys.

        100 bits of ``D("p2php/safety/v1", session_id, sign_key_0, …)`` in base32, five
        groups of four.  A lobby host that lies can split a table into two games that
        each look clean; their codes differ (finding two sessions with equal codes
        takes about 2^50 work), so only comparing the code shows it (protocol.md §4.4).
        """
        keys = [h["sign_key"] for h in self.hellos]
        code = base64.b32encode(digest(tags.SAFETY, self.session_id, *keys)[:15]).decode()[:20]
        return "-".join(code[i : i + 4] for i in range(0, 20, 4))

    def public(self, seat: int) -> PublicIdentity:
        h = self.hellos[seat]
        return PublicIdentity(sign_key=h["sign_key"], box_key=h["box_key"])

    def name(self, seat: int) -> str:
        """The seat's name as its hello gives it, safe to show anywhere: what a terminal, a page or a log would act
        on instead of showing (a newline, a bidi override, a zero-width space) is written out, and it is cut at
        :data:`~p2php.text.NAME` characters. A hello's name is the peer's own word, checked by nobody (not even
        against the name its seat took in the lobby): a name another seat's hello also gives (case and outer
        spaces aside) is shown with its seat, ``ann (seat 1)``, so nobody's moves read as another's."""
        shown = self._shown(seat)
        keys = _name_keys(shown)
        if any(other != seat and _name_keys(self._shown(other)) & keys for other in range(self.players)):
            return with_seat(shown, seat)
        return shown

    def _shown(self, seat: int) -> str:
        return safe(self.hellos[seat].get("name", f"seat {seat}"), NAME)


_SEAT_SUFFIX = re.compile(r"(?:\s*\(seat \d+\))+\s*$")


def _name_keys(shown: str) -> frozenset[str]:
    """What two names are compared by (they clash if they share a key): case, outer spaces, letters drawn alike
    (:func:`~p2php.text.lookalike_keys`: "Ann" and "Аnn" with a Cyrillic "А") and a made-up ``(seat N)`` of their
    own aside (a seat calling itself "ann (seat 0)" reads as seat 0's ann, so it clashes with "ann" too)."""
    return lookalike_keys(_SEAT_SUFFIX.sub("", shown).strip())


def check_hello(
    hello: Any, *, seat: int | None, players: int, game: str, options: dict[str, Any]
) -> dict[str, Any]:
    """Validate a peer's hello against this table; returns it, or raises :class:`HandshakeRefused`."""
    if not isinstance(hello, dict):
        raise HandshakeRefused(RefusalCode.MALFORMED, "hello is not a map")
    fields = {
        "hello": int, "game": str, "options": dict, "players": int, "seat": int, "name": str,
        "sign_key": bytes, "box_key": bytes, "anchor": bytes, "chain": int, "nonce": bytes, "sig": bytes,
    }
    for key, kind in fields.items():
        if not isinstance(hello.get(key), kind) or (kind is int and isinstance(hello.get(key), bool)):
            raise HandshakeRefused(RefusalCode.MALFORMED, f"hello field {key!r} is missing or not a {kind.__name__}")
    who = f"hello from seat {hello['seat']} ({quote(hello['name'], 40)})"
    if hello["hello"] != PROTOCOL_VERSION:
        raise HandshakeRefused(RefusalCode.VERSION,
                               f"{who}: protocol version {hello['hello']}, we speak {PROTOCOL_VERSION}")
    if hello["game"] != game:
        raise HandshakeRefused(RefusalCode.GAME, f"{who}: game {quote(hello['game'], 40)}, this table plays {game!r}")
    if encode(hello["options"]) != encode(options):
        raise HandshakeRefused(RefusalCode.OPTIONS,
                               f"{who}: options {safe(hello['options'], 200)} differ from this table's {options}")
    if hello["players"] != players:
        raise HandshakeRefused(RefusalCode.PLAYERS, f"{who}: {hello['players']} players, this table has {players}")
    if seat is not None and hello["seat"] != seat:
        raise HandshakeRefused(RefusalCode.SEAT, f"{who}: claims seat {hello['seat']}, expected seat {seat}")
    if not 0 <= hello["seat"] < players:
        raise HandshakeRefused(RefusalCode.SEAT, f"{who}: seat out of range")
    for key in ("sign_key", "box_key", "anchor", "nonce"):
        if len(hello[key]) != 32:
            raise HandshakeRefused(RefusalCode.KEYS, f"{who}: {key} must be 32 bytes")
    if not usable_box_key(hello["box_key"]):  # else every private show to or from it fails in the honest peer
        raise HandshakeRefused(RefusalCode.KEYS, f"{who}: box_key is a point of small order (no shared secret)")
    if hello["chain"] < 1 or hello["chain"] > 1 << 20:
        raise HandshakeRefused(RefusalCode.KEYS, f"{who}: bad chain length")
    # What a record of the table affords (§4.3, rt6-dense): a transcript reader's budget is a value per 4 bytes of the
    # file, and a resume log's header holds every hello in one frame. A hello packed with one-byte values in a field
    # no hello has (tolerated) made every honest record of a clean game unreadable by p2php verify.
    wire = encode(hello)
    values = body_values(wire)
    most = MAX_VALUES // 2 // max(players, 1)
    if VALUE_BYTES * values > len(wire) or values > most:
        raise HandshakeRefused(RefusalCode.MALFORMED, f"{who}: {values} values in {len(wire)} bytes (a hello holds at "
                               f"most one for every {VALUE_BYTES} bytes, and {most} at a "
                               f"table of {players})")
    unsigned = {k: v for k, v in hello.items() if k != "sig"}
    pub = PublicIdentity(sign_key=hello["sign_key"], box_key=hello["box_key"])
    if not pub.verify(hello["sig"], digest(tags.HELLO, encode(unsigned))):
        raise HandshakeRefused(RefusalCode.SIGNATURE, f"{who}: bad signature")
    return hello
