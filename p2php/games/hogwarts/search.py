"""The start-of-turn cards that search a deck (data §2.2 ``search(decks)``: Accio, Felix Felicis): look through
one of the listed decks, take 1 card of your choice into your hand, then the deck is shuffled.

The look is a :class:`~p2php.engine.contract.Show` of every slot of the deck to the searching seat alone; the
card taken keeps its face secret from the others (they learn only which deck it came from); the rest of the
deck becomes a new face-down deck through a :class:`~p2php.engine.contract.Reshuffle` in the deck's next
slot block, so the look tells nobody where any card now lies.  The card is taken by its slot, so when the deck
holds a card whose face a seat other than the searcher knows -- one that came round face up (E3), a worn card
its old holder put under (E37; ``HogwartsState.seen``) -- the deck is first reshuffled into its next block too
(E39), or the slot taken would tell them which card it is; without room for two
blocks the look is as before.

Decisions (ours): a deck is offered only if it holds a card, has been reshuffled fewer than 99 times (its
slot span) and every face-down card in it is under one joint key (``HogwartsState.family``): the session
cannot reshuffle face-down cards of two keys together (it refuses, "the reshuffle mixes face-down cards of
decks ..."), so such a deck waits until those cards have been drawn again or opened.  A deck's shuffle and its
reshuffles share one key (a reshuffle of face-up cards alone starts a new one), so a card of an older shuffle,
or one put back from a re-masked hand (E38), is no obstacle (tests/test_hogwarts_hand_remask.py opens such a mix
in both decks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Reshuffle, Seat, Show, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task

from .ids import BLOCK, MAX_RESHUFFLES, SPAN, deck_first_slot

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["SearchDeck", "searchable"]


def searchable(g: HogwartsState, decks: Sequence[str]) -> list[str]:
    """The listed decks that may be searched now (public facts only)."""
    return [d for d in decks if g.deck[d] and g.reshuffles.get(d, 0) < MAX_RESHUFFLES and one_key(g, d)
            and below_reseals(g, d)]


def below_reseals(g: HogwartsState, deck: str, blocks: int = 1) -> bool:
    """Whether the deck's next ``blocks`` reshuffle blocks lie wholly below its reseal slots (counted down from
    the top of its span, reseal.py), so that the two never meet."""
    after = g.reshuffles.get(deck, 0) + blocks
    return after <= MAX_RESHUFFLES and (after + 1) * BLOCK <= SPAN - g.resealed.get(deck, 0)


def known_to_others(g: HogwartsState, deck: str, seat: int) -> bool:
    """Whether a card of ``deck`` (two or more) has a face a seat other than ``seat`` knows (E39)."""
    cards = g.deck[deck]
    return len(cards) > 1 and any(s in g.pub or any(x != seat for x in g.seen.get(s, ())) for s in cards)


def one_key(g: HogwartsState, deck: str) -> bool:
    """Whether every face-down card of ``deck`` is under one joint key (``HogwartsState.family``: a deck's shuffle
    and its reshuffles, re-locks and hand re-masks share it), so one Reshuffle may take them.  (By the block a
    slot lies in, a card put back from a re-masked hand -- a top-of-span slot -- barred every search of its deck
    until drawn again.)"""
    return len({g.family(s) for s in g.deck[deck] if s not in g.pub}) <= 1


@dataclass
class SearchDeck(Task["HogwartsState"]):
    class Stage(Enum):
        CHOOSE = auto()
        LOOK = auto()
        TAKE = auto()
        SHUFFLE = auto()

    seat: int
    decks: list[str]
    stage: Stage = Stage.CHOOSE
    deck: str = ""
    mixed: bool = False  # the deck was reshuffled before the look if another seat knew a face in it (E39)

    def run(self, g: HogwartsState) -> Outcome:
        S = SearchDeck.Stage
        if self.stage is S.CHOOSE:
            if not searchable(g, self.decks):
                return Done()
            return Decide((self.seat,), "search_deck")
        if self.stage is S.LOOK:
            if not self.mixed:
                self.mixed = True
                if known_to_others(g, self.deck, self.seat) and below_reseals(g, self.deck, 2):
                    return self.reshuffle(g)
            return Show(tuple(g.deck[self.deck]), self.seat, self.seat)
        if self.stage is S.TAKE:
            return Decide((self.seat,), "search_take")
        if not g.deck[self.deck]:
            return Done()
        return self.reshuffle(g)

    def reshuffle(self, g: HogwartsState) -> Reshuffle:
        g.reshuffles[self.deck] = g.reshuffles.get(self.deck, 0) + 1
        return Reshuffle(tuple(g.deck[self.deck]), deck_first_slot(self.deck, g.reshuffles[self.deck]),
                         purpose=f"{self.deck}_search")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.stage is SearchDeck.Stage.CHOOSE:
            return [{"type": "deck", "deck": d} for d in searchable(g, self.decks)]
        return [{"type": "take", "slot": s} for s in g.deck[self.deck]]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        action = answers[0][1]
        if self.stage is SearchDeck.Stage.CHOOSE:
            self.deck = str(action["deck"])
            self.stage = SearchDeck.Stage.LOOK
            return CONTINUE
        slot = int(action["slot"])
        g.deck[self.deck].remove(slot)
        g.hand[self.seat].append(slot)
        g.log("searched", self.seat, self.deck)
        self.stage = SearchDeck.Stage.SHUFFLE
        return CONTINUE

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if isinstance(step, Show):
            self.stage = SearchDeck.Stage.TAKE
            return CONTINUE
        assert isinstance(step, Reshuffle)
        g.deck[self.deck] = list(step.new_slots)
        return CONTINUE if self.stage is SearchDeck.Stage.LOOK else Done()
