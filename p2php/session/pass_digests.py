"""Pass digests (protocol v8, §6.4): a fast pass's points go only to the seat that makes the next pass.

In a fast (re)shuffle each pass is the next one's input, and no one else needs it while the game runs: the
audit recomputes every pass from the released secrets (§9.2), so it needs the signed *digest* of each output,
not the points. So an intermediate pass signs ``digest = D("p2php/pass/v1", points)`` in its body, and the
points travel beside the signed message, in its wire field ``att``, to the next passer only. The last pass
(the deck every seat opens) and a secret deck's first pass (the audit unlocks the owner's list from it) keep
their points in the body, for everyone, as before. At 4 seats this halves the bytes of a deck's passes; at 10 it
divides them by three.

Why this holds against a cheat: the next passer checks the points against the signed digest, so a pass is
always the one its sender signed; a malformed one is named at once by the seat that must use it, and any pass
that is not what its sender's secrets make is named by every peer's audit from its digest. A sender that keeps
the points back is silent towards the next seat (§6.9), as one that keeps back a whole message.
"""

from __future__ import annotations

from typing import Any

from p2php import tags
from p2php.canonical import digest
from p2php.engine.contract import Seat
from p2php.session.base import LockstepBase
from p2php.session.messages import ATT, BadMessage, Message
from p2php.session.records import DeckRecord

PASS_KINDS = ("shuffle", "lock")
"""The kinds of a fast deck's passes."""

MAX_WAITING_ATTS = 4
"""Points of one other seat's passes kept before we use them: an honest seat sends the next passer one pass at a
time (the next passer's own pass comes before that seat's following one), so more are dropped unread."""


def pass_digest(points: bytes) -> bytes:
    """What an intermediate pass's body signs in place of its packed points."""
    return digest(tags.PASS, points)


