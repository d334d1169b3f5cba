"""Losing a battle (rules §14.1): the figure goes to the Leaky Cauldron, every potion and spell card goes
under its deck (face down: nobody sees them), object and trip tokens stay, and the player takes 6 life
points (C-30: the LP are set to 6).  Book and Quidditch cards are kept (C-30)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2php.engine.contract import Seat

from .ids import deck_of_slot
from .state import LEAKY_CAULDRON

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["AFTER_DEFEAT_LP", "defeat"]

AFTER_DEFEAT_LP = 6
LOST_DECKS = ("spell", "potion")


def defeat(g: HogwartsState, seat: Seat) -> None:
    for slot in [s for s in g.hand[seat] if deck_of_slot(s) in LOST_DECKS]:
        g.discard_from_hand(seat, slot)
    g.pos[seat] = LEAKY_CAULDRON
    g.lp[seat] = AFTER_DEFEAT_LP
    g.fallen.append(seat)
    g.defeats[seat] += 1
    g.ended.append(seat)
    g.log("defeated", seat)
