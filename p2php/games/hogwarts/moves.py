"""Movement decisions: the walk itself (from :func:`.board.walks`), the object tokens picked up on the way,
and the trips that are not movement (flying powder, the portal, Buckbeak).

A move is ``{"type": "move", "path": [cells...], "roll": N}``: one of the walks of a roll the turn allows
(a start-of-turn card may allow several).  A move that stops early *only* because a mission can be
completed there names that mission: ``"mission": slot`` opens the card with the move (rules §9.5.1), and
the peers check its face when the move is applied; the mission is then attempted (``turn``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task

from .board import (
    Constraints,
    Ending,
    Walk,
    buckbeak_destinations,
    classify,
    flying_powder_destinations,
    portal_destination,
    walks,
)
from .data import graph, load
from .modes import TEAM
from .rules import can_attempt, constraints, location_cells, mission_of
from .state import MAX_TOKENS

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["MAX_PICKUPS", "Move", "Moved", "Pickups", "Trip"]

MAX_PICKUPS = 2
"""Object tokens taken per turn (rules §9.6; trips count too, C-19)."""
BUCKBEAK = "buckbeak"


@lru_cache(maxsize=8192)
def legal_walks(origin: str, roll: int, rules: Constraints) -> tuple[Walk, ...]:
    """:func:`.board.walks` on the game's map, remembered: walks are a pure function of their arguments, and
    the same questions (from the start, the Leaky Cauldron ...) come up again and again."""
    return walks(graph(), origin, roll, rules)


def may_wait(g: HogwartsState, seat: Seat) -> bool:
    """Team mode: a member on a mission's location may stay there and wait for the others (rules §11)."""
    return g.mode == TEAM and g.pos[seat] in mission_locations()


@lru_cache(maxsize=1)
def mission_locations() -> frozenset[str]:
    return frozenset(c for m in load().missions for c in location_cells(m.location))


@dataclass(frozen=True)
class Moved:
    """The chosen walk and the mission slot it stopped for (-1: none)."""

    path: tuple[str, ...]
    mission: int = -1
    waited: bool = False  # team mode: stayed on a mission's location to wait for the team (no cell effect)


