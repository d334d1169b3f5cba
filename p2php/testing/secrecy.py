"""Did any real peer learn a face it was never shown?  A watch over the locksteps of a table's peers.

The engine decides who may see what: a :class:`~p2php.engine.contract.Deal` gives a slot to one seat, a
:class:`~p2php.engine.contract.Show` to one viewer, a :class:`~p2php.engine.contract.Reveal` (and an action that
plays a card) to everyone.  A seat's peer must learn a face only at or after the step that grants it, and
must not even be *able* to open one earlier: every slot is locked by one key per seat, so a seat can open a
slot once every other seat's key for it is in its hands (released publicly, or sealed to it in a private
show).  :class:`SecrecyWatch` checks both at every decision of every watched seat, from the peer's own
lockstep (its events, its knowledge, the keys it holds and the tick each public key came out), and collects
each breach as one line.  It never changes what it watches.

    watch = SecrecyWatch(holders=my_game_holders)
    deciders = [watch.wrap(seat, bot_decider(bot)) for seat, bot in enumerate(bots)]
    results = await run_local_table("mygame", players, deciders, ...)
    assert not watch.violations, watch.violations[:3]

A check runs when a seat is asked for a decision: its lockstep is then between steps (nothing half
consumed), and the audit, which opens everything at the end, has not started.  A key's release tick makes
the check exact even between two decisions of the seat: a slot that became openable before the step that
granted it is named however soon after it was granted.

At a table of one seat every key is that seat's: only the first check (faces known) runs there.  The watch
reads the lockstep's key bookkeeping (``released``, ``released_at`` and the shares sealed to it in shows, in
the fast and the verified deck modes alike); it is a test instrument, never used in play.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from p2php.engine.contract import Action, Deal, Decide, GameState, Reveal, Seat, Show, Slot
from p2php.session.lockstep import Lockstep
from p2php.session.runner import Decider

__all__ = ["Holders", "SecrecyWatch", "SeatGrants"]

Holders = Callable[[GameState], Mapping[Slot, Seat]]
"""A game's face-down holdings in a state: slot -> the seat holding it (hands, secret goals), to name them."""

MAX_VIOLATIONS = 50
"""Lines kept (a broken build would otherwise fill memory): the count goes on."""


@dataclass
class SeatGrants:
    """What one seat's lockstep has been granted so far: slot -> the tick of the first grant."""

    public: dict[Slot, int] = field(default_factory=dict)
    private: dict[Slot, int] = field(default_factory=dict)
    read: int = 0  # events already read

    def update(self, ls: Lockstep, seat: Seat) -> None:
        for event in ls.events[self.read:]:
            step, tick = event.step, event.tick
            if isinstance(step, Reveal | Decide):
                for slot in (*(step.slots if isinstance(step, Reveal) else ()), *event.faces):
                    self.public.setdefault(slot, tick)
            elif isinstance(step, Deal):
                for slot, to in step.to:
                    if to == seat:
                        self.private.setdefault(slot, tick)
            elif isinstance(step, Show) and step.viewer == seat:
                for slot in step.slots:
                    self.private.setdefault(slot, tick)
        self.read = len(ls.events)

    def tick(self, slot: Slot) -> int | None:
        """The first tick ``slot`` was granted to the seat at, ``None`` if never."""
        ticks = [t for t in (self.public.get(slot), self.private.get(slot)) if t is not None]
        return min(ticks) if ticks else None


class SecrecyWatch:
    """Watches the peers of one table (all in this process) for faces learned, or learnable, too early."""

    def __init__(self, holders: Holders | None = None) -> None:
        self.holders = holders
        self.locksteps: dict[Seat, Lockstep] = {}
        self.grants: dict[Seat, SeatGrants] = {}
        self.violations: list[str] = []
        self.count = 0
        self.checks = 0
        self.slot_checks = 0

    def wrap(self, seat: Seat, decide: Decider) -> Decider:
        """``decide``, checking the seat's lockstep before each answer."""

        async def checked(ls: Lockstep) -> Action:
            self.locksteps[seat] = ls
            self.check(seat, ls)
            return await decide(ls)

        return checked

    def check(self, seat: Seat, ls: Lockstep) -> None:
        """Check one seat's lockstep now (it must be between steps and not auditing)."""
        if ls.auditing:
            return
        self.checks += 1
        grants = self.grants.setdefault(seat, SeatGrants())
        grants.update(ls, seat)
        knowledge = ls.knowledge()
        for slot in knowledge.public:
            if slot not in grants.public:
                self._breach(seat, ls, slot, "knows the face of", "no step opened it to all")
        for slot in knowledge.private:
            if grants.tick(slot) is None:
                self._breach(seat, ls, slot, "knows the face of", "it was never dealt or shown to it")
        if ls.players == 1:
            return  # a lone seat holds every key: there is nobody to hide a face from
        shown = _shown_to_me(ls)
        for slot, released in ls.released.items():
            self.slot_checks += 1
            granted = grants.tick(slot)
            openable_at, sealed = -1, shown.get(slot, {})
            for other in range(ls.players):
                if other == seat or other in sealed:
                    continue  # its own key, or one sealed to it in a show (only a Show step to it sends one)
                if other not in released:
                    break
                openable_at = max(openable_at, ls.released_at.get((slot, other), -1))
            else:
                if granted is None or sealed and slot not in grants.private:
                    self._breach(seat, ls, slot, "could open", "it was never dealt, shown or opened to it")
                elif not sealed and -1 < openable_at < granted:
                    self._breach(seat, ls, slot, "could open", f"from step {openable_at}, before step {granted} "
                                 "granted it")

    def _breach(self, seat: Seat, ls: Lockstep, slot: Slot, what: str, why: str) -> None:
        self.count += 1
        if len(self.violations) >= MAX_VIOLATIONS:
            return
        holder = self.holders(ls.state).get(slot) if self.holders is not None else None
        whose = f" (held by seat {holder})" if holder is not None else ""
        self.violations.append(f"step {ls.tick}: seat {seat} {what} slot {slot}{whose}: {why}")


def _shown_to_me(ls: Lockstep) -> Mapping[Slot, Mapping[Seat, object]]:
    """The key shares other seats sealed to this seat in private shows, by slot (fast or verified decks)."""
    if ls.vdeck is not None:
        return ls.vdeck.shown
    shown: Mapping[Slot, Mapping[Seat, object]] = ls.__dict__.get("_shown_keys", {})
    return shown
