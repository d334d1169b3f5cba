"""Dice from the session's joint randomness: a :class:`Roll` task asks for a Randomness step and hands back
its faces (1..6), drawn without modulo bias from the 32 joint bytes (:class:`~p2php.rng.DetRng`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2php.engine.contract import CardId, Randomness, Slot, Step
from p2php.engine.tasks import Done, Outcome, Task
from p2php.rng import DetRng

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["SIDES", "Roll", "faces"]

SIDES = 6


def faces(random: bytes, n: int) -> list[int]:
    """``n`` die faces from joint random bytes (the same bytes give the same faces on every peer)."""
    rng = DetRng(random)
    return [1 + rng.below(SIDES) for _ in range(n)]


@dataclass
class Roll(Task["HogwartsState"]):
    """Roll ``n`` dice; the result is the list of faces.  ``purpose`` names the roll in the transcript."""

    n: int
    purpose: str

    def run(self, g: HogwartsState) -> Outcome:
        if self.n <= 0:
            return Done([])
        return Randomness(self.purpose)

    def received(self, g: HogwartsState, step: Step, faces_: Mapping[Slot, CardId], random: bytes) -> Outcome:
        rolled = faces(random, self.n)
        g.log("roll", self.purpose, rolled)
        return Done(rolled)
