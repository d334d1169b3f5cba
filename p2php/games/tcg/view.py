"""What people see: a seat's observation, a line per action, the log's words (outside the hashed state)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Knowledge, Seat, Slot
from p2php.games.tcg.cards import SET_SIZE, Card, card_by_number
from p2php.games.tcg.ids import card_of

if TYPE_CHECKING:  # state.py renders its views through this module
    from p2php.games.tcg.state import TcgState

__all__ = ["PROMPTS", "describe", "event_text", "observation", "prompt_words", "table_lines"]

PROMPTS: Mapping[str, str] = {
    "action": "play a card, draw a card, or end the turn", "second_lesson": "play a second lesson, or stop",
    "homework": "Homework: put a Lesson from your hand into play, or stop", "creature": "choose a creature",
    "discard_all": "discard", "discard_item": "discard an item", "discard_own": "discard one of your cards",
    "draco": "Draco: choose", "exam": "the exam: choose", "in_play": "choose a card in play",
    "keep": "choose a card to keep", "lesson": "choose a lesson", "muzzle": "Muzzle: choose",
    "retrieve": "take a card back from your discard pile", "reward": "the adventure's reward: choose",
    "search": "search your deck for a card", "show": "show a card, or not", "solve": "solve the adventure?",
    "target": "choose a target",
}
"""What each decision asks, as the terminal's question (the page's app.js has the same table)."""


def prompt_words(prompt: str) -> str:
    """The question a decision asks, in words (the prompt id itself for one this table lacks)."""
    return PROMPTS.get(prompt, prompt)


def _name(g: TcgState, slot: Slot, knowledge: Knowledge | None = None) -> str:
    face = g.pub.get(slot) if knowledge is None else knowledge.face(slot)
    return card_of(face).name if face is not None else "?"


def observation(g: TcgState, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
    """Public zones for both seats, and ``seat``'s own hand by name."""
    sides = []
    for s in (0, 1):
        sides.append({
            "character": card_by_number(g.start[s]).name,
            "characters": [_name(g, x) for x in g.characters[s]],
            "deck": len(g.deck[s]),
            "hand": len(g.hand[s]),
            "lessons": [_name(g, x) for x in g.lessons[s]],
            "creatures": [[_name(g, x), d] for x, d in g.creatures[s]],
            "items": [_name(g, x) for x in g.items[s]],
            "adventure": _name(g, g.adventures[s]) if g.adventures[s] >= 0 else None,
            "discard": [_name(g, x) for x in g.discard[s]],
        })
    mine = [] if seat is None else [_name(g, x, knowledge) for x in g.hand[seat]]
    cards = [] if seat is None else [_hand_card(x, knowledge.face(x)) for x in g.hand[seat]]
    return {"turn": g.turn, "turns": g.turns, "first": g.first, "sides": sides, "hand": mine, "hand_cards": cards}


def _hand_card(slot: Slot, face: CardId | None) -> dict[str, Any]:
    """One hand card as a client draws it: its slot (what the legal actions name), number, name, type and
    cost (None when unknown); the text is in the help (:func:`help_entries`)."""
    if face is None:
        return {"slot": slot, "number": None, "name": "?", "type": None, "cost": None, "lesson": None}
    card = card_of(face)
    return {"slot": slot, "number": card.number, "name": card.name, "type": str(card.type), "cost": card.cost,
            "lesson": None if card.lesson is None else str(card.lesson)}


