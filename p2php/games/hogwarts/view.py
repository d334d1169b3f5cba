"""What a seat sees (its own hand and missions by face, everyone else's by count) and one-line action
descriptions for logs.  Presentation only: nothing here is hashed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Knowledge, Seat, Slot

from .ids import deck_of_slot, instance

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["describe", "observation"]


def _face(knowledge: Knowledge, slot: Slot) -> str | None:
    face = knowledge.face(slot)
    return None if face is None else instance(face).card


def observation(g: HogwartsState, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
    players = []
    for s in range(g.players):
        mine = s == seat
        players.append({
            "sheet": g.sheet[s], "name": g.student(s).name if g.sheet[s] else "", "cell": g.pos[s], "lp": g.lp[s],
            "points": g.points[s], "powder": g.powder[s], "portals": g.portals[s], "tokens": list(g.held[s]),
            "done": list(g.done[s]), "hand_size": len(g.hand[s]), "missions_left": len(g.missions[s]),
            "hand": [[deck_of_slot(x), _face(knowledge, x)] for x in g.hand[s]] if mine else [],
            "missions": [_face(knowledge, x) for x in g.missions[s]] if mine else [],
        })
    return {"seat": seat, "turn": g.turn, "turns": g.turns, "mode": g.mode, "length": g.length,
            "players": players, "tokens": sorted([c, list(t)] for c, t in g.tokens.items()),
            "decks": sorted([d, len(s)] for d, s in g.deck.items()), "qualified": list(g.qualified),
            "events": [list(e) for e in g.events]}


def describe(g: HogwartsState, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
    kind = action.get("type", "?")
    if kind == "move":
        path = action.get("path") or []
        return f"seat {seat} moves {len(path) - 1} cells to {path[-1] if path else '?'}"
    if kind in ("card", "start", "exam", "mission") and action.get("slot") in faces:
        return f"seat {seat}: {kind} {instance(faces[action['slot']]).card}"
    detail = ", ".join(f"{k}={v}" for k, v in sorted(action.items()) if k != "type")
    return f"seat {seat}: {kind}" + (f" ({detail})" if detail else "")
