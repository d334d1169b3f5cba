"""The flow of the game: set-up, then turns clockwise from the first player (rules §7) until, after a round
in which some player met the length's conditions, the round is finished (C-15).

A turn (rules §8, §12): 1. at most one start-of-turn card (a deck search is made at once, a movement card
changes the roll); 2. the roll (2 dice of joint randomness) and the move, picking up object tokens on the
way; 3. a battle with a player whose cell the move entered, which ends the turn; or 4. a trip (flying
powder, portal, Buckbeak: no cell effect there, C-21) or the effect of the cell; 5. a mission attempt; then
the figure returns from a trip (not after a defeat), truces count down and the Time-Turner may give one
more turn (C-49).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, GameOver, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Replace, Task

from .cells_effects import CellEffect
from .dice import Roll
from .mission_flow import MissionAttempt
from .moves import Move, Moved, Pickups, Trip
from .qualified_battles import player_battle
from .rules import final_scores, lost, meets_goal, opponents_at
from .search import SearchDeck
from .setup import Setup
from .start_cards import StartCard, dice_for, rolls_for
from .terms import parse

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["PlaceUsed", "TimeTurner", "Turn", "Year"]

DIAGON_ALLEY_STARS = "board1"
"""Used special tokens go to one of the three star cells of Diagon Alley (rules §13, C-29)."""


@dataclass
class PlaceUsed(Task["HogwartsState"]):
    """A used special object token goes to a Diagon Alley star cell of its user's choice."""

    seat: int
    token: str

    def run(self, g: HogwartsState) -> Outcome:
        return Decide((self.seat,), "place_used")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        cells = [c.id for c in g.data.cells.values() if c.board == DIAGON_ALLEY_STARS and c.kind == "star"]
        return [{"type": "place", "token": self.token, "cell": c} for c in cells]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        g.place_token(str(answers[0][1]["cell"]), self.token)
        return Done()


@dataclass
class TimeTurner(Task["HogwartsState"]):
    """At the end of its turn a holder of the Time-Turner may use it for one more turn (C-49)."""

    seat: int

    def run(self, g: HogwartsState) -> Outcome:
        # An extra turn counts toward the year's guard (YEAR_ROUNDS): without this a seat that takes the token back
        # in each extra turn (it is put on a Diagon Alley star, which some walks cross whatever the roll) played on
        # for ever, since Year.run, which ends the year, never ran again.  Once the year is over, no extra turn.
        if "time_turner" not in g.held[self.seat] or g.turns + g.extra_turns >= YEAR_ROUNDS * g.players:
            return Done()
        return Decide((self.seat,), "time_turner")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "pass"}, {"type": "time_turner"}]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        if answers[0][1]["type"] == "pass":
            return Done()
        g.held[self.seat].remove("time_turner")
        g.log("time_turner", self.seat)
        g.extra_turns += 1
        return Replace(PlaceUsed(self.seat, "time_turner"), Turn(self.seat))


