"""Items (§5.4): cards that stay in play and mostly provide Power (Wands, Cauldrons).

An Item is played with 1 Action (``turn.py``'s §5.4 decision), after the Power check and any
additional cost (Cauldrons discard Potions Lessons, :data:`~p2php.games.tcg.effects.COSTS`); it then
stays in play on its owner's side (:attr:`TcgState.items`) and its :attr:`Card.provides` counts as
Power (``power.py``), like a Lesson's, until it leaves play.

Wands: "Play this card only if you have cards in play that provide at least N Charms Power" is a play
condition counted before the Wand enters (:data:`WAND_NEEDS`); "If you play this card and you already
have a Wand in play, discard the old one" is done as the new Wand enters (§6: one Wand of yours in
play).  Decision (§5.4/§6 are silent): the old Wand's Power counts for the new Wand's condition and
Power check, since it is still in play when the new one is played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Seat, Slot
from p2php.engine.tasks import Done, Outcome, Task
from p2php.games.tcg.adventures import play_forbidden
from p2php.games.tcg.cards import Card, LessonType
from p2php.games.tcg.power import power
from p2php.games.tcg.spells import PickCreature, Retrieve
from p2php.games.tcg.state import TcgState

__all__ = [
    "ITEMS", "USES", "WAND_NEEDS", "MuzzleCreature", "item_actions", "item_blocked", "item_cost", "play_item",
    "use_item",
]

CAGE, REMEMBRALL, WINGED_KEYS = 46, 101, 72
USES = frozenset({CAGE, REMEMBRALL, WINGED_KEYS})
"""Items with an ability used during the turn."""

WAND_NEEDS: dict[int, int] = {78: 0, 51: 2, 31: 3}
"""Wand number -> Charms Power that cards in play must already provide: Borrowed, Dragon Heart, Phoenix Feather."""

ITEMS = frozenset({*WAND_NEEDS, *USES, 12, 33, 65, 99})
"""Items implemented: the three Wands, Pewter and Silver Cauldron (Power only); Invisibility Cloak and
Potion Ingredients (effects at Spell damage, ``triggers.py``); Cage, Remembrall, Winged Keys (uses)."""


def item_blocked(g: TcgState, seat: Seat, card: Card) -> str | None:
    """A Wand's play condition, or None."""
    need = WAND_NEEDS.get(card.number, 0)
    if need and power(g, seat)[LessonType.CHARMS] < need:
        return f"{card.name} needs cards in play providing {need} Charms Power"
    return None


def play_item(g: TcgState, seat: Seat, slot: Slot) -> None:
    """``slot`` (an Item, cost paid) enters play; a new Wand sends the old one to the discard pile."""
    if "Wand" in g.card(slot).keywords:
        for old in [s for s in g.items[seat] if "Wand" in g.card(s).keywords]:
            g.discard_from_play(old)
    g.items[seat].append(slot)


def _usable(g: TcgState, seat: Seat, slot: Slot, left: int) -> bool:
    number = g.card(slot).number
    if number == CAGE:
        return left >= 1 and bool(g.creatures[0] or g.creatures[1])
    if number == REMEMBRALL:
        return left >= 1 and play_forbidden(g, seat) is None and any(
            g.card(s).type.value == "lesson" for s in g.discard[seat])
    return number == WINGED_KEYS and bool(g.creatures[1 - seat]) and [seat, slot, g.turns] not in g.used


def item_actions(g: TcgState, seat: Seat, left: int) -> list[Action]:
    """The Item uses ``seat`` may make now with ``left`` Actions (one per Item in play: copies are separate)."""
    return [{"type": "item", "slot": s} for s in g.items[seat]
            if g.card(s).number in USES and _usable(g, seat, s, left)]


def item_cost(g: TcgState, slot: Slot) -> int:
    """Actions a use of the Item costs."""
    return 0 if g.card(slot).number == WINGED_KEYS else 1


def use_item(g: TcgState, seat: Seat, slot: Slot) -> list[Task[TcgState]]:
    """Carry out an Item's use (checked usable): its tasks."""
    number = g.card(slot).number
    g.log("item", seat, slot)
    if number == CAGE:
        g.discard_from_play(slot)
        return [PickCreature(seat, -1, home=True)]
    if number == REMEMBRALL:
        return [Retrieve(seat, "lesson", 1, False, to_play=True)]
    g.used.append([seat, slot, g.turns])
    return [MuzzleCreature(seat)]


@dataclass
class MuzzleCreature(Task[TcgState]):
    """Winged Keys: ``seat`` picks one of the opponent's Creatures, whose damage is prevented for a while."""

    seat: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "muzzle") if g.creatures[1 - self.seat] else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "creature", "slot": s} for s, _ in g.creatures[1 - self.seat]]

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        g.muzzled.append([action["slot"], g.turns + 1])  # "until the end of your opponent's next turn"
        return Done()
