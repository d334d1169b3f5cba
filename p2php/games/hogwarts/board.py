"""Movement over the board graph as pure functions (data §1.2, rules §9): no state, no randomness, no floats.

A move is a *walk*: the cells a figure enters in order, its starting cell first.  A walk edge costs one
step; a free link (secret passage, Gringotts, Ministry↔Hall of Prophecy) costs none and may be taken at any
point, with 0 steps left too.  No cell is entered twice in a turn, the starting cell included.  A legal move
uses exactly the roll, unless it ends early:

* **forced** — it entered a cell with a figure it must fight or a Death Eater token (``Constraints.occupied``;
  the start cell never starts a battle, C-18), or the Quidditch pitch (rules §10, lifted by Cho's ability);
* **dead end** — nothing is left to enter: the rest of the roll is lost (R, generalised in data §1.2);
* **voluntary** — it may stop early on a tower or a cell with printed text (the kinds §1.1 marks "yes"), on a
  cell where a mission can be completed now, or anywhere with Alohomora (``Constraints``).

What the game state adds (figures, tokens, missions, abilities) comes in as :class:`Constraints`, so this
module knows only the graph.  Everything returned is sorted or in a fixed order: the same question gives
the same answer on every peer.  The trips that are not movement (flying powder, the portal, Buckbeak) are
graph facts here too: where they may start and where they may go.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from .cells import Cell, CellKind, kind_template
from .tables import HogwartsData

__all__ = ["CLOAK_STEPS", "FREE_MOVE", "Constraints", "Ending", "Graph", "Walk", "buckbeak_destinations",
           "can_use_flying_powder", "classify", "destinations", "distance", "flying_powder_destinations",
           "portal_destination", "shortest_path", "walks", "walks_up_to"]

CLOAK_STEPS = 5
"""The Invisibility Cloak's escape: "moving 5 cells" (R), read as up to 5 steps (C-28)."""
GRAVEYARD = "little_hangleton_graveyard"
FLYING_POWDER_BOARD = "board2"
BUCKBEAK_BOARDS = ("board1", "board2")
START_KIND = "start"
PITCH_KIND = "quidditch_pitch"
TOWER_KIND = "tower"


@dataclass(frozen=True, slots=True)
class Graph:
    """The map as movement sees it: every mapping is sorted, so walking it is deterministic.

    ``steps`` are the 1-step walk neighbours, ``free`` the 0-step link targets, ``portal`` the portal trips;
    ``voluntary`` the cells where a move may end early; ``enterable`` every cell but the blocked Great Hall.
    """

    steps: Mapping[str, tuple[str, ...]]
    free: Mapping[str, tuple[str, ...]]
    portal: Mapping[str, str]
    kinds: Mapping[str, str]
    boards: Mapping[str, str]
    voluntary: frozenset[str]
    enterable: frozenset[str]

    @classmethod
    def of(cls, data: HogwartsData) -> Graph:
        return cls.from_cells(data.cells.values(), data.cell_kinds)

    @classmethod
    def from_cells(cls, cells: Iterable[Cell], kinds: Mapping[str, CellKind]) -> Graph:
        """The graph of any set of cells (the real map, or a small one in a test)."""
        ordered = sorted(cells, key=lambda c: c.id)
        voluntary = frozenset(c.id for c in ordered if kinds[kind_template(c.kind)].voluntary_stop in ("yes", "always"))
        return cls(
            steps=MappingProxyType({c.id: tuple(sorted(c.neighbours)) for c in ordered}),
            free=MappingProxyType({c.id: tuple(sorted(c.free_links)) for c in ordered}),
            portal=MappingProxyType({c.id: link.to for c in ordered for link in c.links if not link.is_free}),
            kinds=MappingProxyType({c.id: c.kind for c in ordered}),
            boards=MappingProxyType({c.id: c.board for c in ordered}),
            voluntary=voluntary,
            enterable=frozenset(c.id for c in ordered if kinds[kind_template(c.kind)].voluntary_stop != "never"),
        )


