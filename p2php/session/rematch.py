"""A rematch: the same people at the same seats play again, in a fresh session (protocol.md §3.9).

Nothing carries over from the ended game but who sits where.  Each seat that wants to play again makes a new
hello with a fresh master secret (so new keys, a new nonce, new randomness, new deck secrets: the ended game's
audit published its deck secrets, so reusing them would hand the new deals to everyone), and puts in it

    "rematch": {"of": old_session_id, "sig": Ed25519-Sign(old seat key, rematch_bytes(...))}

the ended session's id and its *old* seat key's signature over the new keys.  The hello's own signature covers
the field, so it enters the new session id too.  A seat forming a rematch accepts only hellos that carry such
a field for the same ended session, vouched for by that seat's key of the ended session, with keys that are not
the old ones.  The mesh forms only when every seat has done so: that is the agreement, and the new table's
seats are provably the old table's seats (the people who compared the old safety code need not trust a new
one more than the old).  A seat that never comes back leaves the others' formation to time out
(:data:`REMATCH_WAIT`), naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from p2php import tags
from p2php.canonical import digest
from p2php.errors import RefusalCode
from p2php.session.handshake import HandshakeRefused, LocalSecrets, Table

REMATCH_WAIT = 120.0
"""Seconds the seats of a rematch have to agree (each to press its rematch button): the formation deadline."""


def again_seed(seed: object, game_no: int) -> str:
    """The seed of the ``game_no``-th game at a table for its bots (and a test table's seeded secrets): the first
    game's as it always was, every rematch's another, so a seeded rematch never replays keys or deals."""
    return f"{seed}" if game_no == 0 else f"{seed}/rematch{game_no}"


def rematch_bytes(old_session: bytes, seat: int, sign_key: bytes, box_key: bytes, nonce: bytes) -> bytes:
    """What the old seat key signs: ``D("p2php/rematch/v1", old_session_id, u16(seat), sign_key, box_key, nonce)``."""
    return digest(tags.REMATCH, old_session, seat.to_bytes(2, "big"), sign_key, box_key, nonce)


@dataclass(frozen=True)
class Rematch:
    """This seat's wish to play the ended session ``table`` again: the old table and our old seat key."""

    table: Table
    seat: int
    sign: Callable[[bytes], bytes]

    @classmethod
    def of(cls, ls: Any) -> Rematch:
        """The rematch of a seat's ended game (a :class:`~p2php.session.lockstep.Lockstep` with a seat)."""
        if ls.seat is None or ls.secrets is None:
            raise ValueError("only a seat (not a spectator) can ask for a rematch")
        if not ls.finished:
            raise ValueError("the game has not ended: a rematch comes after the verdict")
        return cls(ls.table, ls.seat, ls.secrets.identity.sign)

    def vouch(self, secrets: LocalSecrets) -> dict[str, Any]:
        """The hello field ``rematch`` for our new ``secrets`` (which must be fresh)."""
        pub = secrets.identity.public
        if pub.sign_key == self.table.hellos[self.seat]["sign_key"]:
            raise ValueError("a rematch needs fresh secrets: these are the ended game's")
        data = rematch_bytes(self.table.session_id, self.seat, pub.sign_key, pub.box_key, secrets.nonce)
        return {"of": self.table.session_id, "sig": self.sign(data)}

    def check(self, seat: int, hello: dict[str, Any]) -> None:
        """Refuse (:class:`HandshakeRefused`) a hello that is not ``seat``'s vouched-for hello for this rematch.

        ``hello`` already passed :func:`~p2php.session.handshake.check_hello` (types, sizes, its signature).
        """
        field = hello.get("rematch")
        old = self.table
        if not isinstance(field, dict) or set(field) != {"of", "sig"}:
            raise HandshakeRefused(RefusalCode.MALFORMED, f"seat {seat}'s hello asks for no rematch")
        if field["of"] != old.session_id:
            raise HandshakeRefused(RefusalCode.MALFORMED, f"seat {seat} asks for the rematch of another game")
        if not 0 <= seat < old.players:
            raise HandshakeRefused(RefusalCode.SEAT, f"seat {seat} did not sit at the ended table")
        before = old.hellos[seat]
        if hello["sign_key"] == before["sign_key"] or hello["nonce"] == before["nonce"]:
            raise HandshakeRefused(RefusalCode.KEYS, f"seat {seat} came back with the ended game's keys")
        data = rematch_bytes(old.session_id, seat, hello["sign_key"], hello["box_key"], hello["nonce"])
        sig = field["sig"]
        if not isinstance(sig, bytes) or not old.public(seat).verify(sig, data):
            raise HandshakeRefused(RefusalCode.SIGNATURE, f"seat {seat}'s rematch is not signed by its key of the "
                                                          "ended game")
