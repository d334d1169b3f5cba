"""The underage battle between two players (rules §14.6): a simplified dice duel, no cards.

Each player rolls 1 die; the lower roll loses 1 life point, a tie is rolled again; the first to have taken
2 life points from the other wins and takes *one* of: an object token, a portal token, a flying powder
token, or a card from the loser's hand drawn at random (joint randomness; only the winner then sees it).
Afterwards the two may not attack each other until each has played 2 more turns (C-34).

Decisions (ours): a winner already holding 6 object tokens is not offered a token (the sheet has no room).
The whole dice duel comes from one joint Randomness (the dice pairs, ties re-rolled, drawn in order from its
bytes): nobody decides anything between two rolls, so nothing is learnt early, and a game needs far fewer
joint draws (each one a message round).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Randomness, Seat, Show, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task
from p2php.rng import DetRng

from .dice import SIDES
from .state import MAX_TOKENS

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["PlayerBattle", "TRUCE_TURNS", "WINNING_HITS"]

WINNING_HITS = 2
TRUCE_TURNS = 2


@dataclass
class PlayerBattle(Task["HogwartsState"]):
    """``mover`` entered a cell with the ``candidates``' figures: it picks one (if several) and they duel."""

    class Stage(Enum):
        PICK = auto()
        ROLL = auto()
        PRIZE = auto()
        STEAL = auto()
        SHOW = auto()
        OVER = auto()

    mover: int
    candidates: list[int]
    stage: Stage = Stage.PICK
    opponent: int = -1
    hits: list[int] = field(default_factory=lambda: [0, 0])  # taken by the mover, by the opponent
    winner: int = -1
    loser: int = -1
    stolen: int = -1

    def run(self, g: HogwartsState) -> Outcome:
        S = PlayerBattle.Stage
        if self.stage is S.PICK:
            if len(self.candidates) > 1:
                return Decide((self.mover,), "opponent")
            self.opponent = self.candidates[0]
            self.stage = S.ROLL
            g.log("player_battle", self.mover, self.opponent)
            return CONTINUE
        if self.stage is S.ROLL:
            return Randomness("player_battle")
        if self.stage is S.PRIZE:
            if not self.prizes(g):
                return self.finish(g)
            return Decide((self.winner,), "prize")
        if self.stage is S.STEAL:
            return Randomness("steal")
        if self.stage is S.SHOW:
            return Show((self.stolen,), self.winner, self.winner)
        return self.finish(g)

    def duel(self, g: HogwartsState, random: bytes) -> None:
        """Roll die against die until one side has taken 2 LP (a tie is rolled again)."""
        rng = DetRng(random)
        while WINNING_HITS not in self.hits:
            mine, theirs = 1 + rng.below(SIDES), 1 + rng.below(SIDES)
            g.log("roll", "player_battle", [mine, theirs])
            if mine != theirs:
                loser = self.opponent if mine > theirs else self.mover
                g.lp[loser] -= 1
                self.hits[0 if loser == self.opponent else 1] += 1
        self.winner = self.mover if self.hits[0] == WINNING_HITS else self.opponent
        self.loser = self.opponent if self.winner == self.mover else self.mover
        g.log("player_battle_won", self.winner, self.loser)
        self.stage = PlayerBattle.Stage.PRIZE

    def prizes(self, g: HogwartsState) -> list[Action]:
        w, lo = self.winner, self.loser
        out: list[Action] = []
        if len(g.held[w]) < MAX_TOKENS:
            out.extend({"type": "prize", "what": "token", "token": t} for t in dict.fromkeys(g.held[lo]))
        if g.portals[lo]:
            out.append({"type": "prize", "what": "portal"})
        if g.powder[lo]:
            out.append({"type": "prize", "what": "powder"})
        if g.hand[lo]:
            out.append({"type": "prize", "what": "card"})
        return out

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.stage is PlayerBattle.Stage.PICK:
            return [{"type": "opponent", "seat": s} for s in self.candidates]
        return self.prizes(g)

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        _seat, action = answers[0]
        if action["type"] == "opponent":
            self.opponent = int(action["seat"])
            self.stage = PlayerBattle.Stage.ROLL
            g.log("player_battle", self.mover, self.opponent)
            return CONTINUE
        what = action["what"]
        w, lo = self.winner, self.loser
        if what == "token":
            g.held[lo].remove(str(action["token"]))
            g.held[w].append(str(action["token"]))
        elif what == "portal":
            g.portals[lo] -= 1
            g.portals[w] += 1
        elif what == "powder":
            g.powder[lo] -= 1
            g.powder[w] += 1
        else:
            self.stage = PlayerBattle.Stage.STEAL
            return CONTINUE
        g.log("prize", w, what)
        return self.finish(g)

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if isinstance(step, Randomness) and step.purpose == "player_battle":
            self.duel(g, random)
            return CONTINUE
        if isinstance(step, Randomness):
            hand = g.hand[self.loser]
            self.stolen = hand[DetRng(random).below(len(hand))]
            hand.remove(self.stolen)
            g.hand[self.winner].append(self.stolen)
            g.log("prize", self.winner, "card")
            self.stage = PlayerBattle.Stage.SHOW
            return CONTINUE
        return self.finish(g)

    def finish(self, g: HogwartsState) -> Outcome:
        # the mover's own turn is still running: it is not one of its 2 "more" turns
        g.truces.append([self.mover, self.opponent, TRUCE_TURNS + 1, TRUCE_TURNS])
        return Done(self.winner)
