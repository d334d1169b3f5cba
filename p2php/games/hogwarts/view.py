"""What a seat sees (its own hand and missions by face, everyone else's by count) and one-line action
descriptions for logs.  Presentation only: nothing here is hashed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Knowledge, Seat, Slot

from .action_words import action_words
from .data import load
from .ids import deck_of_slot, instance
from .pitch_grid import SIDES
from .quidditch import Match
from .quidditch_goals import Goals
from .quidditch_snitch import Snitch, circuit_cell
from .voldemort_rules import RETURN, return_view
from .voldemort_view import return_lines

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["battle_view", "card_title", "describe", "observation", "table_lines"]


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
            "hand_slots": list(g.hand[s]) if mine else [], "mission_slots": list(g.missions[s]) if mine else [],
            "team": g.team[s], "matches": g.matches[s], "defeats": g.defeats[s],
        })
    rov = return_view(g) if g.mode == RETURN else None
    if rov is not None and rov["returned"]:
        players[int(str(rov["villain"]))]["name"] = "Lord Voldemort"
    return {"seat": seat, "turn": g.turn, "turns": g.turns, "mode": g.mode, "length": g.length,
            "players": players, "tokens": sorted([c, list(t)] for c, t in g.tokens.items()),
            "decks": sorted([d, len(s)] for d, s in g.deck.items()), "qualified": list(g.qualified),
            "events": [list(e) for e in g.events], "match": match_view(g), "battle": battle_view(g),
            "death_eaters": list(g.death_eaters), "return": rov}


def match_view(g: HogwartsState) -> dict[str, Any] | None:
    """The Quidditch match being played, if any (all of it public): sides, phase, pieces, balls, score."""
    match = next((t for t in g.stack if isinstance(t, Match)), None)
    if match is None:
        return None
    out: dict[str, Any] = {"seats": match.seats, "houses": list(match.houses), "phase": 0}
    for task in g.stack:
        if isinstance(task, Goals):
            out.update(phase=1, side=task.side, actions=task.actions, goals=list(task.goals),
                       pieces=sorted(task.pieces.items()), holder=task.holder, quaffle=task.quaffle,
                       bludgers=list(task.bludgers))
        elif isinstance(task, Snitch):
            out.update(phase=2, side=task.side, progress=list(task.progress),
                       seekers=[circuit_cell(p) for p in task.progress], guard=list(task.guard))
    return out


def battle_view(g: HogwartsState) -> dict[str, Any] | None:
    """The battle being fought, if any (all of it public, on the stack): against a card's enemy (who fights,
    the enemy's LP, whose round, who left it, the stage, the last dice) or between two players (who, hits
    taken, who escaped by the Cloak)."""
    # By class name: battle.py and pvp.py import the state, which imports this module (no cycle allowed).
    kinds = ("Battle", "PlayerBattle", "Versus", "SheetBattle")
    fight: Any = next((t for t in reversed(list(g.stack)) if type(t).__name__ in kinds), None)
    if fight is None:
        return None
    if type(fight).__name__ == "Versus":  # qualified: two players, or a player and a Death Eater (C-33, C-35)
        eater = g.data.death_eaters[fight.eater - 1].name if fight.seats[1] < 0 and fight.eater > 0 else None
        return {"kind": "sides", "seats": list(fight.seats), "eater": eater, "lp": [fight.lp(g, 0), fight.lp(g, 1)],
                "current": fight.seats[fight.current], "stage": fight.stage.name.lower(), "dice": list(fight.dice)}
    if type(fight).__name__ == "SheetBattle":  # the Return: heroes, Voldemort and his Death Eaters (§16.5)
        return {"kind": "sheets", "fighters": list(fight.fighters), "attacker": fight.fighters[fight.attacker],
                "stage": fight.stage.name.lower(), "dice": list(fight.dice)}
    if type(fight).__name__ == "Battle":
        return {"kind": fight.kind, "enemy": fight.enemy, "participants": list(fight.participants),
                "standing": list(fight.standing), "left": list(fight.left), "lp": fight.lp, "start_lp": fight.start_lp,
                "current": fight.current, "stage": fight.stage.name.lower(), "dice": list(fight.dice),
                "result": fight.result}
    return {"kind": "players", "mover": fight.mover, "opponent": fight.opponent, "hits": list(fight.hits),
            "stage": fight.stage.name.lower(), "winner": fight.winner, "escaper": fight.escaper}


def describe(g: HogwartsState, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
    words = action_words(action, faces, card_title)
    return f"seat {seat} {words}" if words.startswith(("moves ", "stays ")) else f"seat {seat}: {words}"


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
    if obs.get("death_eaters"):
        towers = ", ".join(data.cells[c].label if c in data.cells else str(c) for c in obs["death_eaters"])
        lines.append(f"  Death Eaters on: {towers}")
    if obs.get("mode") == "team":
        teams = [p.get("team") for p in obs.get("players", [])]
        lines.append("  teams: " + "; ".join(", ".join(names[s] if s < len(names) else f"seat {s}"
                                                      for s, t in enumerate(teams) if t == team)
                                             for team in sorted(set(teams), key=str)))
    if obs.get("match"):
        lines.extend(match_lines(obs["match"], names))
    if obs.get("return"):
        lines.extend(return_lines(obs["return"], names))
    if obs.get("qualified"):
        lines.append(f"  goal reached by seats {', '.join(str(q) for q in obs['qualified'])}: the round is finished")
    return lines


def match_lines(m: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The match: who plays which side, then Phase 1's pitch (columns 0..8 from A's goal; a piece is its side,
    its role's initial and number, ``*`` holding the Quaffle; ``Q`` a loose Quaffle, ``b`` a Bludger) or the
    Seekers' progress round the circuit."""
    seats = list(m.get("seats", []))
    who = [names[s] if s < len(names) else f"seat {s}" for s in seats]
    houses = list(m.get("houses", [])) + ["?", "?"]
    lines = [f"  Quidditch: {who[0]} (A, {houses[0]}) against {who[1]} (B, {houses[1]}), phase {m.get('phase')}"]
    if m.get("phase") == 1:
        at = {cell: name for name, cell in m.get("pieces", [])}
        lines.append(f"     goals {m['goals'][0]}–{m['goals'][1]}; {SIDES[m['side']]} to move, {m['actions']} actions")
        for row in range(5):
            cells = []
            for col in range(9):
                cell = f"q_{col}_{row}"
                name = at.get(cell, "")
                tag = f"{name[0]}{name[2]}{name[-1] if name[-1].isdigit() else ''}" if name else "."
                tag += "*" if name and name == m.get("holder") else ""
                tag += "Q" if cell == m.get("quaffle") else ""
                tag += "b" * list(m.get("bludgers", [])).count(cell)
                cells.append(tag if (col not in (0, 8) or row in (1, 2, 3)) else "")
            lines.append("     " + " ".join(c.ljust(5) for c in cells))
    elif m.get("phase") == 2:
        progress = m.get("progress", [0, 0])
        lines.append(f"     Seekers: A {progress[0]}/24 ({m['seekers'][0]}), B {progress[1]}/24 ({m['seekers'][1]}); "
                     f"{SIDES[m['side']]} to move")
    return lines
