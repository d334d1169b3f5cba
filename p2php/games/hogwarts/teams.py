"""Team mode's shared knowledge (rules §3, §11, C-8): teammates "work together to complete missions", so after
the deal each player's secret missions are shown to its teammates (the protocol's private Show: the other
teams still see only card backs).  A mission is attempted by the player who holds it, with every teammate on
its location, the team's object tokens and the holder's cards (:func:`.rules.can_attempt`), and fought by the
whole team (:class:`.battle.Battle`, the enemy's LP multiplied by the members, 2 cards each).

Decisions (ours): the qualified cards a team mission needs come from the holder's hand (each hand is secret
to its player, and the cards are shown by the one who opens the mission); members may wait on a mission's
location instead of moving (rules §11: "you may refrain from moving and wait for the others"), which the move
offers on any cell that is some mission's location (a public fact, so it reveals nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2php.engine.contract import CardId, Show, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task

from .modes import teammates

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["ShareMissions"]


@dataclass
class ShareMissions(Task["HogwartsState"]):
    """Show each player's missions to each of its teammates, pair by pair in seat order."""

    shown: int = 0

    def pairs(self, g: HogwartsState) -> list[tuple[int, int]]:
        return [(a, b) for a in range(g.players) for b in range(g.players) if teammates(g, a, b) and g.missions[a]]

    def run(self, g: HogwartsState) -> Outcome:
        pairs = self.pairs(g)
        if self.shown >= len(pairs):
            return Done()
        owner, viewer = pairs[self.shown]
        return Show(tuple(g.missions[owner]), owner, viewer)

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        self.shown += 1
        return CONTINUE
