"""What each mode changes (rules §3, data §3.2, C-8–C-12): pure facts of the options, asked by the tasks.

``qualified`` and ``team`` play by the qualified rules; ``solo`` plays one player at the difficulty of the
option ``difficulty`` (``underage`` or ``qualified``, C-11).  Every question a task asks about a mode is one
function here, so a rule that differs by mode reads as what it is and not as a list of mode names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2php.engine.contract import Seat

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["SOLO", "TEAM", "cooperative", "death_eaters_block", "difficulty", "has_death_eaters", "needs_match",
           "shows_mission_cards", "team_of", "teammates"]

SOLO = "solo"
TEAM = "team"
QUALIFIED = "qualified"
UNDERAGE = "underage"


def difficulty(g: HogwartsState) -> str:
    """``qualified`` for the qualified and team modes and a qualified solo game, else ``underage``."""
    if g.mode in (QUALIFIED, TEAM):
        return QUALIFIED
    if g.mode == SOLO:
        return str(g.options.get("difficulty", UNDERAGE))
    return UNDERAGE


def has_death_eaters(g: HogwartsState) -> bool:
    """The 6 Death Eater tokens are on towers (qualified, team, qualified solo: data §3.2)."""
    return g.mode in (QUALIFIED, TEAM, SOLO) and difficulty(g) == QUALIFIED


def death_eaters_block(g: HogwartsState) -> bool:
    """Solo: Death Eater tokens cannot be entered (C-11); elsewhere entering one starts a battle (C-35)."""
    return g.mode == SOLO


def shows_mission_cards(g: HogwartsState) -> bool:
    """A mission also needs its spell and potion cards, shown when the battle card is taken (C-52)."""
    return difficulty(g) == QUALIFIED


def needs_match(g: HogwartsState) -> bool:
    """To win one must have taken part in a Quidditch match (qualified; solo qualified: Snitch practice,
    C-11; team mode has no such requirement, C-8)."""
    return g.mode == QUALIFIED or (g.mode == SOLO and difficulty(g) == QUALIFIED)


def team_of(g: HogwartsState, seat: Seat) -> list[Seat]:
    """``seat``'s team, clockwise from ``seat`` (``[seat]`` outside team mode)."""
    order = [(seat + k) % g.players for k in range(g.players)]
    return [s for s in order if s == seat or teammates(g, seat, s)]


def cooperative(g: HogwartsState) -> bool:
    """One team of everyone (C-9): it plays like solo and loses after 3 defeats in all."""
    return g.mode == TEAM and len(set(g.team)) == 1


def teammates(g: HogwartsState, a: Seat, b: Seat) -> bool:
    """Whether ``a`` and ``b`` are different members of one team (team mode, C-8)."""
    return a != b and g.mode == TEAM and g.team[a] == g.team[b]
