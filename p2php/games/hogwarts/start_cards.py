"""Start-of-turn cards (rules §8.1, C-16): at most one, before the movement roll; it is opened when played
and goes under its deck.  What each does to the roll (data §2.2) is :func:`rolls_for`; the cards that
search a deck are played by :mod:`.search` before the roll.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import Done, Outcome, Task

from .battle import BATTLE_CARDS, hand_card
from .ids import deck_of_slot
from .search import searchable
from .terms import parse

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["OFFERED", "StartCard", "dice_for", "playable", "rolls_for"]

OFFERED = ("move(3d6keep2)", "move(+2)", "move(set1)", "move(pm1)", "stop_anywhere", "search(potion,spell)",
           "search(potion,spell,book)")
"""Every start-of-turn effect of the data (§2.3, §2.4)."""
SIDES = 6


def playable(g: HogwartsState, effect: str) -> bool:
    """Whether a start-of-turn card with ``effect`` does something now (a search needs a deck to search)."""
    if effect not in OFFERED:
        return False
    return not effect.startswith("search") or bool(searchable(g, parse(effect)[1]))


def dice_for(effect: str) -> int:
    """How many movement dice the turn rolls."""
    return 3 if effect == "move(3d6keep2)" else 2


def rolls_for(effect: str, dice: list[int]) -> list[int]:
    """The movement totals the turn may use, sorted."""
    total = sum(dice)
    if effect == "move(3d6keep2)":
        a, b, c = dice
        return sorted({a + b, a + c, b + c})
    if effect == "move(+2)":
        return [total + 2]
    if effect == "move(set1)":
        return sorted({other + face for other in dice for face in range(1, SIDES + 1)})
    if effect == "move(pm1)":
        return [total - 1, total, total + 1]
    return [total]


@dataclass
class StartCard(Task["HogwartsState"]):
    """``seat`` may play one start-of-turn card; the result is its effect term ("" for none)."""

    seat: int

    def slots(self, g: HogwartsState) -> list[Slot]:
        return [s for s in g.hand[self.seat] if deck_of_slot(s) in BATTLE_CARDS]

    def run(self, g: HogwartsState) -> Outcome:
        return Decide((self.seat,), "start_card") if self.slots(g) else Done("")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "no_start"}]
        for slot in self.slots(g):
            card = hand_card(g, slot, knowledge)
            if card is not None and card.use == "start" and playable(g, card.effect[0]):
                out.append({"type": "start", "slot": slot})
        return out

    def check(self, g: HogwartsState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action.get("type") == "no_start":
            return
        if action.get("type") != "start" or action.get("slot") not in self.slots(g):
            raise IllegalAction(f"not a start-of-turn card in seat {seat}'s hand: {action}")
        card = hand_card(g, action["slot"], knowledge)
        if card is not None and (card.use != "start" or not playable(g, card.effect[0])):
            raise IllegalAction(f"{card.name} is not a start-of-turn card this engine plays")

    def reveals(self, g: HogwartsState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return (action["slot"],) if action.get("type") == "start" and isinstance(action.get("slot"), int) else ()

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        if action["type"] == "no_start":
            return Done("")
        slot = int(action["slot"])
        card = hand_card(g, slot)
        if card is None or card.use != "start" or not playable(g, card.effect[0]):
            raise IllegalAction("the card opened is not a start-of-turn card this engine plays")
        g.discard_from_hand(seat, slot)
        g.log("start_card", seat, card.id)
        return Done(card.effect[0])
