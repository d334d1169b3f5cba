"""What stopping on a cell does (rules §10, data §1.1 and §1.7).

Symbol cells draw from their deck (spell, potion, book: into the hand; action and event: face up, applied;
duel: a battle), life cells heal, classrooms and special cells give their §1.7 cards (and exams in a
classroom), a common room gives 1 card of the player's choice, and the Quidditch pitch offers a match
(:mod:`.quidditch`; the portal trip instead is ``moves.Trip``, asked first).  The movement abilities that
change an effect are here too (data §4.3: ``*_cell_x2`` on symbol cells only, Ron's and Luna's picks, Cho's
card, taken before the challenge so that she may play it in the match).

Decisions (ours): a common room's exchange is one token for one token, and it uses up the room's effect
whether or not the other player accepts (the rules say "take a card, or offer an exchange").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Replace, Task

from .battle import Battle
from .cards_flow import ActionCards, Exam, ReturnCards
from .decks import Draw, OpenTop
from .events import ChooseDeck, Event
from .ids import instance
from .modes import difficulty
from .quidditch import Challenge

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["CellEffect", "CommonRoom", "Duel", "card_limit"]

DOUBLED = {"spell": "spell_cell_x2", "potion": "potion_cell_x2", "book": "book_cell_x2"}
COMMON_ROOM_CHOICES = ("action", "book", "potion", "spell")
DUEL_LOSS_CARDS = 3
DUEL_PRIZE = ("book", "potion", "spell")
CARD_LIMIT = {"underage": 5, "qualified": 3}
"""Potion or spell cards per battle (rules §14.1)."""


TEAM_CARD_LIMIT = 2
"""Team mode: 2 potion or spell cards per player per battle (C-10)."""


def card_limit(g: HogwartsState) -> int:
    return TEAM_CARD_LIMIT if g.mode == "team" else CARD_LIMIT[difficulty(g)]


def effect_tasks(g: HogwartsState, seat: Seat) -> list[Task[HogwartsState]]:
    """The tasks of the effect of the cell ``seat`` stands on, in order (none for a plain cell)."""
    cell = g.data.cells[g.pos[seat]]
    move_ability = g.ability(seat)[0]
    kind = cell.kind
    if kind in DOUBLED:
        return [Draw(seat, kind, 2 if move_ability == DOUBLED[kind] else 1)]
    if kind == "action":
        return [ActionCards(seat, 2 if move_ability == "action_pick" else 1)]
    if kind == "event":
        return [Event(seat)]
    if kind == "duel":
        return [Duel(seat)] if g.lp[seat] > 1 else []  # "the fallen are not attacked" (rules §14.3)
    if cell.life_points is not None:
        g.heal(seat, cell.life_points)
        return []
    if kind == "common_room":
        return [CommonRoom(seat, 2 if move_ability == "common_room_x2" else 1)]
    if kind == "quidditch_pitch":
        cho: list[Task[HogwartsState]] = [Draw(seat, "quidditch")] if move_ability == "pitch_pass" else []
        return [*cho, Challenge(seat)]
    effect = g.data.cell_effects.get(cell.id)
    if effect is None:
        return []
    tasks: list[Task[HogwartsState]] = [Draw(seat, deck, n) for deck, n in effect.take]
    tasks.extend(ActionCards(seat) for _ in range(effect.action_draws))
    if effect.exam:
        tasks.append(Exam(seat, effect.exam))
    return tasks


@dataclass
class CellEffect(Task["HogwartsState"]):
    seat: int

    def run(self, g: HogwartsState) -> Outcome:
        tasks = effect_tasks(g, self.seat)
        return Replace(*tasks) if tasks else Done()


@dataclass
class CommonRoom(Task["HogwartsState"]):
    """Take ``n`` cards, each from the action, book, potion or spell deck (an action card is applied, C-24),
    or offer another player an exchange of object tokens, which that player may refuse (rules §10.2)."""

    seat: int
    n: int
    offer: list[str] = field(default_factory=list)  # [other seat, token given, token asked] while asked

    def exchanges(self, g: HogwartsState) -> list[Action]:
        out: list[Action] = []
        for other in range(g.players):
            if other == self.seat:
                continue
            for give in dict.fromkeys(g.held[self.seat]):
                out.extend({"type": "exchange", "with": other, "give": give, "take": take}
                           for take in dict.fromkeys(g.held[other]))
        return out

    def run(self, g: HogwartsState) -> Outcome:
        if self.offer:
            return Decide((int(self.offer[0]),), "exchange_offer")
        if self.n <= 0 or not self.legal(g, self.seat, g.public()):
            return Done()
        return Decide((self.seat,), "common_room")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.offer:
            return [{"type": "refuse"}, {"type": "accept"}]
        return [*({"type": "deck", "deck": d} for d in COMMON_ROOM_CHOICES if g.deck[d]), *self.exchanges(g)]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        action = answers[0][1]
        if action["type"] == "exchange":
            self.offer = [str(action["with"]), str(action["give"]), str(action["take"])]
            return CONTINUE
        if action["type"] in ("accept", "refuse"):
            other, give, take = int(self.offer[0]), self.offer[1], self.offer[2]
            self.offer = []
            if action["type"] == "accept":
                g.held[self.seat].remove(give)
                g.held[other].remove(take)
                g.held[self.seat].append(take)
                g.held[other].append(give)
            g.log("exchange", self.seat, other, give, take, action["type"])
            return Done()
        deck = str(action["deck"])
        self.n -= 1
        return Push(ActionCards(self.seat) if deck == "action" else Draw(self.seat, deck))


@dataclass
class Duel(Task["HogwartsState"]):
    """A duel card (rules §14.3): a card showing the player's own character goes under and another is drawn
    (Draco may refuse the duel first and take 1 spell card, data §4.1).
    Win: 1 book, 1 potion and 1 spell card (1 of choice if the enemy fled); loss (at 1 LP, C-32): 3 cards of
    the player's choice go under their decks."""

    class Stage(Enum):
        REFUSE = auto()  # Draco's duel_refuse: fight, or take 1 spell card instead
        DRAW = auto()
        FIGHT = auto()
        OUTCOME = auto()

    seat: int
    stage: Stage = Stage.REFUSE
    drawn: list[int] | None = None
    card: int = -1
    skipped: int = 0
    result: str = ""

    def run(self, g: HogwartsState) -> Outcome:
        S = Duel.Stage
        if self.stage is S.REFUSE:
            if g.ability(self.seat)[0] == "duel_refuse" and g.deck["duel"]:
                return Decide((self.seat,), "duel_refuse")
            self.stage = S.DRAW
            return CONTINUE
        if self.stage is S.DRAW:
            if self.drawn is None:
                return Call(OpenTop("duel"), into="drawn")
            if not self.drawn:
                return Done()
            slot, self.drawn = self.drawn[0], None
            enemy = g.data.duels[instance(g.pub[slot]).card]
            if enemy.name == g.student(self.seat).name and self.skipped < len(g.data.duels):
                g.under(slot)
                self.skipped += 1
                return CONTINUE
            self.card, self.stage = slot, S.FIGHT
            return CONTINUE
        if self.stage is S.FIGHT:
            self.stage = S.OUTCOME
            enemy_id = instance(g.pub[self.card]).card
            return Call(Battle([self.seat], enemy_id, "duel", card_limit(g)), into="result")
        g.under(self.card)
        if self.result == "won":
            return Replace(*(Draw(self.seat, d) for d in DUEL_PRIZE))
        if self.result == "fled":
            return Replace(ChooseDeck(self.seat, list(DUEL_PRIZE)))
        if self.result == "escaped":  # Pettigrew fled: no winner
            return Done()
        return Replace(ReturnCards(self.seat, DUEL_LOSS_CARDS))

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "fight"}, {"type": "refuse"}]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        if answers[0][1]["type"] == "refuse":
            g.log("duel_refused", self.seat)
            return Replace(Draw(self.seat, "spell"))
        self.stage = Duel.Stage.DRAW
        return CONTINUE
