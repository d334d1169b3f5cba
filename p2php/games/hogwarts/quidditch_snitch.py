"""Phase 2 of a Quidditch match: the hunt for the Golden Snitch (rules §15.3, data §5.2 and §2.10, C-37, C-40).

Both Seekers start on the circuit's starting cell; the winner of Phase 1 goes first.  A turn: 2 dice of joint
randomness move the Seeker that many cells clockwise; then its player may play one Quidditch card from the
hand (C-40: after the roll), which opens it to everyone and puts it under the Quidditch deck (C-37):

* ``seeker(+N)``: N more cells (Firebolt Dash, Nimbus); ``seeker(+1d6)``: one more die (Wronski Feint);
* ``opponent(-N)``: the opposing Seeker goes N cells back (Confundus Charm, Bludger Backbeat), never behind
  the starting cell;
* ``guard``: until its next turn the Seeker cannot be moved back (Starfish and Stick);
* ``reroll1``: re-roll one of the turn's two dice, which replaces it (Plumpton Pass).

The first Seeker whose progress reaches the circuit's length (24 cells) has made a full circle and catches
the Snitch (overshooting is fine).  The result is the winning side.

Decisions (ours): the Seeker that reaches 24 by the roll alone has caught the Snitch before any card; the
die Plumpton Pass re-rolls is chosen after the card is opened (a second decision), so a card's action never
depends on its hidden face; a Confundus Charm against a guarded Seeker is used up without effect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Task

from .cards import QuidditchCard
from .dice import Roll
from .ids import deck_of_slot, instance
from .pitch_grid import pitch
from .terms import parse

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["QUIDDITCH", "Snitch", "circuit_cell", "quidditch_card", "quidditch_slots"]

QUIDDITCH = "quidditch"


def circuit_length() -> int:
    return len(pitch().circuit)


def circuit_cell(progress: int) -> str:
    """The circuit cell (``s01``..``s24``) of a Seeker that has made ``progress`` cells."""
    return pitch().circuit[progress % circuit_length()].id


def quidditch_slots(g: HogwartsState, seat: Seat) -> list[Slot]:
    """The Quidditch cards in ``seat``'s hand (public: card backs)."""
    return [s for s in g.hand[seat] if deck_of_slot(s) == QUIDDITCH]


def quidditch_card(g: HogwartsState, slot: Slot, knowledge: Knowledge | None = None) -> QuidditchCard | None:
    face = g.pub.get(slot) if knowledge is None else knowledge.face(slot)
    if face is None or instance(face).deck != QUIDDITCH:
        return None
    return g.data.quidditch_cards[instance(face).card]


@dataclass
class Snitch(Task["HogwartsState"]):
    """Phase 2 between ``seats`` (side A's seat, side B's); ``side`` (Phase 1's winner) goes first."""

    class Stage(Enum):
        ROLL = auto()
        CARD = auto()
        REROLL = auto()
        EXTRA = auto()

    seats: list[int]
    side: int
    stage: Stage = Stage.ROLL
    progress: list[int] = field(default_factory=lambda: [0, 0])
    guard: list[bool] = field(default_factory=lambda: [False, False])
    dice: list[int] = field(default_factory=list)
    rolled: list[int] = field(default_factory=list)  # this turn's two movement dice
    extra: int = -1  # -1: Wronski Feint's extra die; 0 or 1: the movement die Plumpton Pass re-rolls

    def advance(self, g: HogwartsState, side: int, n: int) -> None:
        self.progress[side] = max(0, self.progress[side] + n)
        g.log("seeker", self.seats[side], n, self.progress[side])

    def caught(self) -> bool:
        return self.progress[self.side] >= circuit_length()

    def run(self, g: HogwartsState) -> Outcome:
        S = Snitch.Stage
        seat = self.seats[self.side]
        if self.stage is S.ROLL:
            if not self.dice:
                self.guard[self.side] = False  # Starfish and Stick lasts until its player's next turn
                return Call(Roll(2, "seeker"), into="dice")
            self.rolled, self.dice = self.dice, []
            self.advance(g, self.side, sum(self.rolled))
            if self.caught() or not quidditch_slots(g, seat):
                return self.turn_over(g)
            self.stage = S.CARD
            return Decide((seat,), "quidditch_card")
        if self.stage is S.CARD:
            return Decide((seat,), "quidditch_card")
        if self.stage is S.REROLL:
            return Decide((seat,), "reroll_die")
        if self.extra < 0:  # EXTRA: the die rolled for a card
            self.advance(g, self.side, self.dice[0])
        else:
            self.advance(g, self.side, self.dice[0] - self.rolled[self.extra])
        self.dice = []
        return self.turn_over(g)

    def turn_over(self, g: HogwartsState) -> Outcome:
        if self.caught():
            g.log("snitch", self.seats[self.side])
            return Done(self.side)
        self.side = 1 - self.side
        self.stage = Snitch.Stage.ROLL
        return CONTINUE

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.stage is Snitch.Stage.REROLL:
            return [{"type": "reroll", "die": i} for i in range(len(self.rolled))]
        return [{"type": "no_card"}, *({"type": "card", "slot": s} for s in quidditch_slots(g, seat))]

    def reveals(self, g: HogwartsState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return (action["slot"],) if action.get("type") == "card" and isinstance(action.get("slot"), int) else ()

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        if action["type"] == "reroll":
            self.extra, self.stage = int(action["die"]), Snitch.Stage.EXTRA
            return Call(Roll(1, "plumpton_pass"), into="dice")
        if action["type"] == "no_card":
            return self.turn_over(g)
        slot = int(action["slot"])
        card = quidditch_card(g, slot)
        if card is None:
            raise IllegalAction(f"slot {slot} opened no Quidditch card")
        g.discard_from_hand(seat, slot)
        g.log("quidditch_card", seat, card.id)
        return self.play(g, card)

    def play(self, g: HogwartsState, card: QuidditchCard) -> Outcome:
        other = 1 - self.side
        for term in card.effect:
            head, args = parse(term)
            if head == "seeker" and args[0] == "+1d6":
                self.extra, self.stage = -1, Snitch.Stage.EXTRA
                return Call(Roll(1, "wronski_feint"), into="dice")
            if head == "seeker":
                self.advance(g, self.side, int(args[0]))
            elif head == "opponent" and not self.guard[other]:
                self.advance(g, other, int(args[0]))
            elif head == "guard":
                self.guard[self.side] = True
            elif head == "reroll1":
                self.stage = Snitch.Stage.REROLL
                return CONTINUE
        return self.turn_over(g)
