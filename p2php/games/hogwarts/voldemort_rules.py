"""The Return of Lord Voldemort (rules §16, data §4.4, C-41–C-47): the campaign's public record and the small
facts every Return-mode task asks — who is who, which side may take which token, where figures must stop,
whether each side has reached its goal.  Pure functions of the state; nothing here changes it.

The record (:class:`Campaign`) is a field of the game's bottom task (:class:`.voldemort_turn.ReturnYear`), so
it is hashed and cloned with the task stack and the shared state needs no Return-mode fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from p2php.engine.contract import Seat

from .board import Constraints
from .sheets import DeathEaterSheet

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["HARRY", "RETURN", "Campaign", "campaign", "eater_sheet", "eaters_at", "harry", "hero_goal", "heroes",
           "horcrux_here", "is_voldemort", "may_take", "return_constraints", "return_view", "ritual_tokens",
           "villain_goal"]

RETURN = "return_of_voldemort"
HARRY = 1
"""Harry's sheet number: he is always in (data §4.4)."""
PETTIGREW = 9
VOLDEMORT_BACK = 9
"""Lord Voldemort is the back of sheet 9 (data §4.2)."""
PITCH = "quidditch_pitch"
GRAVEYARD = "little_hangleton_graveyard"
START_KIND = "start"
HORCRUXES = 6
WEAPONS = ("basilisk_fang", "gryffindors_sword")
WAND, STONE = "elder_wand", "resurrection_stone"


@dataclass
class Campaign:
    """What Return mode adds to the public state.  ``eaters`` maps each Death Eater still in play to its cell,
    ``eater_lp`` to its life points, ``eater_hand`` to its card slots (dealt to the villain's seat);
    ``retry`` are heroes who failed a Horcrux and roll again instead of moving (rules §16.3)."""

    villain: int = 0
    returned: bool = False
    destroyed: list[str] = field(default_factory=list)
    eaters: dict[str, str] = field(default_factory=dict)
    eater_lp: dict[str, int] = field(default_factory=dict)
    eater_hand: dict[str, list[int]] = field(default_factory=dict)
    retry: list[int] = field(default_factory=list)


def campaign(g: HogwartsState) -> Campaign:
    """The Return-mode record (a field of the bottom task)."""
    for task in g.stack:
        found = getattr(task, "campaign", None)
        if isinstance(found, Campaign):
            return found
    raise LookupError("not a game of The Return of Lord Voldemort")


def is_voldemort(g: HogwartsState, seat: Seat) -> bool:
    c = campaign(g)
    return seat == c.villain and c.returned


def heroes(g: HogwartsState) -> list[Seat]:
    return [s for s in range(g.players) if s != campaign(g).villain]


def harry(g: HogwartsState) -> Seat:
    return g.sheet.index(HARRY)


def eater_sheet(g: HogwartsState, name: str) -> DeathEaterSheet:
    return next(d for d in g.data.death_eaters if d.name == name)


def ritual_tokens(g: HogwartsState) -> tuple[str, ...]:
    """The four tokens Pettigrew must hold before the graveyard (the Voldemort side's, but the Wand)."""
    return tuple(t for t in g.data.return_of_voldemort.voldemort_side_tokens if t != WAND)


def may_take(g: HogwartsState, seat: Seat, token: str) -> bool:
    """A side collects only its own tokens (rules §16.1); Horcruxes are destroyed, never taken."""
    rv = g.data.return_of_voldemort
    side = rv.voldemort_side_tokens if seat == campaign(g).villain else rv.hero_side_tokens
    return token in side


def eaters_at(g: HogwartsState, cell: str) -> list[str]:
    """The Death Eaters on ``cell``, in the data's order."""
    c = campaign(g)
    return [n for n in g.data.return_of_voldemort.death_eaters if c.eaters.get(n) == cell]


def horcrux_here(g: HogwartsState, seat: Seat) -> str | None:
    """The Horcrux ``seat`` may try to destroy where it stands: a hero holding a weapon (C-42) on the cell of a
    Horcrux not yet destroyed."""
    c = campaign(g)
    if seat == c.villain or not any(w in g.held[seat] for w in WEAPONS):
        return None
    for token, cell in g.data.return_of_voldemort.horcruxes.items():
        if cell == g.pos[seat] and token not in c.destroyed:
            return token
    return None


def villain_goal(g: HogwartsState) -> bool:
    """Voldemort has returned and holds the Elder Wand (rules §16.4)."""
    c = campaign(g)
    return c.returned and WAND in g.held[c.villain]


def hero_goal(g: HogwartsState) -> bool:
    """All six Horcruxes are destroyed and a hero holds the Resurrection Stone (V3)."""
    return len(campaign(g).destroyed) == HORCRUXES and any(STONE in g.held[s] for s in heroes(g))


def return_constraints(g: HogwartsState, seat: Seat, stop_anywhere: bool, stop_also: frozenset[str]) -> Constraints:
    """Where a move must stop in Return mode: no battles before the return (Pettigrew's ``rat`` passes
    everything anyway); afterwards a hero stops on a Death Eater (a battle, §16.5), and Harry and Voldemort stop
    on each other once either side has reached its goal (C-44: with neither goal they pass); Voldemort
    ignores Ron and Hermione and his own Death Eaters.  The start cell never stops anyone (C-18)."""
    c = campaign(g)
    occupied: set[str] = set()
    if c.returned:
        goal = villain_goal(g) or hero_goal(g)
        if seat == c.villain:
            if goal:
                occupied.add(g.pos[harry(g)])
        else:
            occupied.update(c.eaters.values())
            if goal and seat == harry(g):
                occupied.add(g.pos[c.villain])
    occupied = {cell for cell in occupied if g.graph.kinds[cell] != START_KIND}
    return Constraints(occupied=frozenset(sorted(occupied)), stop_also=stop_also, stop_anywhere=stop_anywhere)


def return_view(g: HogwartsState) -> dict[str, object]:
    """The campaign as every seat sees it (all of it public); Death Eaters' cards by count."""
    c = campaign(g)
    return {"villain": c.villain, "returned": c.returned, "destroyed": list(c.destroyed),
            "horcruxes": len(g.data.return_of_voldemort.horcruxes), "retry": list(c.retry),
            "eaters": [[n, c.eaters[n], c.eater_lp[n], len(c.eater_hand.get(n, []))]
                       for n in g.data.return_of_voldemort.death_eaters if n in c.eaters],
            "villain_goal": villain_goal(g), "hero_goal": hero_goal(g)}
