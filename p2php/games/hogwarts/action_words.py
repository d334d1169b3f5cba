"""Each decision of A Year at Hogwarts in the words a player reads: cells, object tokens, cards, students and
Death Eaters by their names, never by ids (``no_start``, ``fly (to=forest_of_dean)``).  Used by ``describe``
for logs, the terminal's menus and the browser's buttons.  Presentation only: nothing here is hashed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from p2php.engine.contract import Action, CardId, Slot

from .data import load
from .ids import instance

__all__ = ["PROMPTS", "action_words", "cell_name", "prompt_words"]

# What each decision asks (a Decide's prompt), as the terminal's question; the page's hogwarts.js has the same.
PROMPTS: Mapping[str, str] = {
    "character": "choose your student", "start_card": "play a start-of-turn card, or not",
    "move": "move: pick a cell the roll reaches", "tokens": "take the object tokens on your way, or not",
    "trip": "fly from here (flying powder, a portal, Buckbeak), or stay", "defend": "battle: defend (or not)",
    "attack": "battle: attack", "dodge": "dodge the dice?", "flee": "flee?", "reroll": "re-roll?",
    "mission": "attempt a mission here?", "mission_cards": "show the spell and potion cards the mission needs",
    "exam": "take an exam?", "prize": "you won: take a prize", "opponent": "choose whom to battle",
    "hand_in": "hand in tokens", "action_card": "action card", "event_card": "event card",
    "common_room": "common room", "duel_refuse": "refuse the duel?", "return_card": "give a card back",
    "search_deck": "choose a deck to search", "search_take": "take a card from the deck",
    "place_used": "place a used token", "time_turner": "use the Time-Turner?", "challenge": "Quidditch challenge",
    "house": "choose a house", "formation": "Quidditch: your formation", "quidditch": "Quidditch: your move",
    "place_quaffle": "place the Quaffle", "quidditch_card": "play a Quidditch card?",
    "reroll_die": "re-roll a die?", "choose_deck": "choose a deck", "event_cell": "event cell",
    "exchange_offer": "an exchange is offered", "cloak": "use the Invisibility Cloak before the duel?",
    "cloak_move": "Invisibility Cloak: move", "spy": "Rookwood spies: put one of the hand's cards under its deck",
    "death_eater": "place a Death Eater token on a tower", "death_eaters": "place a Death Eater token on a tower",
    "eater": "move a Death Eater, or done", "eater_move": "move the Death Eater: pick where it goes",
    "place_eater": "place a Death Eater", "gift": "take a flying powder or a portal token",
    "place_stone": "place the Resurrection Stone", "place_wand": "place the Elder Wand",
}


def prompt_words(prompt: str) -> str:
    """The question a decision asks, in words (the prompt id itself for one this table lacks)."""
    return PROMPTS.get(prompt, prompt)


# Decisions with nothing but their type, as words.
_PLAIN = {
    "no_start": "no start card", "no_mission": "no mission", "no_match": "no Quidditch match", "no_card": "no card",
    "no_defence": "no defence", "done": "done", "stay": "stay here", "end": "end the actions", "pass": "pass",
    "keep": "keep the dice", "reroll": "re-roll the dice", "flee": "flee", "take_hits": "take the hits",
    "dodge": "dodge", "dice": "roll the attack dice", "refuse": "refuse", "accept": "accept", "fight": "fight",
    "ready": "ready", "time_turner": "use the Time-Turner", "portal": "use a portal token",
    "graveyard": "go to the graveyard", "shoot": "shoot at the goal",
}
# Decisions on a card of one's own: what doing it means.
_ON_CARD = {"card": "play", "start": "play start card", "exam": "take an exam with", "mission": "attempt",
            "apply": "apply", "resolve": "resolve", "return": "give back", "take": "take"}
_PRIZES = {"portal": "a portal token", "powder": "a flying powder", "card": "a card"}
_GIFTS = {"portal": "a portal token", "powder": "a flying powder"}


def cell_name(cell: Any) -> str:
    """A cell's name; one of several cells that share a label ("Dungeons", "First floor") also gets its kind and a
    neighbour with a name of its own, so that choices between them can be told apart."""
    return _cell_names().get(str(cell)) or str(cell).replace("_", " ").replace(":", " ")


@cache
def _cell_names() -> dict[str, str]:
    cells = load().cells
    uses = Counter(c.label for c in cells.values())
    out = {}
    for cell in cells.values():
        if uses[cell.label] == 1:
            out[cell.id] = cell.label
            continue
        near = [cells[n].label for n in cell.neighbours if n in cells and uses[cells[n].label] == 1]
        by = f", by {near[0].split(' (')[0].split(' +')[0]}" if near else ""
        out[cell.id] = f"{cell.label} ({cell.kind.replace('_', ' ')} cell{by})"
    return out


def token_name(token: Any) -> str:
    found = load().object_tokens.get(str(token))
    return found.name if found is not None else str(token).replace("_", " ")


def _student(sheet: Any) -> str:
    return next((s.name for s in load().students if s.sheet == sheet), f"student sheet {sheet}")


def _steps(path: Any) -> str:
    cells = list(path or [])
    n = max(len(cells) - 1, 0)
    if not cells or n == 0:
        return "stays put"
    return f"moves {n} cell{'s' if n != 1 else ''} to {cell_name(cells[-1])}"


def _piece(piece: Any) -> str:
    return str(piece).replace(":", " ").replace("_", " ")


def action_words(action: Action, faces: Mapping[Slot, CardId], card_title: Callable[[str | None], str]) -> str:
    """``action`` of a seat as the words after its name ("no start card", "take Cauldron at Hogsmeade")."""
    kind = str(action.get("type", "?"))
    get = action.get
    slot = get("slot")
    if kind in _ON_CARD and isinstance(slot, int) and slot in faces:
        return f"{_ON_CARD[kind]} {card_title(instance(faces[slot]).card)}"
    if kind in _PLAIN and (len(action) == 1 or kind == "shoot"):
        return _PLAIN[kind]
    if kind == "move":
        return _steps(get("path"))
    if kind == "eater_move":
        return f"Death Eater {get('eater')} {_steps(get('path'))}"
    if kind == "eater":
        return f"move Death Eater {get('eater')}"
    if kind == "place_eater":
        return f"place Death Eater {get('eater')} at {cell_name(get('cell'))}"
    if kind == "death_eater":
        return f"place a Death Eater on {cell_name(get('cell'))}"
    if kind == "death_eaters":
        return "place the Death Eaters on " + ", ".join(cell_name(c) for c in get("cells") or [])
    if kind == "character":
        return f"play {_student(get('sheet'))}"
    if kind in ("fly", "buckbeak", "go"):
        how = {"fly": "fly with flying powder to", "buckbeak": "ride Buckbeak to", "go": "go to"}[kind]
        return f"{how} {cell_name(get('to', get('cell')))}"
    if kind == "escape":
        path = list(get("path") or [])
        return f"escape to {cell_name(path[-1])}" if len(path) > 1 else "escape (nowhere to go: stay)"
    if kind == "take" and "token" in action:
        words = f"take {token_name(get('token'))} at {cell_name(get('cell'))}"
        return words + (f", leaving {token_name(get('give'))} there" if "give" in action else "")
    if kind == "token":
        return f"use {token_name(get('token'))}"
    if kind == "place" and "token" in action:
        return f"place {token_name(get('token'))} at {cell_name(get('cell'))}"
    if kind == "place" and "piece" in action:
        return f"place {_piece(get('piece'))} at {cell_name(get('cell'))}"
    if kind == "place_quaffle":
        return f"place the Quaffle at {cell_name(get('cell'))}"
    if kind == "deck":
        return f"choose the {get('deck')} deck"
    if kind == "exchange":
        return f"exchange with seat {get('with')}: give {token_name(get('give'))}, take {token_name(get('take'))}"
    if kind == "prize":
        what = get("what")
        return f"prize: {token_name(get('token')) if what == 'token' else _PRIZES.get(str(what), str(what))}"
    if kind == "gift":
        return f"take {_GIFTS.get(str(get('what')), str(get('what')))}"
    if kind == "opponent":
        return f"battle seat {get('seat')}"
    if kind == "challenge":
        return f"challenge seat {get('seat')} to Quidditch"
    if kind == "house":
        return f"play for {get('house')}"
    if kind == "reroll" and "die" in action:
        return f"re-roll die {int(get('die', 0)) + 1}"
    if kind in ("step", "intercept"):
        return f"{'move' if kind == 'step' else 'intercept with'} {_piece(get('piece'))} to {cell_name(get('to'))}"
    if kind == "pass":
        return f"pass the Quaffle from {_piece(get('piece'))} to {cell_name(get('to'))}"
    if kind == "throw":
        return f"{_piece(get('piece'))} throws Bludger {int(get('bludger', 0)) + 1} at {_piece(get('target'))}"
    detail = ", ".join(f"{k} {v}" for k, v in sorted(action.items()) if k != "type")
    return kind.replace("_", " ") + (f" ({detail})" if detail else "")
