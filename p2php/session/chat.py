"""Chat between the seats of a table: signed lines that travel beside the game, never in it (protocol.md §3.8).

A chat line is a transport frame ``{"chat": {"from", "n", "text", "sig"}}``, signed with the author's seat key
over the session id, so a spectator (or anyone later shown it) can tell who said it, and no seat can put words
in another's mouth.  It is not a lockstep message: it has no ``seq``, no ``prev`` and no ``at``, it is not in
the transcript, the resume log or the state hash, and a lost line is just lost.  That keeps talk from ever
deciding the game, or its audit.

What another seat sends is bounded before anything costs us: at most :data:`MAX_CHARS` characters after
:func:`normalise` (one line, no control characters), and a token bucket per author (:data:`BURST` lines at
once, then one every :data:`REFILL` seconds).  A line over either bound is dropped with one notice naming the
seat (:class:`ChatDropped`), a flood with a single notice until the seat calms down; nothing here is a fault,
so no chat, however hostile, convicts anyone or stops the game.  Sans-IO: ``now`` is always given.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from p2php import tags
from p2php.canonical import digest
from p2php.net.ratelimit import TokenBucket
from p2php.session.handshake import Table
from p2php.text import is_control

MAX_CHARS = 280
"""Characters of one chat line after :func:`normalise`."""
MAX_RAW = 4 * MAX_CHARS
"""Characters of a line as typed (or received) before it is looked at: longer is refused without normalising."""
BURST = 5
"""Lines one seat may send at once."""
REFILL = 1.0
"""Seconds for one more line once the burst is spent (so one line a second, sustained)."""


class ChatRefused(ValueError):
    """A line of our own that cannot be sent (empty, too long, or too fast); the message says which."""


@dataclass(frozen=True)
class ChatLine:
    """A line a seat said (ours included), already checked and normalised: show it escaped all the same."""

    seat: int
    text: str


@dataclass(frozen=True)
class ChatDropped:
    """A chat frame that was dropped, naming the seat whose link brought it (-1: nobody can be named)."""

    seat: int
    reason: str


def normalise(text: str) -> str:
    """One line as everyone shows it: NFC, control and format characters removed, whitespace runs made one space."""
    kept = "".join(" " if c.isspace() else c for c in unicodedata.normalize("NFC", text) if not is_control(c)
                   or c in "\t\n\r")
    return " ".join(kept.split())


def chat_bytes(session_id: bytes, seat: int, n: int, text: str) -> bytes:
    """What the author signs: ``D("p2php/chat/v1", session_id, u16(seat), u64(n), utf8(text))``."""
    return digest(tags.CHAT, session_id, seat.to_bytes(2, "big"), n.to_bytes(8, "big"), text.encode("utf-8"))


class ChatDesk:
    """One peer's side of the chat: signs our lines, checks and bounds everyone else's.

    ``seat`` None and ``sign`` None: a spectator, which only reads (every line it gets is relayed, so a bad
    one names nobody: the peer that relayed it need not be its author).
    """

    def __init__(self, table: Table, seat: int | None, sign: Callable[[bytes], bytes] | None,
                 burst: int = BURST, refill: float = REFILL) -> None:
        self.table = table
        self.session_id = table.session_id
        self.seat = seat
        self.sign = sign
        self.burst = burst
        self.refill = refill
        self.sent = 0  # our next line's number
        self.last: dict[int, int] = {}  # author -> the number of its last line shown
        self.buckets: dict[int, TokenBucket] = {}  # per link (or per author, for a spectator)
        self.flooding: set[int] = set()  # seats already told about once for this flood

    def _bucket(self, seat: int, now: float) -> TokenBucket:
        if seat not in self.buckets:
            self.buckets[seat] = TokenBucket(self.burst, self.refill, now)
        return self.buckets[seat]

    def compose(self, text: str, now: float) -> dict[str, Any]:
        """Our line as a signed chat map (send it as ``{"chat": map}``); raises :class:`ChatRefused`."""
        if self.seat is None or self.sign is None:
            raise ChatRefused("a spectator cannot chat")
        if len(text) > MAX_RAW:
            raise ChatRefused(f"too long: a chat line holds at most {MAX_CHARS} characters")
        line = normalise(text)
        if not line:
            raise ChatRefused("nothing to say")
        if len(line) > MAX_CHARS:
            raise ChatRefused(f"too long ({len(line)} characters): a chat line holds at most {MAX_CHARS}")
        if not self._bucket(self.seat, now).take(now):  # the others would drop it: say so here
            raise ChatRefused(f"slow down: at most {self.burst} lines at once, then one every {self.refill:g} s")
        n, self.sent = self.sent, self.sent + 1
        self.last[self.seat] = n
        return {"from": self.seat, "n": n, "text": line,
                "sig": self.sign(chat_bytes(self.session_id, self.seat, n, line))}

    def receive(self, link: int | None, chat: Any, now: float) -> ChatLine | ChatDropped | None:
        """Check one received chat map: the line to show, a drop to report once, or None (dropped quietly).

        ``link`` is the seat whose authenticated link brought the frame (None: relayed to a spectator).
        The bucket is spent before any check, so malformed frames and bad signatures cost a flooder
        its own budget, and the notices about one seat are as bounded as its lines.
        """
        author = chat.get("from") if isinstance(chat, dict) else None
        known = isinstance(author, int) and not isinstance(author, bool) and 0 <= author < self.table.players
        blamed = link if link is not None else (-1 if not known else author)
        assert isinstance(blamed, int)
        counted = link if link is not None else (author if known else -1)
        assert isinstance(counted, int)
        if not self._bucket(counted, now).take(now):
            if counted in self.flooding:
                return None
            self.flooding.add(counted)
            return ChatDropped(blamed, f"too many chat lines (more than {self.burst} at once, then one every "
                                       f"{self.refill:g} s): the rest are dropped")
        self.flooding.discard(counted)
        problem = self._problem(link, chat)
        if problem is not None:
            return ChatDropped(blamed if link is not None else -1, problem)
        assert isinstance(chat, dict) and isinstance(author, int)
        n, text = chat["n"], chat["text"]
        if n <= self.last.get(author, -1):
            return ChatDropped(blamed if link is not None else -1, f"chat line {n} of seat {author} came again")
        self.last[author] = n
        return ChatLine(author, text)

    def _problem(self, link: int | None, chat: Any) -> str | None:
        """Why a chat map is not a good line from its author (None: it is)."""
        if not isinstance(chat, dict) or set(chat) != {"from", "n", "text", "sig"}:
            return "a malformed chat frame"
        author, n, text, sig = chat["from"], chat["n"], chat["text"], chat["sig"]
        if not (isinstance(author, int) and not isinstance(author, bool) and 0 <= author < self.table.players):
            return "a chat line from no seat of this table"
        if link is not None and author != link:
            return f"a chat line that claims to be seat {author}'s"
        if author == self.seat:
            return "a chat line that claims to be ours"
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < 1 << 63:
            return "a chat line without a valid number"
        if not isinstance(sig, bytes) or len(sig) != 64:
            return "a chat line without a valid signature"
        if not isinstance(text, str) or len(text) > MAX_RAW or len(normalise(text)) > MAX_CHARS:
            return f"a chat line over {MAX_CHARS} characters"
        if not text or normalise(text) != text:
            return "a chat line that is empty or not normalised (control characters, extra spaces)"
        if not self.table.public(author).verify(sig, chat_bytes(self.session_id, author, n, text)):
            return f"a chat line not signed by seat {author}'s key"
        return None
