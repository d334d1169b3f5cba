"""Snitch practice (C-11): solo, the Quidditch pitch offers Phase 2 alone — the Seeker must make a full circle
(progress 24) within 4 rolls, Quidditch cards allowed as in a match (:class:`.quidditch_snitch.Snitch`).  Taking
part meets a qualified solo game's Quidditch requirement (as taking part in a match does, rules §2); success
also scores 40 house points.

Decisions (ours): the practice is offered at both solo difficulties (it is solo's only way to Quidditch
points); a card that moves the opposing Seeker back has no one to move and is used up without effect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2php.engine.tasks import CONTINUE, Done, Outcome

from .quidditch_snitch import Snitch

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["PRACTICE_POINTS", "PRACTICE_ROLLS", "SnitchPractice"]

PRACTICE_ROLLS = 4
PRACTICE_POINTS = 40


@dataclass
class SnitchPractice(Snitch):
    """``seat`` alone on the circuit (both "sides" are its seat; only side 0 moves).  Result: caught or not."""

    seat: int = -1
    rolls: int = 0
    begun: bool = False

    @classmethod
    def of(cls, seat: int) -> SnitchPractice:
        return cls([seat, seat], 0, seat=seat)

    def run(self, g: HogwartsState) -> Outcome:
        if not self.begun:
            self.begun = True
            g.matches[self.seat] += 1
            g.log("snitch_practice", self.seat)
        return super().run(g)

    def turn_over(self, g: HogwartsState) -> Outcome:
        self.rolls += 1
        if self.caught():
            g.score(self.seat, PRACTICE_POINTS, "snitch_practice")
            g.log("snitch", self.seat)
            return Done(True)
        if self.rolls >= PRACTICE_ROLLS:
            g.log("snitch_missed", self.seat)
            return Done(False)
        self.stage = Snitch.Stage.ROLL
        return CONTINUE
