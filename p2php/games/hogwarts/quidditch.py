"""A Quidditch match (rules §15; data §5, C-25, C-37): who plays, how it starts and ends, and its reward.

A player who stops on the pitch and takes no portal (rules §10.2) may challenge any other player (C-25:
optional; the challenged player may not refuse).  The challenged figure is moved onto the pitch and goes back
to its cell after the match.  Each player chooses a house, the challenger first (each a different one, data
§5.3); both roll 1 die and the higher starts, ties rolled again (C-37; one joint draw, as in the underage
duel, since nobody decides between the rolls).  Phase 1 (:mod:`.quidditch_goals`) decides who starts
Phase 2 (:mod:`.quidditch_snitch`); whoever catches the Golden Snitch wins the match and 40 house points
(rules §4).  The challenger plays side A (west), the challenged side B (data §5.1).

Decisions (ours): a player's own sheet's house is offered first (any free house may be chosen); the match is
the pitch's whole cell effect, so the challenger's turn then goes on to its mission step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Randomness, Seat, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Replace, Task
from p2php.rng import DetRng

from .dice import SIDES
from .modes import SOLO, cooperative, teammates
from .quidditch_goals import Goals
from .quidditch_snitch import Snitch
from .snitch_practice import SnitchPractice

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["HOUSES", "MATCH_POINTS", "Challenge", "Match"]

HOUSES = ("gryffindor", "hufflepuff", "ravenclaw", "slytherin")
MATCH_POINTS = 40
"""Each match won brings 40 house points (rules §4, §15)."""


@dataclass
class Challenge(Task["HogwartsState"]):
    """``seat`` stands on the pitch: it challenges another player to a match, or plays none."""

    seat: int

    def run(self, g: HogwartsState) -> Outcome:
        return Decide((self.seat,), "challenge")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        others = [s for s in range(g.players) if s != self.seat and not teammates(g, self.seat, s)]
        practice: list[Action] = [{"type": "practice"}] if g.mode == SOLO or cooperative(g) else []
        return [{"type": "no_match"}, *practice, *({"type": "challenge", "seat": s} for s in others)]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        action = answers[0][1]
        if action["type"] == "no_match":
            return Done()
        if action["type"] == "practice":
            return Replace(SnitchPractice.of(self.seat))
        return Replace(Match(self.seat, int(action["seat"])))


@dataclass
class Match(Task["HogwartsState"]):
    """``challenger`` (side A) against ``challenged`` (side B).  Result: the winner's seat."""

    class Stage(Enum):
        HOUSES = auto()
        FIRST = auto()
        GOALS = auto()
        SNITCH = auto()
        OVER = auto()

    challenger: int
    challenged: int
    stage: Stage = Stage.HOUSES
    back: str = ""  # the challenged figure's cell, where it returns
    houses: list[str] = field(default_factory=list)
    first: int = -1  # the side that starts Phase 1
    phase1: int = -1  # the side that won Phase 1
    winner: int = -1  # the side that caught the Snitch

    @property
    def seats(self) -> list[int]:
        return [self.challenger, self.challenged]

    def run(self, g: HogwartsState) -> Outcome:
        S = Match.Stage
        if self.stage is S.HOUSES:
            if not self.back:
                self.back = g.pos[self.challenged]
                g.pos[self.challenged] = g.pos[self.challenger]
                g.log("quidditch_match", self.challenger, self.challenged)
                for seat in self.seats:  # taking part is what the qualified goal asks (rules §2)
                    g.matches[seat] += 1
            if len(self.houses) < len(self.seats):
                return Decide((self.seats[len(self.houses)],), "house")
            self.stage = S.FIRST
            return CONTINUE
        if self.stage is S.FIRST:
            return Randomness("quidditch_first")
        if self.stage is S.GOALS:
            self.stage = S.SNITCH
            return Call(Goals(self.seats, self.first), into="phase1")
        if self.stage is S.SNITCH:
            self.stage = S.OVER
            return Call(Snitch(self.seats, self.phase1), into="winner")
        seat = self.seats[self.winner]
        g.score(seat, MATCH_POINTS, "quidditch")
        g.pos[self.challenged] = self.back
        g.log("quidditch_won", seat, self.seats[1 - self.winner])
        return Done(seat)

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        own = g.student(seat).house.lower() if g.sheet[seat] else ""
        free = sorted((h for h in HOUSES if h not in self.houses), key=lambda h: h != own)
        return [{"type": "house", "house": h} for h in free]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        self.houses.append(str(answers[0][1]["house"]))
        return CONTINUE

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        rng = DetRng(random)
        while True:
            a, b = 1 + rng.below(SIDES), 1 + rng.below(SIDES)
            g.log("roll", "quidditch_first", [a, b])
            if a != b:
                break
        self.first = 0 if a > b else 1
        self.stage = Match.Stage.GOALS
        return CONTINUE