@dataclass
class Move(Task["HogwartsState"]):
    """``seat`` chooses its walk for one of ``rolls`` (``stop_anywhere``: Alohomora)."""

    seat: int
    rolls: list[int]
    stop_anywhere: bool = False

    def run(self, g: HogwartsState) -> Outcome:
        return Decide((self.seat,), "move")

    def _mission_stops(self, g: HogwartsState, knowledge: Knowledge) -> dict[str, int]:
        """Cells where ``seat`` could complete one of its missions now, with the slot of one such mission."""
        out: dict[str, int] = {}
        for slot in g.missions[self.seat]:
            mission = mission_of(g, slot, knowledge)
            if mission is None:
                continue
            for cell in location_cells(mission.location):
                if cell not in out and can_attempt(g, self.seat, mission, cell, knowledge):
                    out[cell] = slot
        return dict(sorted(out.items()))

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        """Every walk of every allowed roll; a walk that may end early only because of a mission names it.

        One search serves both: allowing the mission cells as stops adds endings there and changes nothing
        else, so a walk of the wider search needs the mission only if it ends early on such a cell where
        nothing else allows an early stop."""
        stops = self._mission_stops(g, knowledge)
        rules = constraints(g, seat, self.stop_anywhere, frozenset(stops))
        out: list[Action] = []
        seen: set[tuple[str, ...]] = set()
        for roll in self.rolls:
            for w in legal_walks(g.pos[seat], roll, rules):
                if w.path in seen:
                    continue
                seen.add(w.path)
                action: Action = {"type": "move", "path": list(w.path), "roll": roll}
                if w.end in stops and w.ending is Ending.VOLUNTARY and not self.stop_anywhere \
                        and w.end not in g.graph.voluntary:
                    action["mission"] = stops[w.end]
                out.append(action)
        if may_wait(g, seat):
            out.append({"type": "move", "path": [g.pos[seat]], "roll": self.rolls[0], "wait": True})
        return out

    def check(self, g: HogwartsState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action.get("type") != "move":
            raise IllegalAction("a move is asked")
        roll, path = action.get("roll"), action.get("path")
        if roll not in self.rolls:
            raise IllegalAction(f"the roll allows {self.rolls}, not {roll!r}")
        if not isinstance(path, list) or not path or not all(isinstance(c, str) for c in path):
            raise IllegalAction("a move's path is a list of cell ids")
        if path[0] != g.pos[seat]:
            raise IllegalAction(f"a move starts where the figure stands ({g.pos[seat]})")
        if "wait" in action:  # true or absent: a "wait" of anything else was read as absent, a second form
            if action["wait"] is not True or path != [g.pos[seat]] or not may_wait(g, seat) or "mission" in action:
                raise IllegalAction("waiting (\"wait\": true) is staying on a mission's location in team mode")
            return
        stop_also: frozenset[str] = frozenset()
        if "mission" in action:
            slot = action["mission"]
            if slot not in g.missions[seat]:
                raise IllegalAction(f"slot {slot!r} is not one of seat {seat}'s missions")
            mission = mission_of(g, slot, knowledge)
            if mission is not None and not can_attempt(g, seat, mission, path[-1], knowledge):
                raise IllegalAction(f"mission {mission.number} cannot be completed on {path[-1]} now")
            stop_also = frozenset((path[-1],))
        rules = constraints(g, seat, self.stop_anywhere, stop_also)
        if classify(g.graph, tuple(path), int(roll), rules) is None:
            raise IllegalAction(f"not a legal move of {roll}: {' > '.join(path)}")

    def reveals(self, g: HogwartsState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        slot = action.get("mission")
        return (slot,) if isinstance(slot, int) else ()

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        path = tuple(str(c) for c in action["path"])
        slot = int(action.get("mission", -1))
        if slot >= 0:
            mission = mission_of(g, slot)
            if mission is None or not can_attempt(g, seat, mission, path[-1]):
                raise IllegalAction(f"the card opened with the move is no mission completable on {path[-1]}")
        g.pos[seat] = path[-1]
        g.log("move", seat, list(path))
        return Done(Moved(path, slot, action.get("wait") is True))


@dataclass
class Pickups(Task["HogwartsState"]):
    """``seat`` may take object tokens from ``cells`` (those it entered), up to the turn's limit; at 6 held it
    may swap, leaving the token it gives up on that cell (C-19).  The result is how many it took."""

    seat: int
    cells: list[str]
    taken: int = 0
    left: list[str] = field(default_factory=list)  # tokens given up this turn (not offered again)

    def offers(self, g: HogwartsState) -> list[Action]:
        if self.taken >= MAX_PICKUPS:
            return []
        out: list[Action] = []
        held = g.held[self.seat]
        for cell in dict.fromkeys(self.cells):
            for token in dict.fromkeys(g.tokens.get(cell, [])):
                if token in self.left:
                    continue
                if len(held) < MAX_TOKENS:
                    out.append({"type": "take", "cell": cell, "token": token})
                else:
                    out.extend({"type": "take", "cell": cell, "token": token, "give": u} for u in held)
        return out

    def run(self, g: HogwartsState) -> Outcome:
        if not self.offers(g):
            return Done(self.taken)
        return Decide((self.seat,), "tokens")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [*self.offers(g), {"type": "done"}]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        if action["type"] == "done":
            return Done(self.taken)
        cell, token = str(action["cell"]), str(action["token"])
        g.take_token(cell, token)
        if "give" in action:
            give = str(action["give"])
            g.held[seat].remove(give)
            g.place_token(cell, give)
            self.left.append(give)
        g.held[seat].append(token)
        self.taken += 1
        g.log("take", seat, token, cell)
        return CONTINUE


@dataclass
class Trip(Task["HogwartsState"]):
    """After the move: flying powder from a tower (rules §9.7), a portal from the pitch (§9.8) or Buckbeak
    (§9.9), or staying.  The result is ``[kind, destination]`` (``[]`` for staying); the turn returns the
    figure at its end."""

    seat: int

    def offers(self, g: HogwartsState) -> list[Action]:
        here = g.pos[self.seat]
        out: list[Action] = []
        if g.powder[self.seat] and g.graph.kinds[here] == "tower":
            out.extend({"type": "fly", "to": c} for c in flying_powder_destinations(g.graph))
        if g.portals[self.seat] and portal_destination(g.graph, here):
            out.append({"type": "portal"})
        if BUCKBEAK in g.held[self.seat]:
            out.extend({"type": "buckbeak", "to": c} for c in buckbeak_destinations(g.graph) if c != here)
        return out

    def run(self, g: HogwartsState) -> Outcome:
        if not self.offers(g):
            return Done([])
        return Decide((self.seat,), "trip")

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "stay"}, *self.offers(g)]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        kind = action["type"]
        if kind == "stay":
            return Done([])
        if kind == "fly":
            g.spend(seat, "powder")
            dest = str(action["to"])
        elif kind == "portal":
            g.spend(seat, "portal")
            dest = portal_destination(g.graph, g.pos[seat]) or g.pos[seat]
        else:
            dest = str(action["to"])
        g.log("trip", seat, kind, dest)
        return Done([kind, dest])