@dataclass(frozen=True, slots=True)
class Constraints:
    """What the game state adds to the graph for one move.

    ``occupied``: cells whose entry forces a stop — other players' figures the mover must fight, Death Eater
    tokens (the engine leaves out teammates, truces and the underage 1–2 LP case, C-18; Pettigrew's ``rat``
    passes none and lists them in ``stop_also`` instead).  ``impassable``: cells that cannot be entered (solo
    Death Eater tokens, C-11).  ``stop_also``: further cells where the mover may stop early (a mission it can
    complete there now).  ``stop_anywhere``: Alohomora.  ``pitch_ends_move``: False for Cho's ``pitch_pass``.
    """

    occupied: frozenset[str] = frozenset()
    impassable: frozenset[str] = frozenset()
    stop_also: frozenset[str] = frozenset()
    stop_anywhere: bool = False
    pitch_ends_move: bool = True


FREE_MOVE = Constraints()


class Ending(StrEnum):
    """Why a walk ends where it does."""

    EXACT = "exact"  # the whole roll was used
    FORCED = "forced"  # a figure, a Death Eater token or the pitch: the rest of the roll is cancelled
    DEAD_END = "dead_end"  # nothing left to enter: the rest of the roll is lost
    VOLUNTARY = "voluntary"  # the mover chose to stop early where the rules allow it


@dataclass(frozen=True, slots=True, order=True)
class Walk:
    """One legal move: ``path`` from the starting cell to ``end``, ``steps`` walk edges long."""

    path: tuple[str, ...]
    steps: int
    ending: Ending

    @property
    def end(self) -> str:
        return self.path[-1]

    @property
    def crossed(self) -> tuple[str, ...]:
        """The cells entered (tokens may be picked up on every one of them, rules §9.6)."""
        return self.path[1:]


def _forces_stop(graph: Graph, cell: str, rules: Constraints) -> bool:
    if cell in rules.occupied and graph.kinds[cell] != START_KIND:
        return True
    return rules.pitch_ends_move and graph.kinds[cell] == PITCH_KIND


def _may_stop(graph: Graph, cell: str, rules: Constraints) -> bool:
    return rules.stop_anywhere or cell in graph.voluntary or cell in rules.stop_also


def _can_enter(graph: Graph, cell: str, seen: set[str] | frozenset[str], rules: Constraints) -> bool:
    return cell in graph.enterable and cell not in seen and cell not in rules.impassable


def _onward(graph: Graph, cell: str, steps: int, roll: int, seen: set[str] | frozenset[str],
            rules: Constraints) -> list[tuple[str, int]]:
    """The cells a walk at ``cell`` after ``steps`` may enter next, with the step count there, in sorted order."""
    nxt = [(n, steps + 1) for n in graph.steps[cell] if steps < roll and _can_enter(graph, n, seen, rules)]
    nxt += [(f, steps) for f in graph.free[cell] if _can_enter(graph, f, seen, rules)]
    return sorted(nxt)


def _ending(graph: Graph, cell: str, steps: int, roll: int, stuck: bool, rules: Constraints) -> Ending | None:
    """How a walk may end on ``cell`` (just entered) — ``None`` if it may not end there."""
    if steps == roll:
        return Ending.EXACT
    if _forces_stop(graph, cell, rules):
        return Ending.FORCED
    if stuck:
        return Ending.DEAD_END
    return Ending.VOLUNTARY if _may_stop(graph, cell, rules) else None


def walks(graph: Graph, origin: str, roll: int, rules: Constraints = FREE_MOVE) -> tuple[Walk, ...]:
    """Every legal move of exactly ``roll`` steps from ``origin`` (or ending early as the rules allow), sorted.

    A figure that cannot move at all gets the one walk ``(origin,)``, a dead end; a roll of 0 may also stay.
    """
    if origin not in graph.steps:
        raise KeyError(f"no cell {origin!r}")
    if roll < 0:
        raise ValueError(f"a roll is never negative, got {roll}")
    found: list[Walk] = []
    path = [origin]
    seen = {origin}

    def visit(cell: str, steps: int) -> None:
        forced = _forces_stop(graph, cell, rules)
        onward = [] if forced else _onward(graph, cell, steps, roll, seen, rules)
        ending = _ending(graph, cell, steps, roll, not onward, rules)
        if ending is not None:
            found.append(Walk(tuple(path), steps, ending))
        for nxt, count in onward:
            path.append(nxt)
            seen.add(nxt)
            visit(nxt, count)
            seen.discard(nxt)
            path.pop()

    for nxt, count in _onward(graph, origin, 0, roll, seen, rules):
        path.append(nxt)
        seen.add(nxt)
        visit(nxt, count)
        seen.discard(nxt)
        path.pop()
    if roll == 0:
        found.append(Walk((origin,), 0, Ending.EXACT))
    elif not found:
        found.append(Walk((origin,), 0, Ending.DEAD_END))
    return tuple(sorted(found))