def describe(g: TcgState, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
    kind = action.get("type")
    slot = action.get("slot", -1)
    face = faces.get(slot, g.pub.get(slot))
    what = card_of(face).name if face is not None else "a card"
    if kind in ("play", "take"):
        return f"{'plays' if kind == 'play' else 'takes back'} {what}"
    if kind == "ability":
        return f"uses Draco Malfoy, discarding {what}"
    if kind == "discard":
        return "discards a card from the opponent's hand"
    if kind == "target":
        return f"aims at {what}" if "slot" in action else "aims at the opponent"
    if kind in ("creature", "in_play"):
        return f"discards {what}"
    if kind == "item":
        return f"uses {what}"
    if kind == "keep":
        return f"keeps {what}"
    if kind == "lesson":
        return f"discards a {action.get('lesson')} Lesson"
    return {"draw": "draws a card", "end": "ends the turn", "stop": "stops", "none": "discards nothing",
            "solve": "solves the opponent's Adventure", "dean": "uses Dean Thomas: draws 3 cards"}.get(
        str(kind), str(action))


def event_text(g: TcgState, event: list[Any]) -> str:
    """One log entry in words."""
    kind, *rest = event
    if kind == "mill":
        return f"seat {rest[0]} takes {len(rest[1])} damage: {', '.join(_name(g, s) for s in rest[1])}"
    if kind == "play":
        return f"seat {rest[0]} plays {_name(g, rest[1])}"
    return " ".join(str(x) for x in event)


def _counted(names: list[str]) -> str:
    """``["Charms", "Charms", "Potions"]`` as ``2 Charms, Potions`` (first-seen order: stable, readable)."""
    seen: dict[str, int] = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
    return ", ".join(f"{n} {name}" if n > 1 else name for name, n in seen.items()) or "—"


def table_lines(obs: Mapping[str, Any], seat: Seat, names: list[str]) -> list[str]:
    """The terminal's view: each side's Character, Lessons, Creatures with damage, Items, Adventure, piles."""
    lines: list[str] = []
    sides = obs.get("sides", [])
    for s, side in enumerate(sides):
        who = names[s] if s < len(names) else f"seat {s}"
        mark = "▶" if obs.get("turn") == s else " "
        you = "  (you)" if s == seat else ""
        lines.append(f" {mark} {who}{you} — {side.get('character')}   deck {side.get('deck')}   "
                     f"hand {side.get('hand')}   discard {len(side.get('discard', []))}")
        lines.append(f"     Lessons: {_counted(list(side.get('lessons', [])))}")
        creatures = [f"{name} ({damage} damage)" if damage else str(name) for name, damage in side.get("creatures", [])]
        if creatures:
            lines.append(f"     Creatures: {', '.join(creatures)}")
        if side.get("items"):
            lines.append(f"     Items: {', '.join(side['items'])}")
        if side.get("characters"):
            lines.append(f"     Characters: {', '.join(side['characters'])}")
        if side.get("adventure"):
            lines.append(f"     Adventure: {side['adventure']}")
    lines.append(f"  Your hand: {', '.join(obs.get('hand', [])) or '—'}")
    return lines


# ----------------------------------------------------------------------------- help (read-only, for ? and the page)


def _lesson_words(value: object) -> str:
    return str(value).replace("_", " ").title().replace(" Of ", " of ")


def _card_facts(card: Card) -> str:
    parts = [str(card.type).title()]
    if card.cost is not None:
        parts.append(f"needs {card.cost} {_lesson_words(card.lesson)} Power" if card.lesson else f"cost {card.cost}")
    for lesson, n in card.provides:
        parts.append(f"provides {n} {_lesson_words(lesson)} Power")
    if card.damage is not None:
        parts.append(f"damage {card.damage} each turn")
    if card.health is not None:
        parts.append(f"Health {card.health}")
    if card.keywords:
        parts.append(", ".join(card.keywords))
    return " · ".join(parts)


def help_entries(lang: str) -> list[dict[str, Any]]:
    """Every Base Set card with its printed text, for :mod:`p2php.gamehelp` (English only: the set's
    language); two versions of one name (Draco Malfoy 2 and 3) read the same, so one entry per name."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number in range(1, SET_SIZE + 1):
        card = card_by_number(number)
        if card.name in seen:
            continue
        seen.add(card.name)
        text = list(card.effect)
        if card.note:
            text.insert(0, card.note)
        if card.to_solve:
            text.append(f"To solve: {card.to_solve}")
        if card.reward:
            text.append(f"Reward: {card.reward}")
        out.append({"id": f"card:{number}", "kind": "card", "title": card.name, "names": [card.name, str(number)],
                    "facts": _card_facts(card), "text": "\n".join(text), "type": str(card.type),
                    "cost": card.cost, "lesson": None if card.lesson is None else str(card.lesson)})
    return out
