"""A seat's side of its spectators: what each is sent, and whether one that missed the end may come back.

Each spectator link is sent the table, then the whole record, then every message as the seat processes it
(protocol.md §3.5). A relay frame is encoded once for all of them, so a new spectator costs the seat a list of
ready frames, not an encoding of the whole game. Spectators are anonymous: a link that ends without the end
of the game is most likely a watcher that links again a second later, so the seat's table stays open for it
(``PeerConfig.spectator_linger``) — any later link that is shown the end counts as its return.
"""

from __future__ import annotations

from typing import Any

from p2php.net.framing import encode_frame
from p2php.net.mesh import Mesh, SpectatorLeft
from p2php.session.lockstep import Lockstep

RESUMED_LINGER = 5.0
"""How long a resumed seat stays for a spectator of the process that died (at most ``linger``): a watcher links
again every second, so this covers a few tries on a loaded machine, and a resumed seat nobody watched leaves 5 s
after its rejoin at most, not ``linger`` (10 s: fourteen resume tests 2.4–10.4 s slower, review rv8-spec)."""


class Watchers:
    """The spectators of one seat's table (sans-IO but for the mesh's queues; ``now`` is given)."""

    def __init__(self, mesh: Mesh, linger: float, waits: dict[str, float] | None = None) -> None:
        self.mesh = mesh
        self.linger = linger
        self.waits = dict(waits or {})  # our timeout, resume_timeout and linger, told each spectator (§3.5)
        self.relayed: dict[int, int] = {}  # spectator whose link is up -> relay frames queued for it
        self.frames: list[bytes] = []  # the transcript's relay frames, each encoded once
        self.got_end_queued: set[int] = set()  # links that were up when the end was queued for them
        self.missed = -1  # the last link that ended without the end of the game
        self.missed_at = 0.0  # when it ended
        self.got_end = -1  # the last link that hung up once it had the end

    def joined(self, spectator: int, ls: Lockstep) -> None:
        self.relayed[spectator] = 0
        table: dict[str, Any] = {"watch": "table", "hellos": list(ls.table.hellos), "game": ls.table.game,
                                 "options": ls.table.options}
        if self.waits:
            table["waits"] = self.waits
        self.mesh.send_spectator(spectator, table)

    def left(self, event: SpectatorLeft, now: float) -> None:
        spectator = event.spectator
        self.relayed.pop(spectator, None)
        if spectator in self.got_end_queued and event.reason == "spectator left" and not event.unsent:
            self.got_end = max(self.got_end, spectator)
        elif spectator > self.missed:
            self.missed, self.missed_at = spectator, now
        self.got_end_queued.discard(spectator)

    def resumed(self, now: float) -> None:
        """We resumed: a spectator of the process that died missed the end, most likely, and links again; the
        first link of ours counts as its return (a resumed seat that knew of no spectator was gone before one's
        next link, and the spectator, its audit open, could not tell how the game ended)."""
        self.missed, self.missed_at = max(self.missed, 0), now - max(0.0, self.linger - RESUMED_LINGER)

    def ended(self) -> None:
        """We leave with our verdict: tell each spectator still linked, after the record we relayed, so that one whose
        record lacks reveals (our audit closed at its deadline) closes its own at once instead of linking again for
        a seat that is gone (a link ending in the reveals otherwise reads as a seat that died and may resume)."""
        for spectator in self.relayed:
            self.mesh.send_spectator(spectator, {"watch": "end"})

    def chat(self, chat: dict[str, Any]) -> None:
        for spectator in self.relayed:
            self.mesh.send_spectator(spectator, {"chat": chat})

    def relay(self, ls: Lockstep) -> None:
        """Queue for each spectator the messages it has not been sent yet."""
        if not self.relayed:
            return
        self.frames.extend(encode_frame({"relay": msg.to_wire()}, self.mesh.max_frame)
                           for msg in ls.transcript[len(self.frames):])
        for spectator, done in self.relayed.items():
            for frame in self.frames[done:]:
                self.mesh.send_spectator(spectator, frame)
            self.relayed[spectator] = len(self.frames)
            if ls.finished and self.mesh.spectator_up(spectator):
                self.got_end_queued.add(spectator)

    def coming_back(self, now: float) -> bool:
        """Whether a spectator link ended without the end of the game less than ``linger`` seconds ago and no later
        link has the end (or may get it): that watcher is most likely linking again. One that left long before
        the end is not waited for."""
        last = self.missed
        return (last >= 0 and self.got_end < last and not any(s > last for s in self.relayed)
                and now < self.missed_at + self.linger)

    def wait_until(self) -> float:
        """Until when :meth:`coming_back` may still say yes."""
        return self.missed_at + self.linger
