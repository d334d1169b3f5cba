"""A battle with a Death Eater (rules §14.7, C-35): entering a Death Eater token's cell forces a stop and a
battle.  The Death Eater is one of the 8 backs (never Voldemort) drawn uniformly with the joint randomness;
it takes the spell and potion cards its sheet shows from the tops of those decks, dealt face down to the
player who plays it — the nearest to the mover's right who is not a teammate (:func:`.death_eaters.
death_eater_player`).  The two sides attack in turn, the mover first (:class:`.versus.Versus`), 1 potion + 1
spell card each, until one side is at 0 LP.  Win: 20 house points and the token leaves the game.  Loss: the
mover is defeated (the Leaky Cauldron, §14.1).  The Death Eater's cards go under their decks afterwards
(those it played already did, face up; the others face down, unseen).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import CardId, Deal, Randomness, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Task
from p2php.rng import DetRng

from .death_eaters import death_eater_player
from .defeat import defeat
from .ids import deck_of_slot
from .reseal import reseal, resealed
from .versus import ESCAPED, Versus

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["DEATH_EATER_BACKS", "DEATH_EATER_POINTS", "DeathEaterBattle"]

DEATH_EATER_POINTS = 20
DEATH_EATER_BACKS = 8
"""Backs 1–8; the ninth is Lord Voldemort, who never plays here (C-35)."""
DECK_ORDER = ("spell", "potion")


@dataclass
class DeathEaterBattle(Task["HogwartsState"]):
    """``mover`` entered ``cell``, which holds a Death Eater token.  The result: the winning side (0: the mover)."""

    class Stage(Enum):
        DRAW = auto()
        DEAL = auto()
        FIGHT = auto()
        OVER = auto()

    mover: int
    cell: str
    stage: Stage = Stage.DRAW
    eater: int = 0
    player: int = -1
    hand: list[int] = field(default_factory=list)
    side: int = ESCAPED

    def run(self, g: HogwartsState) -> Outcome:
        S = DeathEaterBattle.Stage
        if self.stage is S.DRAW:
            return Randomness("death_eater")
        if self.stage is S.DEAL:
            back = g.data.death_eaters[self.eater - 1]
            self.hand = [s for deck in DECK_ORDER for s in g.deck[deck][: back.start_cards.get(deck, 0)]]
            if not self.hand:
                return self.fight(g)
            return reseal(g, self.hand) or Deal(tuple((s, self.player) for s in self.hand))
        if self.stage is S.FIGHT:
            return self.fight(g)
        return self.over(g)

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if isinstance(step, Randomness):
            self.eater = 1 + DetRng(random).below(DEATH_EATER_BACKS)
            self.player = death_eater_player(g, self.mover)
            g.log("death_eater_battle", self.mover, self.eater, self.player)
            self.stage = DeathEaterBattle.Stage.DEAL
            return CONTINUE
        if not isinstance(step, Deal):
            resealed(g, step)
            return CONTINUE
        for slot in self.hand:
            g.deck[deck_of_slot(slot)].remove(slot)
        self.stage = DeathEaterBattle.Stage.FIGHT
        return CONTINUE

    def fight(self, g: HogwartsState) -> Outcome:
        self.stage = DeathEaterBattle.Stage.OVER
        back = g.data.death_eaters[self.eater - 1]
        versus = Versus([self.mover, -1], [self.mover, self.player], 0, self.eater, back.lp, list(self.hand))
        return Call(versus, into="side")

    def over(self, g: HogwartsState) -> Outcome:
        for slot in self.hand:  # the cards it did not play go under face down (those played are there)
            if slot not in g.deck[deck_of_slot(slot)]:
                g.under(slot)
        self.hand = []
        if self.side == 0:
            g.score(self.mover, DEATH_EATER_POINTS, "death_eater")
            g.death_eaters.remove(self.cell)
            g.log("death_eater_won", self.mover, self.cell)
        elif self.side == 1:
            defeat(g, self.mover)
        return Done(self.side)
