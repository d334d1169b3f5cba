"""Phase 1 of a Quidditch match: score 2 goals (rules §15.2, data §5.1, C-37–C-39).

Each side first may rearrange its pieces within their lines (A first).  Then, turn about from the match's
first player: 2 dice of joint randomness give the turn's actions, spent one decision at a time —

* ``step``: a piece to a free neighbouring cell (1 action; a Keeper stays in its goal zone, no other piece
  enters one); a Chaser on the loose Quaffle picks it up at once (no action);
* ``pass``: the Quaffle's holder (a Chaser or the Keeper) to an own Chaser on a neighbouring cell (1 action);
* ``intercept``: a Chaser next to the opposing Chaser that holds the Quaffle takes it (2 actions: moving on,
  taking) and moves on to a free cell next to it (no action; not offered without one, C-38);
* ``shoot``: a Chaser holding the Quaffle on the opponent's line (3) (1 action): shooter's die against the
  Keeper's, higher scores (automatic if the Keeper is out); a goal gives the scorer 1 Quidditch card; the
  Quaffle then goes to the defending Keeper, or the defenders place it on their line (3) if he is out;
* ``throw``: a Beater on a Bludger's cell throws it along its row or column at an opposing piece (no action;
  each Bludger once a turn, C-39): a die below the distance drops it that far along the line; otherwise the
  target's die of 3 or less removes it until the match ends, and the Bludger stays on its cell (moved out
  of a goal zone to the line-(3) cell in front, C-39); a Chaser removed with the Quaffle drops it;
* ``end``: the rest of the actions are given up (a turn ends by itself when nothing is left to do).

The phase ends at a side's second goal, or when a side has lost all its Chasers (it loses the phase).  The
result is the side that won it (0 for A, the challenger; 1 for B).

Decisions (ours, where the rules are silent): picking up the loose Quaffle is automatic for the side to
move; each piece may be placed once in the rearrangement; an intercepting Chaser "moves on": the cell it came
from is not one of the free cells it may go to (else C-38's "no free cell" could never happen); a Keeper
removed while holding the Quaffle leaves
it to his side to place on their line (3), as after a shot; a shot's two dice, and a throw's die with the
target's, are one joint draw (no decision lies between them, E17); after ``PHASE1_TURNS`` turns in all the
side with more goals wins the phase (a tie: the match's first player), so that a match always ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Randomness, Seat, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Task

from .decks import Draw
from .dice import Roll, faces
from .pitch_grid import (
    OUT,
    ahead_line,
    bludger_rest,
    goal_zone,
    line3,
    path_between,
    pieces_of,
    pitch,
    role,
    side_of,
    steps,
)

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["GOALS_TO_WIN", "PHASE1_TURNS", "Goals"]

GOALS_TO_WIN = 2
PHASE1_TURNS = 20
"""Turns of Phase 1 in all (10 a side) after which the side ahead on goals wins it (ours: a match always
ends, and within an evening; between heuristic bots most Phase 1s end sooner)."""
SAVE_AT_MOST = 3
"""A piece hit by a Bludger is removed on the target's die of 3 or less (rules §15.2)."""
INTERCEPT_COST = 2


def formation_cells(side: int, role_: str) -> tuple[str, ...]:
    """Where a side may set up a piece of ``role_`` (rules §15.1): its goal zone, its line (3), its lines (4)."""
    if role_ == "keeper":
        return tuple(sorted(goal_zone(side)))
    if role_ == "beater":
        return line3(side)
    zone = f"line4_{'AB'[side]}"
    return tuple(c.id for c in pitch().grid.values() if c.zone == zone)


