"""The geometry of Phase 1 on the pitch (data §5.1) as pure functions: where a piece may step, the lines a
side defends and shoots from, a Bludger's straight line, and distances for the bots.

Sides are 0 (``A``, the challenger, west) and 1 (``B``, east).  A piece is named ``A:keeper``, ``B:chaser2``
...; its role is the name without the side and the number.  Pieces never share a cell (the one exception, an
interception, is a single action in :mod:`.quidditch_goals`); balls (the Quaffle, the Bludgers) share cells
with pieces, and a Bludger flies over pieces.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache

from .data import load
from .pitch import Pitch

__all__ = ["OUT", "SIDES", "ahead_line", "bludger_rest", "distances", "goal_zone", "line3", "path_between",
           "piece", "pieces_of", "role", "side_of", "steps"]

SIDES = ("A", "B")
OUT = "out"
"""The cell of a piece a Bludger removed from the pitch (until the end of the match, rules §15.2)."""
ROLES = (("keeper", 1), ("beater", 2), ("chaser", 3))
"""The pieces of a side on the grid (its Seeker waits on the circuit during Phase 1, C-39)."""


def pitch() -> Pitch:
    return load().pitch


def piece(side: int, role_: str, n: int = 0) -> str:
    """``A:keeper``, ``B:chaser2`` (``n`` from 1 for the roles a side has more than one of)."""
    return f"{SIDES[side]}:{role_}{n or ''}"


@cache
def pieces_of(side: int) -> tuple[str, ...]:
    """A side's grid pieces in a fixed order: Keeper, Beaters, Chasers."""
    return tuple(piece(side, r, n if count > 1 else 0) for r, count in ROLES for n in range(1, count + 1))


@cache
def side_of(name: str) -> int:
    return SIDES.index(name.split(":")[0])


@cache
def role(name: str) -> str:
    return name.split(":")[1].rstrip("0123456789")


@cache
def goal_zone(side: int) -> frozenset[str]:
    """The three cells where only ``side``'s Keeper may stand (rules §15.2)."""
    return frozenset(c.id for c in pitch().grid.values() if c.zone == f"goal_{SIDES[side]}")


@cache
def line3(side: int) -> tuple[str, ...]:
    """Line (3) in front of ``side``'s goal: its Beaters start there and the *other* side shoots from it."""
    return tuple(c.id for c in pitch().grid.values() if c.zone == f"line3_{SIDES[side]}")


def ahead_line(side: int) -> tuple[str, ...]:
    """Where ``side``'s Chasers shoot from: line (3) on the opponent's side."""
    return line3(1 - side)


def steps(cell: str, role_: str, side: int, occupied: Iterable[str]) -> list[str]:
    """The free neighbours a piece of ``role_`` may step to: a Keeper stays in its goal zone, no other piece
    enters a goal zone, and no cell with another piece is entered."""
    taken = set(occupied)
    out = []
    for nxt in pitch().grid[cell].neighbours:
        if nxt in taken:
            continue
        in_goal = nxt in goal_zone(0) or nxt in goal_zone(1)
        if role_ == "keeper" and nxt not in goal_zone(side):
            continue
        if role_ != "keeper" and in_goal:
            continue
        out.append(nxt)
    return out


def path_between(a: str, b: str) -> list[str] | None:
    """The cells a Bludger thrown from ``a`` crosses to ``b`` along a row or a column, ``b`` included and
    ``a`` not (its length is the rules' distance), or ``None`` if they share no row or column."""
    grid = pitch().grid
    ca, cb = grid[a], grid[b]
    if a == b or (ca.col != cb.col and ca.row != cb.row):
        return None
    dc = (cb.col > ca.col) - (cb.col < ca.col)
    dr = (cb.row > ca.row) - (cb.row < ca.row)
    n = abs(cb.col - ca.col) + abs(cb.row - ca.row)
    return [f"q_{ca.col + dc * i}_{ca.row + dr * i}" for i in range(1, n + 1)]


def bludger_rest(cell: str) -> str:
    """Where a Bludger ending on ``cell`` stays: one in a goal zone goes to the line-(3) cell in front (C-39)."""
    c = pitch().grid[cell]
    if c.zone == "goal_A":
        return f"q_1_{c.row}"
    if c.zone == "goal_B":
        return f"q_7_{c.row}"
    return cell


def distances(targets: Iterable[str], blocked: Iterable[str] = (), keeper_side: int | None = None) -> Mapping[str, int]:
    """Steps from every cell to the nearest of ``targets`` for a field piece (goal zones closed; a Keeper of
    ``keeper_side``: its own zone only), not passing ``blocked`` cells (targets may be blocked)."""
    return _distances(frozenset(targets), frozenset(blocked), keeper_side)


@lru_cache(maxsize=4096)
def _distances(targets: frozenset[str], closed: frozenset[str], keeper_side: int | None) -> Mapping[str, int]:
    """:func:`distances`, remembered (callers only read it)."""
    zones = goal_zone(0) | goal_zone(1)

    def allowed(cell: str) -> bool:
        return cell in goal_zone(keeper_side) if keeper_side is not None else cell not in zones

    dist = {t: 0 for t in targets}
    queue = deque(sorted(dist))
    while queue:
        cell = queue.popleft()
        for nxt in pitch().grid[cell].neighbours:
            if nxt in dist or nxt in closed or not allowed(nxt):
                continue
            dist[nxt] = dist[cell] + 1
            queue.append(nxt)
    return dist
