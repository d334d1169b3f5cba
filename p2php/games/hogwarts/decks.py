"""Taking cards from the decks: into a hand face down (a Deal: only the taker learns the face), or face up
for everyone (a Reveal: action, event and duel cards are read aloud, rules §10.1).

A deck that is empty gives nothing (data §2.1).  Cards come back under their own deck (state.under), so no
deck is ever reshuffled; a face-down card a hand held is locked afresh before it is dealt again (reseal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from p2php.engine.contract import CardId, Deal, Reveal, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task

from .reseal import reseal, resealed

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["Draw", "OpenTop"]


@dataclass
class Draw(Task["HogwartsState"]):
    """``seat`` takes the top ``n`` cards of ``deck`` into its hand (fewer if the deck runs short)."""

    seat: int
    deck: str
    n: int = 1
    slots: list[int] = field(default_factory=list)

    def run(self, g: HogwartsState) -> Outcome:
        self.slots = g.deck[self.deck][: self.n]
        if not self.slots:
            return Done()
        return reseal(g, self.slots) or Deal(tuple((s, self.seat) for s in self.slots))

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if not isinstance(step, Deal):
            resealed(g, step)
            return CONTINUE
        del g.deck[self.deck][: len(self.slots)]
        g.hand[self.seat].extend(self.slots)
        g.log("draw", self.seat, self.deck, len(self.slots))
        return Done()


@dataclass
class OpenTop(Task["HogwartsState"]):
    """Open the top ``n`` cards of ``deck`` to everyone; the result is their slots (taken off the deck; the
    caller puts each under again when it is done with it)."""

    deck: str
    n: int = 1
    slots: list[int] = field(default_factory=list)

    def run(self, g: HogwartsState) -> Outcome:
        self.slots = g.deck[self.deck][: self.n]
        if not self.slots:
            return Done([])
        hidden = tuple(s for s in self.slots if s not in g.pub)
        if not hidden:  # cards that went under face up come round again already open
            return self._take(g)
        return Reveal(hidden)

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        return self._take(g)

    def _take(self, g: HogwartsState) -> Outcome:
        del g.deck[self.deck][: len(self.slots)]
        g.log("open", self.deck, [g.card_of(s) for s in self.slots])
        return Done(list(self.slots))

