"""The 6 Death Eater tokens (rules §5.4, §14.7, C-12, C-11, C-35): where they stand and who plays them.

In qualified and team mode the players place them in turn from the first player, one per tower (a tower holds
at most one), after the missions are dealt — so each chooses knowing its own missions, as at a table where the
cards are dealt first.  In a qualified solo game (C-11) one joint permutation of the towers places them on the
first 6 that are not the location of one of the player's missions and cut no cell off the walk from the
start (impassable towers must never leave a mission unreachable): the missions are secret, so the player
(the only one who knows them) names those 6 cells, and the engine checks its choice against its knowledge.

Entering a Death Eater's cell forces a stop and a Death Eater battle (:mod:`.death_eater_battle`); solo, the
tokens cannot be entered at all (``board.Constraints.impassable``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Randomness, Seat, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task, offered
from p2php.rng import DetRng

from .board import Graph
from .data import graph as map_graph
from .modes import death_eaters_block, teammates
from .rules import location_cells, mission_of

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["DEATH_EATERS", "PlaceDeathEaters", "death_eater_player", "towers"]

DEATH_EATERS = 6
TOWER = "tower"
START = "start"


def towers(g: HogwartsState) -> list[str]:
    """The castle's tower cells in the data's order."""
    return [c.id for c in g.data.cells.values() if c.kind == TOWER]


def walkable(graph: Graph, blocked: frozenset[str]) -> frozenset[str]:
    """The cells a figure can walk to from the start (steps and free links) without entering ``blocked``."""
    seen = {START}
    todo = [START]
    while todo:
        cell = todo.pop()
        for nxt in (*graph.steps[cell], *graph.free[cell]):
            if nxt in graph.enterable and nxt not in blocked and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)


def cut_nothing_off(order: Sequence[str], avoid: set[str]) -> list[str]:
    """The first 6 towers of ``order`` that are not in ``avoid`` and whose blocking, with those before them,
    leaves every walkable cell but themselves walkable (solo's impassable Death Eaters, E25); should fewer
    qualify, the next ones not in ``avoid`` fill up (never seen on this map)."""
    graph = map_graph()
    everywhere = walkable(graph, frozenset())
    chosen: list[str] = []
    for cell in order:
        if cell in avoid or len(chosen) == DEATH_EATERS:
            continue
        blocked = frozenset((*chosen, cell))
        if everywhere - blocked <= walkable(graph, blocked):
            chosen.append(cell)
    rest = [c for c in order if c not in avoid and c not in chosen]
    return (chosen + rest)[:DEATH_EATERS]


def death_eater_player(g: HogwartsState, mover: Seat) -> Seat:
    """Who plays a Death Eater against ``mover``: the nearest player to its right who is not a teammate
    (C-35).  Turns pass clockwise, to the left, so "to the right" is the seat before (``mover - 1``)."""
    for k in range(1, g.players):
        seat = (mover - k) % g.players
        if not teammates(g, mover, seat):
            return seat
    return mover  # nobody else (one team of everyone, C-9): the mover plays both sides


@dataclass
class PlaceDeathEaters(Task["HogwartsState"]):
    """Place the 6 tokens: in turn from the first player (C-12), or solo at random off its missions (C-11)."""

    placed: int = 0
    order: list[str] = field(default_factory=list)  # solo: the towers in the drawn order

    def placer(self, g: HogwartsState) -> Seat:
        return (g.first + self.placed) % g.players

    def run(self, g: HogwartsState) -> Outcome:
        if self.placed >= DEATH_EATERS:
            g.log("death_eaters", list(g.death_eaters))
            return Done()
        if death_eaters_block(g) and not self.order:
            return Randomness("death_eaters")
        return Decide((self.placer(g),), "death_eaters" if self.order else "death_eater")

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        cells = towers(g)
        self.order = [cells[k] for k in DetRng(random).permutation(len(cells))]
        return CONTINUE

    def solo_cells(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[str] | None:
        """The first 6 drawn towers that are not where one of ``seat``'s missions is and cut no cell off (None:
        faces unknown)."""
        avoid: set[str] = set()
        for slot in g.missions[seat]:
            mission = mission_of(g, slot, knowledge)
            if mission is None:
                return None
            avoid.update(location_cells(mission.location))
        return cut_nothing_off(self.order, avoid)

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.order:
            cells = self.solo_cells(g, seat, knowledge)
            return [] if cells is None else [{"type": "death_eaters", "cells": cells}]
        return [{"type": "death_eater", "cell": c} for c in towers(g) if c not in g.death_eaters]

    def check(self, g: HogwartsState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if self.order:
            if action.get("type") != "death_eaters" or not isinstance(action.get("cells"), list):
                raise IllegalAction("the Death Eaters' towers are asked")
            cells = self.solo_cells(g, seat, knowledge)
            if cells is not None and action["cells"] != cells:
                raise IllegalAction("not the first 6 drawn towers away from the player's missions")
            return
        if not offered(action, self.legal(g, seat, knowledge)):
            raise IllegalAction(f"not a free tower for a Death Eater: {action}")

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        action = answers[0][1]
        if action["type"] == "death_eaters":
            cells = [str(c) for c in action["cells"]]
            if len(cells) != DEATH_EATERS or len(set(cells)) != DEATH_EATERS or not set(cells) <= set(self.order):
                raise IllegalAction("six different drawn towers are asked")
            g.death_eaters = cells
            self.placed = DEATH_EATERS
            return CONTINUE
        g.death_eaters.append(str(action["cell"]))
        self.placed += 1
        return CONTINUE