@dataclass
class Goals(Task["HogwartsState"]):
    """Phase 1 between ``seats`` (side A's seat, side B's); ``side`` moves first.  Result: the winning side."""

    class Stage(Enum):
        FORMATION = auto()
        ROLL = auto()
        ACT = auto()
        SHOT = auto()
        THROW = auto()
        SCORED = auto()
        PLACE = auto()
        OVER = auto()

    seats: list[int]
    side: int
    first: int = -1
    stage: Stage = Stage.FORMATION
    formed: int = 0  # sides whose formation is settled (A first)
    placed: list[str] = field(default_factory=list)  # pieces rearranged so far by the side setting up
    pieces: dict[str, str] = field(default_factory=dict)  # piece -> cell (OUT once removed)
    quaffle: str = ""  # the cell of the loose Quaffle ("" while a piece holds it)
    holder: str = ""
    bludgers: list[str] = field(default_factory=list)
    thrown: list[int] = field(default_factory=list)  # Bludgers thrown this turn
    goals: list[int] = field(default_factory=lambda: [0, 0])
    actions: int = 0
    dice: list[int] = field(default_factory=list)
    turns: int = 0
    act: list[str] = field(default_factory=list)  # the shooter, or [beater, bludger, target], awaiting dice
    placing: int = -1  # the side placing the Quaffle on its line (3)

    # ---- the field
    def set_up(self) -> None:
        data = pitch()
        for side in (0, 1):
            form = data.formation["AB"[side]]
            cells = [form.keeper, *form.beaters, *form.chasers]
            self.pieces.update(zip(pieces_of(side), cells, strict=True))
        self.bludgers = [data.bludger_start["A"], data.bludger_start["B"]]
        self.quaffle = data.quaffle_start

    def on_pitch(self, side: int, role_: str | None = None) -> list[str]:
        return [p for p in pieces_of(side) if self.pieces[p] != OUT and (role_ is None or role(p) == role_)]

    def occupied(self) -> set[str]:
        return {c for c in self.pieces.values() if c != OUT}

    def pick_up(self, g: HogwartsState) -> None:
        """A Chaser of the side to move standing on the loose Quaffle picks it up (no action)."""
        if self.holder or not self.quaffle:
            return
        for chaser in self.on_pitch(self.side, "chaser"):
            if self.pieces[chaser] == self.quaffle:
                self.holder, self.quaffle = chaser, ""
                g.log("quaffle", chaser)
                return

    # ---- the flow
    def run(self, g: HogwartsState) -> Outcome:
        S = Goals.Stage
        if self.first < 0:
            self.first = self.side
        if self.stage is S.FORMATION:
            if not self.pieces:
                self.set_up()
            if self.formed < len(self.seats):
                return Decide((self.seats[self.formed],), "formation")
            self.stage = S.ROLL
            return CONTINUE
        if self.stage is S.ROLL:
            if not self.dice:
                return Call(Roll(2, "quidditch_actions"), into="dice")
            self.actions, self.dice, self.thrown = sum(self.dice), [], []
            self.pick_up(g)
            self.stage = S.ACT
            return CONTINUE
        if self.stage is S.ACT:
            if len(self.options()) == 1:  # only "end" is left
                return self.end_turn(g)
            return Decide((self.seats[self.side],), "quidditch")
        if self.stage in (S.SHOT, S.THROW):
            return Randomness("quidditch_shot" if self.stage is S.SHOT else "quidditch_bludger")
        if self.stage is S.SCORED:
            if self.goals[self.side] >= GOALS_TO_WIN:
                return self.finish(g, self.side)
            return self.to_keeper(1 - self.side)
        if self.stage is S.PLACE:
            return Decide((self.seats[self.placing],), "place_quaffle")
        return Done(self.winner_side())  # not reached: finish() ends the task

    def winner_side(self) -> int:
        if self.goals[0] == self.goals[1]:
            return self.first
        return 0 if self.goals[0] > self.goals[1] else 1

    def end_turn(self, g: HogwartsState) -> Outcome:
        self.turns += 1
        if self.turns >= PHASE1_TURNS:
            return self.finish(g, self.winner_side())
        self.side = 1 - self.side
        self.stage = Goals.Stage.ROLL
        return CONTINUE

    def finish(self, g: HogwartsState, side: int) -> Outcome:
        g.log("quidditch_phase1", self.seats[side], list(self.goals))
        self.stage = Goals.Stage.OVER
        return Done(side)

    def to_keeper(self, side: int) -> Outcome:
        """After a shot the Quaffle goes to ``side``'s Keeper, or ``side`` places it if he is out."""
        keeper = pieces_of(side)[0]
        self.holder, self.quaffle = "", ""
        if self.pieces[keeper] == OUT:
            self.placing, self.stage = side, Goals.Stage.PLACE
        else:
            self.holder, self.stage = keeper, Goals.Stage.ACT
        return CONTINUE

    # ---- the decisions
    def options(self) -> list[Action]:
        """Every action of the side to move (``end`` first)."""
        side, grid = self.side, pitch().grid
        out: list[Action] = [{"type": "end"}]
        taken = self.occupied()
        if self.actions >= 1:
            for p in self.on_pitch(side):
                out.extend({"type": "step", "piece": p, "to": c} for c in steps(self.pieces[p], role(p), side, taken))
            if self.holder and side_of(self.holder) == side:
                near = grid[self.pieces[self.holder]].neighbours
                out.extend({"type": "pass", "piece": self.holder, "to": c} for c in self.on_pitch(side, "chaser")
                           if self.pieces[c] in near)
                if role(self.holder) == "chaser" and self.pieces[self.holder] in ahead_line(side):
                    out.append({"type": "shoot", "piece": self.holder})
        if self.actions >= INTERCEPT_COST and self.holder and side_of(self.holder) != side \
                and role(self.holder) == "chaser":
            at = self.pieces[self.holder]
            zones = goal_zone(0) | goal_zone(1)
            for c in self.on_pitch(side, "chaser"):
                if self.pieces[c] not in grid[at].neighbours:
                    continue
                free = [n for n in grid[at].neighbours if n not in zones and n not in taken]  # not back
                out.extend({"type": "intercept", "piece": c, "to": n} for n in free)
        for b in self.on_pitch(side, "beater"):
            for i, cell in enumerate(self.bludgers):
                if cell != self.pieces[b] or i in self.thrown:
                    continue
                out.extend({"type": "throw", "piece": b, "bludger": i, "target": t} for t in self.on_pitch(1 - side)
                           if path_between(cell, self.pieces[t]) is not None)
        return out

    def formation_options(self) -> list[Action]:
        side = self.formed
        taken = self.occupied()
        out: list[Action] = [{"type": "ready"}]
        for p in pieces_of(side):
            if p not in self.placed:
                out.extend({"type": "place", "piece": p, "cell": c} for c in formation_cells(side, role(p))
                           if c not in taken)
        return out

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.stage is Goals.Stage.FORMATION:
            return self.formation_options()
        if self.stage is Goals.Stage.PLACE:
            return [{"type": "place_quaffle", "cell": c} for c in line3(self.placing)]
        return self.options()

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces_: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        kind = action["type"]
        S = Goals.Stage
        if self.stage is S.FORMATION:
            if kind == "place":
                self.pieces[str(action["piece"])] = str(action["cell"])
                self.placed.append(str(action["piece"]))
            if kind == "ready" or len(self.placed) == len(pieces_of(self.formed)):
                self.formed += 1
                self.placed = []
            return CONTINUE
        if kind == "place_quaffle":
            self.quaffle, self.stage = str(action["cell"]), S.ACT
            self.pick_up(g)
            return CONTINUE
        if kind == "end":
            return self.end_turn(g)
        name = str(action["piece"])
        if kind == "step":
            self.actions -= 1
            self.pieces[name] = str(action["to"])
            self.pick_up(g)
        elif kind == "pass":
            self.actions -= 1
            self.holder = str(action["to"])
            g.log("quaffle_pass", name, self.holder)
        elif kind == "intercept":
            self.actions -= INTERCEPT_COST
            self.pieces[name] = str(action["to"])
            g.log("quaffle_intercept", name, self.holder)
            self.holder = name
        elif kind == "shoot":
            self.actions -= 1
            self.act = [name]
            keeper = pieces_of(1 - self.side)[0]
            if self.pieces[keeper] == OUT:  # no Keeper: the goal is automatic (no roll)
                return self.shot(g, True)
            self.stage = S.SHOT
        else:
            self.thrown.append(int(action["bludger"]))
            self.act = [name, str(action["bludger"]), str(action["target"])]
            self.stage = S.THROW
        return CONTINUE

    def received(self, g: HogwartsState, step: Step, faces_: Mapping[Slot, CardId], random: bytes) -> Outcome:
        first, second = faces(random, 2)
        if self.stage is Goals.Stage.SHOT:
            g.log("roll", "quidditch_shot", [first, second])
            return self.shot(g, first > second)
        g.log("roll", "quidditch_bludger", [first, second])
        return self.bludger(g, first, second)

    # ---- resolutions
    def shot(self, g: HogwartsState, goal: bool) -> Outcome:
        g.log("quidditch_shot", self.act[0], goal)
        self.act = []
        if not goal:
            return self.to_keeper(1 - self.side)
        self.goals[self.side] += 1
        self.stage = Goals.Stage.SCORED
        return Push(Draw(self.seats[self.side], "quidditch"))  # the scorer's Quidditch card (rules §15.2)

    def bludger(self, g: HogwartsState, throw: int, save: int) -> Outcome:
        beater, i, target = self.act[0], int(self.act[1]), self.act[2]
        self.act = []
        self.stage = Goals.Stage.ACT
        at = self.pieces[target]
        path = path_between(self.pieces[beater], at) or [at]
        if throw < len(path):  # short: it lands ``throw`` cells along the line
            self.bludgers[i] = bludger_rest(path[throw - 1])
            g.log("bludger", beater, target, "short")
            return CONTINUE
        self.bludgers[i] = bludger_rest(at)
        if save > SAVE_AT_MOST:
            g.log("bludger", beater, target, "stays")
            return CONTINUE
        g.log("bludger", beater, target, "out")
        self.pieces[target] = OUT
        lost = side_of(target)
        if self.holder == target:
            self.holder = ""
            if role(target) == "chaser":
                self.quaffle = at  # dropped on its cell (C-39)
            else:
                self.placing, self.stage = lost, Goals.Stage.PLACE
        if not self.on_pitch(lost, "chaser"):  # no Chasers left: that side loses the phase
            return self.finish(g, 1 - lost)
        return CONTINUE
