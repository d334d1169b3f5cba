"""Moving cards between zones: drawing (with the reshuffle it may need) and opening hands."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2php.engine.contract import CardId, Deal, Reveal, Shuffle, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Push
from p2php.games.uno.base import UnoTask

if TYPE_CHECKING:
    from p2php.games.uno.state import UnoState


@dataclass
class Reshuffle(UnoTask):
    """Turn the discard pile, minus its top card, into a new face-down draw pile.

    Colours named on wild cards are forgotten; the cards get new slots.
    """

    def run(self, g: UnoState) -> Outcome:
        return Shuffle(tuple(g.discard[:-1]), g.next_slot, "reshuffle")

    def received(self, g: UnoState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        assert isinstance(step, Shuffle)
        first, k = step.first_slot, len(step.cards)
        g.next_slot = first + k
        g.pile = list(range(first + k - 1, first - 1, -1))
        loc = g.loc
        for c in step.cards:
            loc[c] = -1
        g.discard = [g.discard[-1]]
        g.event(("reshuffle", k))
        return Done()


def refill(g: UnoState, seat: int) -> Outcome | None:
    """When the draw pile is empty: reshuffle the discards, or (nothing to reshuffle) ``None``: the draw stops."""
    if len(g.discard) > 1:
        return Push(Reshuffle())
    g.event(("dry", seat))
    return None


@dataclass
class Draw(UnoTask):
    """``seat`` draws ``count`` cards, or fewer if nothing is left.  Result: the slots drawn."""

    seat: int
    count: int
    got: tuple[int, ...] = ()

    def run(self, g: UnoState) -> Outcome:
        want = self.count - len(self.got)
        if want <= 0:
            return Done(self.got)
        pile = g.pile
        if not pile:
            return refill(g, self.seat) or Done(self.got)
        k = want if want < len(pile) else len(pile)
        return Deal(tuple((pile[-1 - i], self.seat) for i in range(k)))

    def received(self, g: UnoState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        assert isinstance(step, Deal)
        k = len(step.to)
        del g.pile[-k:]
        slots = tuple(slot for slot, _ in step.to)
        g.hands[self.seat].extend(slots)
        g.event(("draw", self.seat, k))
        self.got += slots
        return CONTINUE


@dataclass
class RevealHands(UnoTask):
    """Open every face-down card of ``seat``'s hand (``-1``: of every hand, at the end of a round)."""

    seat: int = -1

    def run(self, g: UnoState) -> Outcome:
        pub = g.pub
        seats = range(g.n) if self.seat < 0 else (self.seat,)
        hidden = tuple(s for seat in seats for s in g.hands[seat] if s not in pub)
        return Reveal(hidden) if hidden else Done()

    def received(self, g: UnoState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        pub = g.pub
        for seat, hand in enumerate(g.hands):
            for s in hand:
                if s in faces and s not in pub:
                    c = faces[s]
                    pub[s] = c
                    g.npub[seat] += 1
                    g.loc[c] = seat
        if self.seat >= 0:
            g.event(("hand_revealed", self.seat))
        return Done()
