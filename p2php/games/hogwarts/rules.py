"""Small public facts of the rules that several tasks ask: who may battle whom, what a mission needs, the
length's end condition.  Pure functions of the state; nothing here changes it."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from p2php.engine.contract import Knowledge, Seat, Slot

from .board import Constraints
from .data import load
from .ids import instance, mission_card
from .mission_cards import cards_for, could_hold
from .missions import GREAT_HALL, Mission
from .modes import (
    cooperative,
    death_eaters_block,
    has_death_eaters,
    needs_match,
    shows_mission_cards,
    team_of,
    teammates,
)
from .voldemort_rules import RETURN, return_constraints

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["LENGTHS", "at_location", "location_cells", "battle_possible", "can_attempt", "constraints", "meets_goal",
           "mission_of", "missions_here"]

LENGTHS = {"quick": (1, 210), "classic": (2, 260), "long": (3, 320)}
"""Missions completed at least, and house points strictly more than (rules §2)."""
UNDERAGE_MIN_LP = 3
"""Underage: no player battle if either player has only 1 or 2 life points (rules §14.6, C-18)."""
QUALIFIED_MIN_LP = 2
START_KIND = "start"


def battle_possible(g: HogwartsState, mover: Seat, other: Seat) -> bool:
    """Whether ``mover`` entering ``other``'s cell starts a player battle: underage not with 1–2 LP (C-18),
    qualified not at 1 LP or fewer (the battle would be over before it began), never in a truce or against
    a teammate (C-18, C-8)."""
    least = UNDERAGE_MIN_LP if not shows_mission_cards(g) else QUALIFIED_MIN_LP
    if g.lp[mover] < least or g.lp[other] < least or teammates(g, mover, other):
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
    impassable: frozenset[str] = frozenset()
    if move_ability != "rat":  # Pettigrew is never forced to stop on a figure or a Death Eater (data §4.1)
        occupied = frozenset(c for c in sorted(set(g.pos)) if opponents_at(g, seat, c))
        if has_death_eaters(g) and not death_eaters_block(g):
            occupied |= frozenset(g.death_eaters)
    if has_death_eaters(g) and death_eaters_block(g):  # solo: the tokens cannot be entered (C-11)
        impassable = frozenset(g.death_eaters)
    return Constraints(occupied=occupied, impassable=impassable, stop_also=stop_also, stop_anywhere=stop_anywhere,
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


def can_attempt(g: HogwartsState, seat: Seat, mission: Mission, cell: str, knowledge: Knowledge | None = None) -> bool:
    """``seat`` holds the mission's object tokens and stands on its location (rules §11); under the qualified
    rules it also holds the mission's cards (C-52: known to ``knowledge``; without it, the public count)."""
    members = team_of(g, seat)  # team mode: every member there, the team's tokens (rules §11)
    held = [t for m in members for t in g.held[m]]
    if not (at_location(g, mission, cell) and all(t in held for t in mission.tokens)):
        return False
    if any(not at_location(g, mission, g.pos[m]) for m in members if m != seat):
        return False
    if not shows_mission_cards(g) or not mission.qualified_cards:
        return True
    if len(members) > 1:  # team mode: the members' cards together, shown in turn (each hand is secret)
        return could_hold(g, seat, mission, members)
    if knowledge is None or any(knowledge.face(s) is None for s in g.hand[seat]):
        return could_hold(g, seat, mission)  # a peer that does not see the hand: the public count
    return cards_for(g, seat, mission, knowledge) is not None


def missions_here(g: HogwartsState, seat: Seat) -> bool:
    """Whether some mission *could* be attempted where ``seat`` stands with what it holds (public: it does
    not say which missions ``seat`` has, so asking the seat reveals nothing)."""
    if not g.missions[seat]:
        return False
    return any(can_attempt(g, seat, m, g.pos[seat]) for m in g.data.missions)


def meets_goal(g: HogwartsState, seat: Seat) -> bool:
    """The length's end condition (rules §2): enough missions completed and strictly more points."""
    missions, points = LENGTHS[g.length]
    if needs_match(g) and not g.matches[seat]:
        return False
    members = team_of(g, seat)  # team mode: the team's missions and its shared total (C-8)
    done = sum(len(g.done[m]) for m in members)
    return done >= missions and team_points(g, seat) > points * len(members)


def team_points(g: HogwartsState, seat: Seat) -> int:
    """The house points of ``seat``'s team (its own outside team mode): one shared total (C-8)."""
    return sum(g.points[m] for m in team_of(g, seat))


def final_scores(g: HogwartsState) -> tuple[int, ...]:
    """Each seat's score at the end: its team's total in team mode (C-8), else its own points."""
    return tuple(team_points(g, s) for s in range(g.players))


def lost(g: HogwartsState) -> bool:
    """Solo: losing all life points ends the game as a loss (rules §14.5, C-11)."""
    if cooperative(g):  # one team of everyone: 3 defeats in all lose the game (C-9)
        return sum(g.defeats) >= COOPERATIVE_DEFEATS
    return g.mode == "solo" and any(g.defeats)


COOPERATIVE_DEFEATS = 3