def destinations(graph: Graph, origin: str, roll: int, rules: Constraints = FREE_MOVE) -> tuple[str, ...]:
    """The cells a move of ``roll`` from ``origin`` may end on, sorted."""
    return tuple(sorted({w.end for w in walks(graph, origin, roll, rules)}))


def walks_up_to(graph: Graph, origin: str, most: int, rules: Constraints = FREE_MOVE) -> tuple[Walk, ...]:
    """Every move of 1 to ``most`` steps by the normal rules (the Invisibility Cloak's escape, C-28), sorted."""
    found = {w for roll in range(1, most + 1) for w in walks(graph, origin, roll, rules) if len(w.path) > 1}
    return tuple(sorted(found))


def classify(graph: Graph, path: tuple[str, ...] | list[str], roll: int,
             rules: Constraints = FREE_MOVE) -> Ending | None:
    """How the move along ``path`` ends, or ``None`` if it is not a legal move of ``roll`` (checks a chosen path)."""
    if not path or path[0] not in graph.steps:
        return None
    if len(path) == 1:
        if roll == 0:
            return Ending.EXACT
        return Ending.DEAD_END if not _onward(graph, path[0], 0, roll, frozenset(path), rules) else None
    seen = {path[0]}
    steps = 0
    for i, nxt in enumerate(path[1:], start=1):
        here = path[i - 1]
        if i > 1 and _forces_stop(graph, here, rules):
            return None
        options = dict(_onward(graph, here, steps, roll, seen, rules))
        if nxt not in options:
            return None
        steps = options[nxt]
        seen.add(nxt)
    end = path[-1]
    forced = _forces_stop(graph, end, rules)
    stuck = forced or not _onward(graph, end, steps, roll, seen, rules)
    return _ending(graph, end, steps, roll, stuck, rules)


def shortest_path(graph: Graph, source: str, target: str) -> tuple[str, ...] | None:
    """A path of fewest steps (free links cost 0) ignoring stops, the first in sorted order; ``None`` if none."""
    best: dict[str, int] = {}
    queue: list[tuple[int, tuple[str, ...]]] = [(0, (source,))]
    while queue:
        steps, path = heapq.heappop(queue)
        cell = path[-1]
        if cell in best:
            continue
        best[cell] = steps
        if cell == target:
            return path
        for nxt in graph.steps[cell]:
            if nxt not in best and nxt in graph.enterable:
                heapq.heappush(queue, (steps + 1, (*path, nxt)))
        for nxt in graph.free[cell]:
            if nxt not in best and nxt in graph.enterable:
                heapq.heappush(queue, (steps, (*path, nxt)))
    return None


def distance(graph: Graph, source: str, target: str) -> int | None:
    """The fewest steps from ``source`` to ``target`` (free links cost 0), ignoring stops; ``None`` if unreachable."""
    path = shortest_path(graph, source, target)
    if path is None:
        return None
    return sum(1 for a, b in zip(path, path[1:], strict=False) if b in graph.steps[a] and b not in graph.free[a])


def can_use_flying_powder(graph: Graph, cell: str) -> bool:
    """Flying powder starts from a tower the figure has stopped on (rules §9.7)."""
    return graph.kinds.get(cell) == TOWER_KIND


def flying_powder_destinations(graph: Graph) -> tuple[str, ...]:
    """Any board-2 cell except the Little Hangleton graveyard (rules §9.7, C-22), sorted."""
    return tuple(c for c in sorted(graph.boards) if graph.boards[c] == FLYING_POWDER_BOARD and c != GRAVEYARD
                 and c in graph.enterable)


def portal_destination(graph: Graph, cell: str) -> str | None:
    """Where a portal token leads from ``cell`` (the graveyard, from the pitch), or ``None`` (rules §9.8)."""
    return graph.portal.get(cell)


def buckbeak_destinations(graph: Graph) -> tuple[str, ...]:
    """Any cell of board 1 or board 2, the graveyard included (rules §9.9, data §1.2), sorted."""
    return tuple(c for c in sorted(graph.boards) if graph.boards[c] in BUCKBEAK_BOARDS and c in graph.enterable)