@dataclass
class Turn(Task["HogwartsState"]):
    class Stage(Enum):
        BEGIN = auto()
        START_CARD = auto()
        ROLL = auto()
        MOVE = auto()
        PICKUPS = auto()
        AFTER_MOVE = auto()
        TRIP = auto()
        EFFECT = auto()
        MISSION = auto()
        END = auto()

    seat: int
    stage: Stage = Stage.BEGIN
    start: str = ""
    dice: list[int] | None = None
    moved: Moved | None = None
    taken: int = 0
    trip: list[str] | None = None
    origin: str = ""

    def run(self, g: HogwartsState) -> Outcome:
        S = Turn.Stage
        seat = self.seat
        if self.stage is S.BEGIN:
            g.turn = seat
            g.fallen, g.ended = [], []
            g.events = []
            g.log("turn", seat, g.turns)
            self.stage = S.START_CARD
            return Call(StartCard(seat), into="start")
        if self.stage is S.START_CARD:
            if self.start.startswith("search"):  # Accio, Felix Felicis: a card from a deck first
                decks = parse(self.start)[1]
                self.start = ""
                return Push(SearchDeck(seat, decks))
            self.stage = S.ROLL
            return Call(Roll(dice_for(self.start), "move"), into="dice")
        if self.stage is S.ROLL:
            self.stage = S.MOVE
            rolls = rolls_for(self.start, self.dice or [])
            return Call(Move(seat, rolls, self.start == "stop_anywhere"), into="moved")
        if self.stage is S.MOVE:
            self.stage = S.PICKUPS
            assert self.moved is not None
            return Call(Pickups(seat, list(self.moved.path[1:])), into="taken")
        if self.stage is S.PICKUPS:
            return self.after_move(g)
        if self.stage is S.AFTER_MOVE:
            return self.after_trip(g)
        if self.stage is S.TRIP:
            self.stage = S.MISSION
            return Call(Pickups(seat, [g.pos[seat]], self.taken), into="taken")
        if self.stage is S.EFFECT:
            self.stage = S.MISSION
            return Push(CellEffect(seat))
        if self.stage is S.MISSION:
            self.stage = S.END
            if seat in g.ended:
                return CONTINUE
            slot = self.moved.mission if self.moved is not None and not self.trip else -1
            return Push(MissionAttempt(seat, slot))
        return self.end(g)

    def after_move(self, g: HogwartsState) -> Outcome:
        assert self.moved is not None
        seat = self.seat
        entered = len(self.moved.path) > 1
        opponents = opponents_at(g, seat, g.pos[seat]) if entered and g.ability(seat)[0] != "rat" else []
        eater = entered and g.pos[seat] in g.death_eaters and g.ability(seat)[0] != "rat"
        if eater or opponents:
            self.stage = Turn.Stage.END  # after a battle caused by a mandatory stop the turn ends (rules §8)
            return Push(player_battle(g, seat, opponents))
        self.stage = Turn.Stage.AFTER_MOVE
        return Call(Trip(seat), into="trip")

    def after_trip(self, g: HogwartsState) -> Outcome:
        if not self.trip:
            waited = self.moved is not None and self.moved.waited  # team mode: no effect again (rules §11)
            self.stage = Turn.Stage.MISSION if waited else Turn.Stage.EFFECT
            return CONTINUE
        kind, dest = self.trip
        self.origin = g.pos[self.seat]
        g.pos[self.seat] = dest
        self.stage = Turn.Stage.TRIP
        if kind == "buckbeak":
            g.held[self.seat].remove("buckbeak")
            return Push(PlaceUsed(self.seat, "buckbeak"))
        return CONTINUE

    def end(self, g: HogwartsState) -> Outcome:
        seat = self.seat
        if self.trip and seat not in g.fallen:
            g.pos[seat] = self.origin
        for truce in g.truces:
            for i in (0, 1):
                if truce[i] == seat:
                    truce[2 + i] -= 1
        g.truces = [t for t in g.truces if t[2] > 0 or t[3] > 0]
        for s in range(g.players):
            if s not in g.qualified and meets_goal(g, s):
                g.qualified.append(s)
                g.log("goal", s)
        return Replace(TimeTurner(seat))


YEAR_ROUNDS = 1000
"""Rounds in a school year: a game nobody has won by then ends with no winner (E34), so every game ends, even
one whose goal became out of reach (a portal token spent, a needed token gone)."""


@dataclass
class Year(Task["HogwartsState"]):
    """The whole game, at the bottom of the stack."""

    class Stage(Enum):
        SETUP = auto()
        TURNS = auto()

    stage: Stage = Stage.SETUP
    next_seat: int = -1
    played: int = 0

    def run(self, g: HogwartsState) -> Outcome:
        if self.stage is Year.Stage.SETUP:
            self.stage = Year.Stage.TURNS
            self.next_seat = g.first
            return Push(Setup())
        if lost(g):
            return GameOver((), final_scores(g), "the game is lost: too many defeats (solo, or one team of all)")
        if self.played and self.next_seat == g.first and g.qualified:
            winners = tuple(sorted(g.qualified))
            return GameOver(winners, final_scores(g), f"the Hogwarts Cup: seats {', '.join(map(str, winners))}")
        if g.turns + g.extra_turns >= YEAR_ROUNDS * g.players and self.next_seat == g.first:  # E34: the school
            # year ends (its turns in all: Time-Turner turns count)
            return GameOver((), final_scores(g), f"the year is over after {YEAR_ROUNDS} rounds: nobody won the Cup"
                            + (" (the game is lost)" if g.mode == "solo" else ""))
        seat = self.next_seat
        self.next_seat = (seat + 1) % g.players
        self.played += 1
        g.turns += 1
        return Push(Turn(seat))