class PassDigests(LockstepBase):
    """Which passes keep their points in the body, who gets them otherwise, and the points we hold."""

    attachments: dict[tuple[Seat, int], bytes]
    spent_points: dict[tuple[Seat, int], bytes]

    # ---- the schedule of a fast deck's passes

    def pass_count(self, rec: DeckRecord) -> int:
        """A fast (re)shuffle's passes: a shuffle and a lock round, after a rekey round if some input is face down."""
        return 3 * self.players if rec.hidden else 2 * self.players

    def _fast_pass(self, rec: DeckRecord, phase: int) -> tuple[Seat, str]:
        """Who makes pass ``phase`` of a fast (re)shuffle, and its kind (§6.3)."""
        n = self.players
        p = phase - (n if rec.hidden else 0)  # a reshuffle of face-down cards: its rekey round first
        if p < 0:
            return phase, "shuffle"
        if p < n:
            return rec.pass_order(n)[p], "shuffle"
        return 2 * n - 1 - p, "lock"

    def points_in_body(self, rec: DeckRecord, phase: int) -> bool:
        """Whether pass ``phase`` carries its points in its body (to everyone) rather than a digest."""
        return phase == self.pass_count(rec) - 1 or (rec.owner is not None and phase == 0 and not rec.hidden)

    def next_passer(self, rec: DeckRecord, phase: int) -> Seat | None:
        """The seat that needs the points of pass ``phase`` and does not make it (None: nobody, or everyone)."""
        if self.points_in_body(rec, phase):
            return None
        after = self._fast_pass(rec, phase + 1)[0]
        return None if after == self._fast_pass(rec, phase)[0] else after

    def _pass_deck(self, msg: Message) -> DeckRecord | None:
        """The fast deck whose pass ``msg`` is (by its tick), if it is one."""
        if self.vdeck is not None or msg.kind not in PASS_KINDS:
            return None
        for rec in reversed(self.decks):
            if rec.tick == msg.at[0]:
                return rec
        return None

    # ---- the points beside a message

    def needs_points(self, msg: Message) -> bool:
        """Whether we must hold ``msg``'s points before we can take it: we make the pass after it."""
        if "digest" not in msg.body or self.seat is None or msg.sender == self.seat:
            return False
        rec = self._pass_deck(msg)
        return rec is not None and self.next_passer(rec, msg.at[1]) == self.seat and \
            (msg.sender, msg.seq) not in self.attachments

    def take_points(self, msg: Message, att: bytes | None, direct: bool) -> bool:
        """Keep ``att``, the points that came with ``msg``, if they are the ones its body's digest names.

        ``direct``: ``msg`` came on its author's own link, so points that do not match its digest are its
        author's fault (``BadMessage``); a relay's are dropped (the relaying peer need not be the author).
        Returns whether they were kept (new to us).
        """
        if att is None:
            return False
        key = (msg.sender, msg.seq)
        named = msg.body.get("digest") if msg.kind in PASS_KINDS else None
        if not isinstance(named, bytes) or pass_digest(att) != named:
            if direct:
                raise BadMessage(f"{msg.kind} message {msg.seq}: its 'att' is not the points its digest names",
                                 msg.sender)
            return False
        if key in self.attachments or (msg.sender != self.seat and msg.seq <= self.last_seq[msg.sender]):
            return False  # held already, or a pass we have taken (its points are of no more use)
        if (msg.sender != self.seat and not self.replaying_log  # (a resume's own log: every pass of the game)
                and sum(1 for s, _ in self.attachments if s == msg.sender) >= MAX_WAITING_ATTS):
            return False
        self.attachments[key] = att
        return True

    def take_duplicate_points(self, msg: Message, att: bytes | None, direct: bool) -> None:
        """A copy of a message we hold came again: keep its points if we lacked them (a relay brought the message
        first), and log them (the resume log then holds them)."""
        if self.take_points(msg, att, direct) and self.record is not None:
            self.record(self.logged_wire(msg))

    def points_of(self, msg: Message) -> bytes | None:
        """The points of pass ``msg`` we hold: our own, or another seat's that we needed (then let go)."""
        key = (msg.sender, msg.seq)
        if msg.sender == self.seat:
            return self.attachments.get(key)
        att = self.attachments.pop(key, None)
        if att is not None and (self.record is not None or self.replaying_log):
            # A seat with a resume log keeps them for it: the log a resume writes anew holds every message with its
            # points, else a second resume could not take the pass again (it stopped at that step; chaos seed 139)
            self.spent_points[key] = att
        return att

    # ---- wire forms

    def _points_to(self, msg: Message) -> Seat | None:
        """The seat our pass ``msg`` sends its points to, if it sends them to one."""
        if msg.sender != self.seat or (msg.sender, msg.seq) not in self.attachments:
            return None
        rec = self._pass_deck(msg)
        return None if rec is None else self.next_passer(rec, msg.at[1])

    def wire_for(self, msg: Message, seat: int | None) -> dict[str, Any]:
        """``msg`` as ``seat`` gets it: with its points if it is ours and ``seat`` makes the next pass."""
        wire = msg.to_wire()
        if seat is not None and seat == self._points_to(msg):
            wire[ATT] = self.attachments[(msg.sender, msg.seq)]
        return wire

    def logged_wire(self, msg: Message) -> dict[str, Any]:
        """``msg`` as our resume log keeps it: with every point we hold for it."""
        return wire_with_points(msg, self.logged_points(msg))

    def logged_points(self, msg: Message) -> Any:
        """The points our resume log keeps with ``msg`` (None: none): what :meth:`logged_wire` adds."""
        return self.attachments.get((msg.sender, msg.seq)) or self.spent_points.get((msg.sender, msg.seq))

    def deliveries(self, msg: Message, seats: list[int]) -> list[tuple[dict[str, Any], list[int]]]:
        """The wire forms of our ``msg`` and who gets each: the next passer its points, everyone else not."""
        plain = msg.to_wire()
        to = self._points_to(msg)
        if to is None or to not in seats:
            return [(plain, list(seats))]
        rest = [s for s in seats if s != to]
        out = [({**plain, ATT: self.attachments[(msg.sender, msg.seq)]}, [to])]
        return out + [(plain, rest)] if rest else out


def wire_with_points(msg: Message, points: Any) -> dict[str, Any]:
    """``msg``'s wire form with ``points`` (:meth:`PassDigests.logged_points`; None: none), as a resume log keeps it."""
    wire = msg.to_wire()
    if points is not None:
        wire[ATT] = points
    return wire
