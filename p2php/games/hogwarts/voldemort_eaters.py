"""Lord Voldemort's Death Eaters (rules §16.3, §16.5, C-45): after his own move Voldemort moves any of them,
one after another, each with 1 die by the normal movement rules; a Death Eater entering a hero's cell stops
and battles him (it attacks first), otherwise a spell or potion cell gives it one card of that kind (dealt to
the villain's seat, C-45); it takes no object tokens and no other cell effect.  A hero entering a Death
Eater's cell stops and battles it, attacking first.  A Death Eater that loses leaves the game; a hero who
loses goes back to the start with 1 LP.

Decisions (ours): each Death Eater moves at most once a turn and "done" ends the phase (V10); when several
heroes share the cell, the Death Eater fights the lowest seat, and a hero entering a cell of several Death
Eaters fights the first in the data's order (V11).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Deal, Decide, Knowledge, Seat, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Task

from .board import Constraints, classify
from .dice import Roll
from .moves import legal_walks
from .reseal import reseal, resealed
from .voldemort_battle import SheetBattle, defeat_hero, remove_eater
from .voldemort_rules import START_KIND, campaign, heroes

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["EaterFight", "EaterPhase", "eater_constraints", "heroes_at"]

CARD_CELLS = ("spell", "potion")


def heroes_at(g: HogwartsState, cell: str) -> list[Seat]:
    if g.graph.kinds[cell] == START_KIND:
        return []
    return [s for s in heroes(g) if g.pos[s] == cell]


def eater_constraints(g: HogwartsState) -> Constraints:
    """A Death Eater must stop on a hero (never on the start cell, C-18)."""
    return Constraints(occupied=frozenset(sorted({g.pos[s] for s in heroes(g) if heroes_at(g, g.pos[s])})))


@dataclass
class EaterFight(Task["HogwartsState"]):
    """``hero`` against the Death Eater ``eater``; whoever moved in attacks first (rules §16.5)."""

    hero: int
    eater: str
    eater_first: bool
    winner: str = ""

    def run(self, g: HogwartsState) -> Outcome:
        hero, eater = f"seat:{self.hero}", f"eater:{self.eater}"
        if not self.winner:
            fighters = [eater, hero] if self.eater_first else [hero, eater]
            return Call(SheetBattle(fighters), into="winner")
        if self.winner == hero:
            remove_eater(g, self.eater)
        else:
            defeat_hero(g, self.hero)
        return Done()


@dataclass
class EaterPhase(Task["HogwartsState"]):
    """The villain moves his Death Eaters (rules §16.3)."""

    class Stage(Enum):
        CHOOSE = auto()
        MOVE = auto()
        DRAW = auto()

    villain: int
    stage: Stage = Stage.CHOOSE
    moved: list[str] = field(default_factory=list)
    current: str = ""
    dice: list[int] = field(default_factory=list)

    def waiting(self, g: HogwartsState) -> list[str]:
        c = campaign(g)
        return [n for n in g.data.return_of_voldemort.death_eaters if n in c.eaters and n not in self.moved]

    def run(self, g: HogwartsState) -> Outcome:
        S = EaterPhase.Stage
        if self.stage is S.CHOOSE:
            return Decide((self.villain,), "eater") if self.waiting(g) else Done()
        if self.stage is S.MOVE:
            return Decide((self.villain,), "eater_move")
        deck = g.data.cells[campaign(g).eaters[self.current]].kind
        if not g.deck[deck]:
            self.stage = S.CHOOSE
            return CONTINUE
        return reseal(g, g.deck[deck][:1]) or Deal(((g.deck[deck][0], self.villain),))

    def walks(self, g: HogwartsState) -> list[Action]:
        cell = campaign(g).eaters[self.current]
        roll = self.dice[0]
        found = legal_walks(cell, roll, eater_constraints(g))
        return [{"type": "eater_move", "eater": self.current, "path": list(w.path)} for w in found] or \
            [{"type": "eater_move", "eater": self.current, "path": [cell]}]

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.stage is EaterPhase.Stage.MOVE:
            return self.walks(g)
        return [*({"type": "eater", "eater": n} for n in self.waiting(g)), {"type": "done"}]

    def check(self, g: HogwartsState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if self.stage is not EaterPhase.Stage.MOVE or action.get("eater") != self.current:
            super().check(g, seat, action, knowledge)
            return
        path = action.get("path")
        if not isinstance(path, list) or not path or not all(isinstance(c, str) for c in path) \
                or path[0] != campaign(g).eaters[self.current]:
            super().check(g, seat, action, knowledge)
            return
        if len(path) > 1 and classify(g.graph, tuple(path), self.dice[0], eater_constraints(g)) is None:
            super().check(g, seat, action, knowledge)

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        action = answers[0][1]
        S = EaterPhase.Stage
        if action["type"] == "done":
            return Done()
        if self.stage is S.CHOOSE:
            self.current = str(action["eater"])
            self.moved.append(self.current)
            self.stage = S.MOVE
            return Call(Roll(1, "eater"), into="dice")
        path = [str(c) for c in action["path"]]
        c = campaign(g)
        c.eaters[self.current] = path[-1]
        g.log("eater_move", self.current, path)
        self.stage = S.CHOOSE
        targets = heroes_at(g, path[-1]) if len(path) > 1 else []
        if targets:
            return Push(EaterFight(targets[0], self.current, eater_first=True))
        if len(path) > 1 and g.data.cells[path[-1]].kind in CARD_CELLS:
            self.stage = S.DRAW
        return CONTINUE

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if not isinstance(step, Deal):
            resealed(g, step)
            return CONTINUE
        slot = step.to[0][0]
        deck = g.data.cells[campaign(g).eaters[self.current]].kind
        g.deck[deck].remove(slot)
        campaign(g).eater_hand[self.current].append(slot)
        g.log("eater_draw", self.current, deck)
        self.stage = EaterPhase.Stage.CHOOSE
        return CONTINUE
