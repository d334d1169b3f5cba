"""The underage battle between two players (rules §14.6): a simplified dice duel, no cards.

Each player rolls 1 die; the lower roll loses 1 life point, a tie is rolled again; the first to have taken
2 life points from the other wins and takes *one* of: an object token, a portal token, a flying powder
token, or a card from the loser's hand drawn at random (joint randomness; only the winner then sees it).
Afterwards the two may not attack each other until each has played 2 more turns (C-34).

Before the roll, the Invisibility Cloak is offered to whoever holds it, the mover first (E36): used, the
duel ends with no winner and no prize, the escaper moves up to 5 steps by the normal rules without battles
(C-28) and puts the Cloak on a Diagon Alley star cell (C-29); the truce follows as after any battle (C-34).

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

from .battle import CLOAK, escape_actions, place_actions
from .dice import SIDES
from .remask import mix_first
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
        CLOAK = auto()
        ESCAPE = auto()
        PLACE = auto()
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
    offered: int = 0  # how many Cloak holders have been asked (mover first)
    escaper: int = -1
    mixed: bool = False  # the loser's hand was re-masked before the pick if it had to be (remask.py, E38)

    def run(self, g: HogwartsState) -> Outcome:
        S = PlayerBattle.Stage
        if self.stage is S.PICK:
            if len(self.candidates) > 1:
                return Decide((self.mover,), "opponent")
            self.opponent = self.candidates[0]
            self.stage = S.CLOAK
            g.log("player_battle", self.mover, self.opponent)
            return CONTINUE
        if self.stage is S.CLOAK:
            holders = self.cloak_holders(g)
            if self.offered < len(holders):
                return Decide((holders[self.offered],), "cloak")
            self.stage = S.ROLL
            return CONTINUE
        if self.stage is S.ESCAPE:
            return Decide((self.escaper,), "cloak_move")
        if self.stage is S.PLACE:
            return Decide((self.escaper,), "place_used")
        if self.stage is S.ROLL:
            return Randomness("player_battle")
        if self.stage is S.PRIZE:
            if not self.prizes(g):
                return self.finish(g)
            return Decide((self.winner,), "prize")
        if self.stage is S.STEAL:
            if not self.mixed:
                self.mixed = True
                mix = mix_first(g, [self.loser])
                if mix is not None:
                    return mix
            return Randomness("steal")
        if self.stage is S.SHOW:
            return Show((self.stolen,), self.winner, self.winner)
        return self.finish(g)

    def cloak_holders(self, g: HogwartsState) -> list[Seat]:
        """The duellists holding the Invisibility Cloak (public: the tokens on their sheets), the mover first."""
        return [s for s in (self.mover, self.opponent) if CLOAK in g.held[s]]

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
        S = PlayerBattle.Stage
        if self.stage is S.PICK:
            return [{"type": "opponent", "seat": s} for s in self.candidates]
        if self.stage is S.CLOAK:
            return [{"type": "fight"}, {"type": "token", "token": CLOAK}]
        if self.stage is S.ESCAPE:
            return escape_actions(g, g.pos[self.escaper])
        if self.stage is S.PLACE:
            return place_actions(g, CLOAK)
        return self.prizes(g)

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        S = PlayerBattle.Stage
        if action["type"] == "opponent":
            self.opponent = int(action["seat"])
            self.stage = S.CLOAK
            g.log("player_battle", self.mover, self.opponent)
            return CONTINUE
        if self.stage in (S.CLOAK, S.ESCAPE, S.PLACE):
            return self.escape(g, seat, action)
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

    def escape(self, g: HogwartsState, seat: Seat, action: Action) -> Outcome:
        """The Cloak: declined (the next holder is asked), used (the escape move, then its place), no winner."""
        S = PlayerBattle.Stage
        if self.stage is S.CLOAK:
            if action["type"] == "fight":
                self.offered += 1
                return CONTINUE
            g.held[seat].remove(CLOAK)
            g.log("token_used", seat, CLOAK)
            if seat == self.mover:
                g.ended.append(seat)  # as after any Cloak escape (E16); a player battle ends the turn anyway
            self.escaper, self.stage = seat, S.ESCAPE
            return CONTINUE
        if self.stage is S.ESCAPE:
            path = [str(c) for c in action["path"]]
            if path:
                g.pos[seat] = path[-1]
            g.log("escape", seat, path)
            self.stage = S.PLACE
            return CONTINUE
        g.place_token(str(action["cell"]), CLOAK)
        g.log("player_battle_escaped", seat)
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
