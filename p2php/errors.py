"""The root of every exception p2php raises on purpose, and the one for bad user input.

Callers (the CLI, the bridge, an embedding program) catch :class:`P2phpError` to tell
"p2php refused something, here is why in one line" from a bug, which should surface
as a traceback.  Each subclass keeps its historical standard base too (``ValueError``
for refusals of bad input, ``TypeError`` for values with no canonical form), so code
that caught those still works.  What a *peer* did wrong is not an exception at all: it
becomes a :class:`~p2php.session.records.Fault` with a
:class:`~p2php.session.records.FaultCode`, matched by code, never by its words.
"""

from __future__ import annotations

from enum import StrEnum


class P2phpError(Exception):
    """Something p2php refused or could not do, with a message meant for a person (one line)."""


class UsageError(P2phpError, ValueError):
    """A bad command-line value, address or option combination."""


class RefusalCode(StrEnum):
    """Why a table refused a joiner or a peer's hello, as a word on the wire and for matching.

    Lobby refusals travel as ``{"lobby": "refused", "code": ..., "reason": ...}``; a handshake
    refusal is local (the hello is not for this table) and carries the same kind of code.
    Clients and other-language peers match the code, never the reason's words (protocol.md §4.6).
    """

    MALFORMED = "malformed"  # not a well-formed request or hello
    VERSION = "version"  # another protocol version
    GAME = "game"  # another game
    OPTIONS = "options"  # other options
    PLAYERS = "players"  # another number of players
    SEAT = "seat"  # another seat than the connection's, or out of range
    KEYS = "keys"  # a key, nonce or chain of the wrong size
    SIGNATURE = "signature"  # the hello's signature does not verify
    FULL = "full"  # every seat is taken
    NAME = "name"  # the name is invalid or taken
    CLOSED = "closed"  # the game has started, or the table is closing
    REFUSED = "refused"  # turned away otherwise (address holds its seats, removed by the host); or unknown code

    @classmethod
    def parse(cls, value: object) -> RefusalCode:
        """A code received from the network; an unknown one becomes :attr:`REFUSED`."""
        try:
            return cls(value) if isinstance(value, str) else cls.REFUSED
        except ValueError:
            return cls.REFUSED
