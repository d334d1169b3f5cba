"""Cards drawn face up and applied at once (action cards, rules §10.1), book exams (§10.2), and putting cards
of one's choice back under their decks (a lost duel, Peeves).  Each is one small task."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Task

from .decks import OpenTop
from .ids import deck_of_slot, instance
from .remask import mix_first
from .terms import amount, parse

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["ActionCards", "Exam", "ReturnCards", "apply_action"]


def apply_action(g: HogwartsState, seat: Seat, slot: Slot) -> None:
    """An action card's effect on its drawer: ``points(±N)`` or ``flying_powder(+N)`` (data §2.6)."""
    card = g.data.actions[instance(g.pub[slot]).card]
    for term in card.effect:
        head, args = parse(term)
        if head == "points":
            g.score(seat, amount(args[0]), card.id)
        elif head == "flying_powder":
            g.give(seat, "powder", amount(args[0]))


@dataclass
class ActionCards(Task["HogwartsState"]):
    """Draw ``n`` action cards face up; with 2 (Ron's ``action_pick``) the drawer applies one of its choice.
    Every drawn card then goes under the deck."""

    seat: int
    n: int = 1
    drawn: list[int] | None = None

    def run(self, g: HogwartsState) -> Outcome:
        if self.drawn is None:
            return Call(OpenTop("action", self.n), into="drawn")
        if len(self.drawn) > 1:
            return Decide((self.seat,), "action_card")
        return self.apply(g, self.drawn[0] if self.drawn else -1)

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "apply", "slot": s} for s in self.drawn or []]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        return self.apply(g, int(answers[0][1]["slot"]))

    def apply(self, g: HogwartsState, slot: Slot) -> Outcome:
        if slot >= 0:
            apply_action(g, self.seat, slot)
        for s in self.drawn or []:
            g.under(s)
        return Done()


@dataclass
class Exam(Task["HogwartsState"]):
    """In a classroom (or anywhere, Exam Week: ``subject`` empty, at most ``most`` books) put book cards of
    the subject under the book deck and score their points; each book is opened with the action."""

    seat: int
    subject: str
    most: int = 30
    scored: int = 0

    def books(self, g: HogwartsState) -> list[Slot]:
        return [s for s in g.hand[self.seat] if deck_of_slot(s) == "book"]

    def run(self, g: HogwartsState) -> Outcome:
        if self.scored >= self.most or not self.books(g):
            return Done()
        return Decide((self.seat,), "exam")

    def fits(self, g: HogwartsState, slot: Slot, knowledge: Knowledge) -> bool | None:
        face = knowledge.face(slot)
        if face is None:
            return None
        book = g.data.books[instance(face).card]
        return not self.subject or book.subject == self.subject

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "done"}, *({"type": "exam", "slot": s} for s in self.books(g) if self.fits(g, s, knowledge))]

    def check(self, g: HogwartsState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action.get("type") == "done":
            return
        if action.get("type") != "exam" or action.get("slot") not in self.books(g):
            raise IllegalAction(f"not a book card of seat {seat}'s hand: {action}")
        if self.fits(g, action["slot"], knowledge) is False:
            raise IllegalAction(f"that book is not of {self.subject}")

    def reveals(self, g: HogwartsState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return (action["slot"],) if action.get("type") == "exam" and isinstance(action.get("slot"), int) else ()

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        if action["type"] == "done":
            return Done()
        slot = int(action["slot"])
        if not self.fits(g, slot, Knowledge(g.pub)):
            raise IllegalAction(f"the book opened is not of {self.subject}")
        book = g.data.books[instance(g.pub[slot]).card]
        g.discard_from_hand(seat, slot)
        g.score(seat, book.points, book.id)
        self.scored += 1
        return CONTINUE


@dataclass
class ReturnCards(Task["HogwartsState"]):
    """``seat`` puts ``n`` cards of its choice from its hand under their decks, face down (all if fewer).  The
    choice names a slot, so a hand holding a card another seat knows is re-masked first (E38, ``remask``)."""

    seat: int
    n: int
    returned: list[int] = field(default_factory=list)
    mixed: bool = False

    def run(self, g: HogwartsState) -> Outcome:
        if len(self.returned) >= self.n or not g.hand[self.seat]:
            return Done()
        if not self.mixed and len(g.hand[self.seat]) > self.n:  # (returning all says nothing of which)
            self.mixed = True
            mix = mix_first(g, [self.seat])
            if mix is not None:
                return mix
        return Decide((self.seat,), "return_card")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "return", "slot": s} for s in g.hand[seat]]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        g.discard_from_hand(seat, int(action["slot"]))
        self.returned.append(int(action["slot"]))
        g.log("returned", seat)
        return CONTINUE
