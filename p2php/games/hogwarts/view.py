"""What a seat sees (its own hand and missions by face, everyone else's by count) and one-line action
descriptions for logs.  Presentation only: nothing here is hashed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Knowledge, Seat, Slot

from .data import load
from .ids import deck_of_slot, instance

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["card_title", "describe", "observation", "table_lines"]


def card_title(card: str | None) -> str:
    """A card id of the observation (``stupefy``, ``BK18``, ``M04``) as the words on the card."""
    if card is None:
        return "?"
    data = load()
    if card.startswith("M") and card[1:].isdigit():
        mission = data.mission(int(card[1:]))
        return f"mission {mission.number} ({mission.title}, {mission.reward} points)"
    for deck in ("spell", "potion", "book", "action", "event", "duel", "quidditch"):
        found = data.deck(deck).get(card)
        if found is not None:
            return str(getattr(found, "name", None) or getattr(found, "title", None) or card)
    return card


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


def table_lines(obs: Mapping[str, Any], seat: Seat, names: Sequence[str]) -> list[str]:
    """The terminal's view: every figure's cell, life and house points, tokens and missions done; then the
    seat's own hand and missions, and what happened this turn."""
    data = load()
    lines = [f"  A Year at Hogwarts — {obs.get('mode')}, {obs.get('length')} game, turn {obs.get('turns')}"]
    for s, p in enumerate(obs.get("players", [])):
        who = names[s] if s < len(names) else f"seat {s}"
        mark = "▶" if obs.get("turn") == s else " "
        you = "  (you)" if s == seat else ""
        cell = data.cells.get(str(p.get("cell")))
        where = cell.label if cell is not None else str(p.get("cell"))
        lines.append(f" {mark} {who}{you} — {p.get('name')}: {where}; {p.get('lp')} LP, {p.get('points')} points, "
                     f"powder {p.get('powder')}, portals {p.get('portals')}, {p.get('hand_size')} cards")
        tokens = ", ".join(data.object_tokens[t].name for t in p.get("tokens", []) if t in data.object_tokens)
        done = ", ".join(str(m) for m in p.get("done", []))
        lines.append(f"     tokens: {tokens or '—'}   missions done: {done or '—'} "
                     f"({p.get('missions_left')} to go)")
        if s == seat:
            hand = ", ".join(card_title(face) for _deck, face in p.get("hand", []))
            lines.append(f"     your hand: {hand or '—'}")
            lines.append(f"     your missions: {', '.join(card_title(m) for m in p.get('missions', [])) or '—'}")
    if obs.get("qualified"):
        lines.append(f"  goal reached by seats {', '.join(str(q) for q in obs['qualified'])}: the round is finished")
    return lines
