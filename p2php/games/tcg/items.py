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

from p2php.engine.contract import Seat, Slot
from p2php.games.tcg.cards import Card, LessonType
from p2php.games.tcg.power import power
from p2php.games.tcg.state import TcgState

__all__ = ["ITEMS", "WAND_NEEDS", "item_blocked", "play_item"]

WAND_NEEDS: dict[int, int] = {78: 0, 51: 2, 31: 3}
"""Wand number -> Charms Power that cards in play must already provide: Borrowed, Dragon Heart, Phoenix Feather."""

ITEMS = frozenset({*WAND_NEEDS, 12, 33, 65, 99})
"""Items implemented: the three Wands, Pewter and Silver Cauldron (Power only); Invisibility Cloak and
Potion Ingredients (effects at Spell damage, ``triggers.py``)."""


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
