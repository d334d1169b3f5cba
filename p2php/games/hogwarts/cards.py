"""The card records (data §2): deck sizes, the battle vocabulary, and one record shape per kind of card.

Effects and abilities stay the document's terms (``damage(2)``, ``after:roll(2,res-1)``), one string each:
the engine interprets them; here they are only checked to belong to the battle vocabulary (§2.2), so a
typo in the data fails at load instead of as a card that silently does nothing.  A card record is one
*distinct* card; ``copies`` says how many of it the deck holds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ActionCard", "BookCard", "DeckInfo", "EnemyCard", "EventCard", "HandCard", "QuidditchCard",
           "VocabularyTerm", "term_head"]


def _strs(raw: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in raw)


def term_head(term: str) -> str:
    """The vocabulary entry a term belongs to: ``after:roll(2,res-1)`` is ``after:roll``."""
    match = re.match(r"[a-z_]+(?::[a-z_]+)?", term)
    return match.group(0) if match else term


@dataclass(frozen=True, slots=True)
class DeckInfo:
    """One row of §2.1: a deck's size, how many distinct cards it has, and what happens to used cards."""

    deck: str
    cards: int
    distinct: int
    shuffled: bool
    shuffle_note: str
    after_use: str
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> DeckInfo:
        return cls(str(raw["deck"]), int(raw["cards"]), int(raw["distinct"]), bool(raw["shuffled"]),
                   str(raw["shuffle_note"]), str(raw["after_use"]), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class VocabularyTerm:
    """One row of §2.2: a term (``damage(N)``, ``after:roll(N)``, ``immune``) and what it means."""

    term: str
    meaning: str

    @property
    def head(self) -> str:
        return term_head(self.term)


@dataclass(frozen=True, slots=True)
class HandCard:
    """A spell (§2.3) or potion (§2.4) card: ``use`` is ``attack``, ``defence`` or ``start`` (start of turn)."""

    id: str
    deck: str  # "spell" or "potion"
    name: str
    copies: int
    use: str
    effect: tuple[str, ...]
    tags: tuple[str, ...]
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> HandCard:
        return cls(str(raw["id"]), str(raw["deck"]), str(raw["name"]), int(raw["copies"]), str(raw["use"]),
                   _strs(raw["effect"]), _strs(raw["tags"]), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class BookCard:
    """A book card (§2.5): scored for ``points`` in the classroom of its ``subject``."""

    id: str
    subject: str
    title: str
    points: int
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> BookCard:
        return cls(str(raw["id"]), str(raw["subject"]), str(raw["title"]), int(raw["points"]), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class ActionCard:
    """An action card (§2.6): drawn, applied at once (``points(±N)`` or ``flying_powder(+N)``), put under."""

    id: str
    text: str
    copies: int
    effect: tuple[str, ...]
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ActionCard:
        return cls(str(raw["id"]), str(raw["text"]), int(raw["copies"]), _strs(raw["effect"]), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class EventCard:
    """An event card (§2.7): it applies to every player; ``group_battle(EBn)`` names an event enemy."""

    id: str
    title: str
    copies: int
    effect: tuple[str, ...]
    text: str
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> EventCard:
        return cls(str(raw["id"]), str(raw["title"]), int(raw["copies"]), _strs(raw["effect"]), str(raw["text"]),
                   str(raw["src"]))


@dataclass(frozen=True, slots=True)
class EnemyCard:
    """An enemy to fight: a duel card (§2.8), a battle card (§2.9) or an event battle's enemy (§2.7).

    ``lp`` is per participant for event enemies; ``attack_dice`` is printed on duel cards only;
    ``immune`` lists the card types (``spells``, ``potions``) that may not be played against it;
    ``reward`` is printed on event enemies only.
    """

    id: str
    deck: str  # "duel", "battle" or "event_battle"
    name: str
    lp: int
    res: int
    attack_dice: int | None
    immune: tuple[str, ...]
    abilities: tuple[str, ...]
    tags: tuple[str, ...]
    reward: str | None
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> EnemyCard:
        dice, reward = raw["attack_dice"], raw["reward"]
        return cls(str(raw["id"]), str(raw["deck"]), str(raw["name"]), int(raw["lp"]), int(raw["res"]),
                   None if dice is None else int(dice), _strs(raw["immune"]), _strs(raw["abilities"]),
                   _strs(raw["tags"]), None if reward is None else str(reward), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class QuidditchCard:
    """A Quidditch card (§2.10), played in Phase 2 of a match, at most one per turn."""

    id: str
    name: str
    copies: int
    effect: tuple[str, ...]
    text: str
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> QuidditchCard:
        return cls(str(raw["id"]), str(raw["name"]), int(raw["copies"]), _strs(raw["effect"]), str(raw["text"]),
                   str(raw["src"]))
