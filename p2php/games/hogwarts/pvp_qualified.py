"""The qualified battle between two players (rules §14.6, C-33; team mode against another team, C-8): the two
attack in turn as against an enemy (:class:`.versus.Versus`, the mover first, 1 potion + 1 spell card each);
the first to bring the other to 1 LP or fewer wins and takes one of: 2 object tokens, 1 portal token, 1 flying
powder token, or 2 cards from the loser's hand drawn at random (joint randomness; only the winner then sees
them).  A loser at 0 LP is defeated (the Leaky Cauldron, §14.1).  Then a truce, as after the underage duel
(C-34).

Decisions (ours): no battle starts against, or by, a player already at 1 LP or fewer (it would be over
before the first attack); the prize is taken before a defeated loser gives up its potion and spell cards (the
rulebook names the prize first); a winner with room for one token only takes one; a battle nobody won (the
Cloak, Pettigrew's flight) gives no prize but still starts the truce.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from itertools import combinations
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Randomness, Seat, Show, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Task
from p2php.rng import DetRng

from .defeat import defeat
from .pvp import TRUCE_TURNS
from .remask import mix_first
from .state import MAX_TOKENS
from .versus import ESCAPED, Versus

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["PRIZE_CARDS", "PRIZE_TOKENS", "QualifiedPlayerBattle", "WIN_FLOOR"]

WIN_FLOOR = 1
"""The first to bring the other to 1 LP or fewer wins (rules §14.6)."""
PRIZE_TOKENS = 2
PRIZE_CARDS = 2


@dataclass
class QualifiedPlayerBattle(Task["HogwartsState"]):
    """``mover`` entered a cell with the ``candidates``' figures: it picks one (if several) and they fight."""

    class Stage(Enum):
        PICK = auto()
        FIGHT = auto()
        PRIZE = auto()
        STEAL = auto()
        SHOW = auto()

    mover: int
    candidates: list[int]
    stage: Stage = Stage.PICK
    opponent: int = -1
    side: int = ESCAPED  # the winning side
    stolen: list[int] = field(default_factory=list)
    mixed: bool = False  # the loser's hand was re-masked before the pick if it had to be (remask.py, E38)

    @property
    def winner(self) -> int:
        return [self.mover, self.opponent][self.side] if self.side >= 0 else -1

    @property
    def loser(self) -> int:
        return [self.mover, self.opponent][1 - self.side] if self.side >= 0 else -1

    def run(self, g: HogwartsState) -> Outcome:
        S = QualifiedPlayerBattle.Stage
        if self.stage is S.PICK:
            if len(self.candidates) > 1:
                return Decide((self.mover,), "opponent")
            return self.fight(g, self.candidates[0])
        if self.stage is S.FIGHT:
            g.log("player_battle_won" if self.side >= 0 else "player_battle_escaped", self.winner, self.loser)
            if self.side < 0 or not self.prizes(g):
                return self.finish(g)
            self.stage = S.PRIZE
            return Decide((self.winner,), "prize")
        if self.stage is S.PRIZE:
            return Decide((self.winner,), "prize")
        if self.stage is S.STEAL:
            if not self.mixed:
                self.mixed = True
                mix = mix_first(g, [self.loser])
                if mix is not None:
                    return mix
            return Randomness("steal")
        return Show(tuple(self.stolen), self.winner, self.winner)

    def fight(self, g: HogwartsState, opponent: int) -> Outcome:
        self.opponent = opponent
        self.stage = QualifiedPlayerBattle.Stage.FIGHT
        g.log("player_battle", self.mover, opponent)
        return Call(Versus([self.mover, opponent], [self.mover, opponent], WIN_FLOOR), into="side")

    def prizes(self, g: HogwartsState) -> list[Action]:
        w, lo = self.winner, self.loser
        out: list[Action] = []
        room = MAX_TOKENS - len(g.held[w])
        n = min(PRIZE_TOKENS, room, len(g.held[lo]))
        if n > 0:
            picks = sorted({tuple(sorted(c)) for c in combinations(g.held[lo], n)})
            out.extend({"type": "prize", "what": "tokens", "tokens": list(p)} for p in picks)
        if g.portals[lo]:
            out.append({"type": "prize", "what": "portal"})
        if g.powder[lo]:
            out.append({"type": "prize", "what": "powder"})
        if g.hand[lo]:
            out.append({"type": "prize", "what": "cards"})
        return out

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.stage is QualifiedPlayerBattle.Stage.PICK:
            return [{"type": "opponent", "seat": s} for s in self.candidates]
        return self.prizes(g)

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        _seat, action = answers[0]
        if action["type"] == "opponent":
            return self.fight(g, int(action["seat"]))
        what = action["what"]
        w, lo = self.winner, self.loser
        if what == "tokens":
            for token in action["tokens"]:
                g.held[lo].remove(str(token))
                g.held[w].append(str(token))
        elif what == "portal":
            g.portals[lo] -= 1
            g.portals[w] += 1
        elif what == "powder":
            g.powder[lo] -= 1
            g.powder[w] += 1
        else:
            self.stage = QualifiedPlayerBattle.Stage.STEAL
            return CONTINUE
        g.log("prize", w, what)
        return self.finish(g)

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if isinstance(step, Randomness):
            hand = g.hand[self.loser]
            rng = DetRng(random)
            for _ in range(min(PRIZE_CARDS, len(hand))):
                slot = hand[rng.below(len(hand))]
                hand.remove(slot)
                g.hand[self.winner].append(slot)
                self.stolen.append(slot)
            g.log("prize", self.winner, "cards")
            self.stage = QualifiedPlayerBattle.Stage.SHOW
            return CONTINUE
        return self.finish(g)

    def finish(self, g: HogwartsState) -> Outcome:
        if self.side >= 0 and g.lp[self.loser] == 0:
            defeat(g, self.loser)
        g.truces.append([self.mover, self.opponent, TRUCE_TURNS + 1, TRUCE_TURNS])
        return Done(self.winner)
