"""Event cards (rules §10.1, data §2.7): drawn face up, applied to every player, then put under the deck.

Players act in turn from the drawer clockwise where an event asks them something (a Great Hall cell, a
deck to draw from, a book to score, a card to put back).  A group battle is fought by every player with
3 LP or more, the drawer first (data §2.7); those still standing when the enemy falls take its reward
(:meth:`.battle.Battle.reward`: not the defeated, nor those who left by the Cloak or Pettigrew's flight).

Decision (ours): Luna's ``event_peek`` opens both top cards to everyone (the rules do not say the look is
private, and a card she sends under the deck would otherwise be known to her alone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Replace, Task

from .battle import Battle
from .cards_flow import Exam, ReturnCards
from .decks import Draw, OpenTop
from .ids import instance
from .terms import amount, parse

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["ChooseCell", "ChooseDeck", "Event", "GROUP_MIN_LP", "GROUP_CARD_LIMIT"]

GROUP_MIN_LP = 3
GROUP_CARD_LIMIT = 2


def clockwise(g: HogwartsState, first: Seat) -> list[Seat]:
    return [(first + i) % g.players for i in range(g.players)]


@dataclass
class ChooseCell(Task["HogwartsState"]):
    """``seat`` moves to one of ``cells`` of its choice (an event's move, no battle: data §2.7)."""

    seat: int
    cells: list[str]

    def run(self, g: HogwartsState) -> Outcome:
        return Decide((self.seat,), "event_cell")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "go", "cell": c} for c in self.cells]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        g.pos[self.seat] = str(answers[0][1]["cell"])
        return Done()


@dataclass
class ChooseDeck(Task["HogwartsState"]):
    """``seat`` takes 1 card from one of ``decks`` of its choice (Owl Post, a fleeing duel enemy)."""

    seat: int
    decks: list[str]

    def run(self, g: HogwartsState) -> Outcome:
        if not any(g.deck[d] for d in self.decks):
            return Done()
        return Decide((self.seat,), "choose_deck")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "deck", "deck": d} for d in self.decks if g.deck[d]]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        return Replace(Draw(self.seat, str(answers[0][1]["deck"])))


@dataclass
class Event(Task["HogwartsState"]):
    """``seat`` stopped on an event cell."""

    class Stage(Enum):
        DRAW = auto()
        PICK = auto()
        APPLY = auto()
        UNDER = auto()

    seat: int
    stage: Stage = Stage.DRAW
    drawn: list[int] | None = None
    chosen: int = -1
    fought: list[int] | None = None
    result: str = ""

    def run(self, g: HogwartsState) -> Outcome:
        S = Event.Stage
        if self.stage is S.DRAW:
            self.stage = S.PICK
            peek = g.ability(self.seat)[0] == "event_peek"
            return Call(OpenTop("event", 2 if peek else 1), into="drawn")
        if self.stage is S.PICK:
            if not self.drawn:
                return Done()
            if len(self.drawn) > 1:
                return Decide((self.seat,), "event_card")
            self.chosen = self.drawn[0]
            self.stage = S.APPLY
            return CONTINUE
        if self.stage is S.APPLY:
            self.stage = S.UNDER
            return self.apply(g)
        for slot in self.drawn or []:
            g.under(slot)
        return Done()

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "resolve", "slot": s} for s in self.drawn or []]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        self.chosen = int(answers[0][1]["slot"])
        self.stage = Event.Stage.APPLY
        return CONTINUE

    def apply(self, g: HogwartsState) -> Outcome:
        card = g.data.events[instance(g.pub[self.chosen]).card]
        g.log("event", card.id)
        order = clockwise(g, self.seat)
        head, args = parse(card.effect[0])
        if head == "group_battle":
            self.fought = [s for s in order if g.lp[s] >= GROUP_MIN_LP]
            if not self.fought:
                return CONTINUE
            return Call(Battle(list(self.fought), args[0], "event", GROUP_CARD_LIMIT), into="result")
        tasks: list[Task[HogwartsState]] = []
        for s in order:
            if head == "flying_powder":
                g.give(s, "powder", amount(args[0]))
            elif head == "portal":
                g.give(s, "portal", amount(args[0]))
            elif head == "move_to" and args[0] == "gh":
                tasks.append(ChooseCell(s, list(g.data.great_hall_cells())))
            elif head == "move_to":
                g.pos[s] = args[0]
            elif head == "heal":
                g.heal(s, amount(args[0]))
            elif head == "heal_to":
                g.lp[s] = max(g.lp[s], amount(args[0]))
            elif head == "lose_min1":
                g.lp[s] = max(1, g.lp[s] - amount(args[0]))
            elif head == "points":
                g.score(s, amount(args[0]), card.id)
            elif head == "draw":
                tasks.append(Draw(s, args[0]))
            elif head == "draw_choice":
                tasks.append(ChooseDeck(s, list(args)))
            elif head == "exam_anywhere":
                tasks.append(Exam(s, "", most=amount(args[0])))
            elif head == "return_card":
                tasks.append(ReturnCards(s, amount(args[0])))
            else:
                raise AssertionError(f"event effect {head!r} has no rule")  # data checks keep this unreachable
        return Push(*tasks) if tasks else CONTINUE
