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
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task

from .board import buckbeak_destinations, classify, flying_powder_destinations, portal_destination, walks
from .rules import can_attempt, constraints, mission_of
from .state import MAX_TOKENS

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["MAX_PICKUPS", "Move", "Moved", "Pickups", "Trip"]

MAX_PICKUPS = 2
"""Object tokens taken per turn (rules §9.6; trips count too, C-19)."""
BUCKBEAK = "buckbeak"


@dataclass(frozen=True)
class Moved:
    """The chosen walk and the mission slot it stopped for (-1: none)."""

    path: tuple[str, ...]
    mission: int = -1


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
        cells = sorted(g.data.cells)
        for slot in g.missions[self.seat]:
            mission = mission_of(g, slot, knowledge)
            if mission is None:
                continue
            for cell in cells:
                if cell not in out and can_attempt(g, self.seat, mission, cell):
                    out[cell] = slot
        return out

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        rules = constraints(g, seat, self.stop_anywhere)
        out: list[Action] = []
        seen: set[tuple[str, ...]] = set()
        for roll in self.rolls:
            for w in walks(g.graph, g.pos[seat], roll, rules):
                if w.path not in seen:
                    seen.add(w.path)
                    out.append({"type": "move", "path": list(w.path), "roll": roll})
        stops = self._mission_stops(g, knowledge)
        if stops:
            wider = constraints(g, seat, self.stop_anywhere, frozenset(stops))
            for roll in self.rolls:
                for w in walks(g.graph, g.pos[seat], roll, wider):
                    if w.path not in seen and w.end in stops:
                        seen.add(w.path)
                        out.append({"type": "move", "path": list(w.path), "roll": roll, "mission": stops[w.end]})
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
        stop_also: frozenset[str] = frozenset()
        if "mission" in action:
            slot = action["mission"]
            if slot not in g.missions[seat]:
                raise IllegalAction(f"slot {slot!r} is not one of seat {seat}'s missions")
            mission = mission_of(g, slot, knowledge)
            if mission is not None and not can_attempt(g, seat, mission, path[-1]):
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
        return Done(Moved(path, slot))


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
