"""Small public facts of the rules that several tasks ask: who may battle whom, what a mission needs, the
length's end condition.  Pure functions of the state; nothing here changes it."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from p2php.engine.contract import Knowledge, Seat, Slot

from .board import Constraints
from .data import load
from .ids import instance, mission_card
from .missions import GREAT_HALL, Mission
from .voldemort_rules import RETURN, return_constraints

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["LENGTHS", "at_location", "location_cells", "battle_possible", "can_attempt", "constraints", "meets_goal",
           "mission_of", "missions_here"]

LENGTHS = {"quick": (1, 210), "classic": (2, 260), "long": (3, 320)}
"""Missions completed at least, and house points strictly more than (rules §2)."""
UNDERAGE_MIN_LP = 3
"""Underage: no player battle if either player has only 1 or 2 life points (rules §14.6, C-18)."""
START_KIND = "start"


def battle_possible(g: HogwartsState, mover: Seat, other: Seat) -> bool:
    """Whether ``mover`` entering ``other``'s cell starts an underage player battle (C-18)."""
    if g.lp[mover] < UNDERAGE_MIN_LP or g.lp[other] < UNDERAGE_MIN_LP:
        return False
    return not g.in_truce(mover, other)


def opponents_at(g: HogwartsState, mover: Seat, cell: str) -> list[Seat]:
    """The figures on ``cell`` that ``mover`` must fight on entering it (never on the start cell)."""
    if g.graph.kinds[cell] == START_KIND:
        return []
    return [s for s in g.figures_at(cell, but=mover) if battle_possible(g, mover, s)]


def constraints(g: HogwartsState, seat: Seat, stop_anywhere: bool = False,
                stop_also: frozenset[str] = frozenset()) -> Constraints:
    """What the figures and ``seat``'s sheet add to the graph for its move (board.Constraints)."""
    if g.mode == RETURN:
        return return_constraints(g, seat, stop_anywhere, stop_also)
    move_ability, _ = g.ability(seat)
    occupied: frozenset[str] = frozenset()
    if move_ability != "rat":  # Pettigrew is never forced to stop on a figure (data §4.1)
        occupied = frozenset(c for c in sorted(set(g.pos)) if opponents_at(g, seat, c))
    return Constraints(occupied=occupied, stop_also=stop_also, stop_anywhere=stop_anywhere,
                       pitch_ends_move=move_ability != "pitch_pass")


def mission_of(g: HogwartsState, slot: Slot, knowledge: Knowledge | None = None) -> Mission | None:
    """The mission on ``slot`` if its face is known (public, or to ``knowledge``)."""
    face = g.pub.get(slot) if knowledge is None else knowledge.face(slot)
    if face is None or instance(face).deck != "mission":
        return None
    return g.data.mission(mission_card(face))


@cache
def location_cells(location: str) -> tuple[str, ...]:
    """The cells a mission location means: one cell, or every Great Hall cell for ``@gh``."""
    return load().great_hall_cells() if location == GREAT_HALL else (location,)


def at_location(g: HogwartsState, mission: Mission, cell: str) -> bool:
    return cell in location_cells(mission.location)


def can_attempt(g: HogwartsState, seat: Seat, mission: Mission, cell: str) -> bool:
    """Underage: ``seat`` holds the mission's object tokens and stands on its location (rules §11)."""
    return at_location(g, mission, cell) and all(t in g.held[seat] for t in mission.tokens)


def missions_here(g: HogwartsState, seat: Seat) -> bool:
    """Whether some mission *could* be attempted where ``seat`` stands with what it holds (public: it does
    not say which missions ``seat`` has, so asking the seat reveals nothing)."""
    if not g.missions[seat]:
        return False
    return any(can_attempt(g, seat, m, g.pos[seat]) for m in g.data.missions)


def meets_goal(g: HogwartsState, seat: Seat) -> bool:
    """The length's end condition (rules §2): enough missions completed and strictly more points."""
    missions, points = LENGTHS[g.length]
    return len(g.done[seat]) >= missions and g.points[seat] > points
