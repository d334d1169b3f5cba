"""Help on A Year at Hogwarts' cards, sheets, cells, tokens and missions, built from ``hogwarts_data.json``
(:mod:`p2php.gamehelp` serves it to the terminal's ``?`` and the browser).  Read-only presentation: nothing
here is hashed or used by the rules.

Card effects are data like ``damage(3)``; each is explained with the data's own battle vocabulary (the term
``damage(N)`` means "attack card: the opponent loses N LP"), so the help and the rules read the same source.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from .action_words import cell_name
from .data import load

__all__ = ["effect_words", "help_entries"]


@cache
def _vocabulary() -> tuple[tuple[re.Pattern[str], str], ...]:
    out = []
    for term in load().battle_vocabulary:
        pattern = re.escape(term.term).replace("N", r"(?P<n>\d+)").replace("decks", r"(?P<decks>[a-z_,]+)")
        out.append((re.compile(pattern + "$"), term.meaning))
    return tuple(out)


def effect_words(effect: str) -> str:
    """One effect of the data (``damage(3)``, ``heal(2)``, ``after:roll(2)``) in words, from the vocabulary."""
    for pattern, meaning in _vocabulary():
        m = pattern.match(effect)
        if m:
            n, decks = m.groupdict().get("n"), m.groupdict().get("decks")
            if decks:
                return f"{meaning} Decks: {decks.replace(',', ', ')}."
            return meaning.replace(" N ", f" {n} ").replace("N LP", f"{n} LP") if n else meaning
    extra = re.fullmatch(r"([a-z_:]+\(\d+),([^)]*)\)", effect)  # after:roll(2,res-1): the term with a modifier
    if extra and (base := effect_words(extra.group(1) + ")")) != (extra.group(1) + ")").replace("_", " "):
        return f"{base} ({extra.group(2)})"
    plus = re.fullmatch(r"(points|flying_powder|portal|lp)\(([+-]\d+)\)", effect.removeprefix("all: "))
    if plus:
        what = {"points": "house points", "flying_powder": "flying powder", "portal": "portal tokens", "lp": "LP"}
        who = "every player: " if effect.startswith("all: ") else ""
        return f"{who}{plus.group(2)} {what[plus.group(1)]}"
    return effect.replace("_", " ")


def _enemy(card: Any) -> dict[str, Any]:
    dice = f", {card.attack_dice} attack dice" if card.attack_dice else ""
    immune = f"; immune to {', '.join(card.immune)}" if card.immune else ""
    text = "\n".join(effect_words(a) for a in card.abilities)
    reward = getattr(card, "reward", None)
    if reward:
        text += f"\nReward: {reward}"
    return {"id": card.id, "kind": "enemy", "title": card.name, "names": [card.name, card.id],
            "facts": f"{card.deck.replace('_', ' ')} card: {card.lp} LP, resistance {card.res}{dice}{immune}",
            "text": text.strip()}


@cache
def _entries() -> tuple[dict[str, Any], ...]:
    data = load()
    out: list[dict[str, Any]] = []
    for card in [*data.spells.values(), *data.potions.values()]:
        out.append({"id": card.id, "kind": "card", "title": card.name, "names": [card.name, card.id],
                    "facts": f"{card.deck} card · {card.use} · {card.copies} in the deck",
                    "text": "\n".join(effect_words(e) for e in card.effect)})
    for book in data.books.values():
        out.append({"id": book.id, "kind": "card", "title": book.title, "names": [book.title, book.id],
                    "facts": f"book card · {book.subject.replace('_', ' ')} · {book.points} points",
                    "text": ""})
    for action in data.actions.values():
        out.append({"id": action.id, "kind": "card", "title": action.text, "names": [action.text, action.id],
                    "facts": "action card", "text": "\n".join(effect_words(e) for e in action.effect)})
    for event in data.events.values():
        out.append({"id": event.id, "kind": "card", "title": event.title, "names": [event.title, event.id],
                    "facts": "event card", "text": event.text})
    for q in data.quidditch_cards.values():
        out.append({"id": q.id, "kind": "card", "title": q.name, "names": [q.name, q.id],
                    "facts": "Quidditch card", "text": q.text})
    for enemy in [*data.duels.values(), *data.battle_cards.values(), *data.event_battles.values()]:
        out.append(_enemy(enemy))
    for m in data.missions:
        cell = data.cells.get(m.location)
        where = cell.label if cell is not None else m.location.replace("_", " ")
        tokens = ", ".join(data.object_tokens[t].name if t in data.object_tokens else t for t in m.tokens)
        out.append({"id": f"M{m.number:02d}", "kind": "mission", "title": f"{m.number}. {m.title}",
                    "names": [m.title, f"M{m.number:02d}", f"mission {m.number}"],
                    "facts": f"mission · {m.reward} points · at {where}",
                    "text": f"{m.flavour}\nBring: {tokens or 'nothing'}; then go to {where} and win the battle "
                            f"({m.battle_card}). Reward: {m.reward} house points."})
    for s in data.students:
        out.append({"id": f"sheet:{s.sheet}", "kind": "sheet", "title": s.name, "names": [s.name, f"sheet {s.sheet}"],
                    "facts": f"{s.house} · {s.lp} LP · resistance {s.res} · {s.attack_dice} attack dice",
                    "text": f"Moving: {s.movement_ability.text}\nIn battle: {s.battle_ability.text}"})
    for token in data.object_tokens.values():
        out.append({"id": f"token:{token.id}", "kind": "token", "title": token.name, "names": [token.name, token.id],
                    "facts": f"object token ({token.group})", "text": token.effect})
    for cell in data.cells.values():
        kind = data.cell_kinds.get(cell.kind)
        effect = data.cell_effects.get(cell.id)
        text = effect.text if effect is not None else kind.effect if kind is not None else ""
        out.append({"id": f"cell:{cell.id}", "kind": "cell", "title": cell_name(cell.id),
                    "names": [cell.label, cell.id],
                    "facts": f"{cell.kind.replace('_', ' ')} cell · {cell.board} board", "text": text})
    return tuple(out)


def help_entries(lang: str) -> list[dict[str, Any]]:
    """Every card, enemy, mission, student sheet, object token and cell (English only: the game's data)."""
    return [dict(e) for e in _entries()]
