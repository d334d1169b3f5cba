"""The 116 cards of the Harry Potter TCG Base Set, typed, from ``base_set.json``.

``base_set.json`` is extracted from ``shared/data/tcg/cards.json`` by ``tools/extract_tcg_base_set.py``
(that script's docstring says what was normalised); it is read once, through :mod:`importlib.resources`,
and checked against what the rules say about the set before anything uses it, so a bad regeneration fails
at import with one clear :class:`CardDataError` instead of as a wrong game later.

Identifiers follow ``shared/rules/tcg.md`` §0: six card types (§0.1), four Lesson / Power types (§0.2).
Quidditch Lessons exist in the shared data, but only in later sets (Quidditch Cup on); the Base Set and
this rulebook know four, so :class:`LessonType` has four until a later set is supported.

Names.  Each card has one number; two names have two versions (Draco Malfoy 2 and 3, Hermione Granger 9
and 10: holo-portrait premium and foil premium, with the same game text, §14.1).  :func:`cards_named`
gives every version; :func:`card_by_name` gives the lowest-numbered one, the *default version*, because
the rulebook's deck lists name these Characters without saying which version (§14.2) and the versions play
the same.  Names are matched loosely (:func:`name_key`): case, spacing, punctuation (``Mrs Norris`` /
``Mrs. Norris``, ``Wingardium Leviosa`` / ``Wingardium Leviosa!``), ``¾`` / ``3/4``, and the US spellings
the rulebook's spelling note (§14.3) says were replaced by British ones (``Epoximize`` finds
``Epoximise``).  The rulebook's card list calls 39 "Privet Drive" (card: "4 Privet Drive", §14.1 note), and
its deck lists say "Charms Lesson" for the Lesson "Charms"; both forms are accepted.

The digest (``shared/rules/tcg.md``) against the rulebook excerpt it digests (``shared/seeds/004_*.txt``,
which wins): the digest keeps every rule; the differences found are two, neither about rules:

* §14.1 says the list's row position is "not the collector number".  The excerpt numbers no rows, but
  with the card data its list is in number order: rows 1–63 are exactly numbers 1–63 (row 39, "Privet
  Drive", is 39/116 "4 Privet Drive" as the excerpt's own example card says).  This module relies on the
  data's numbers, not on row positions;
* §13 writes Surly Hound's "Flavour" text; the excerpt says "Flavor text" there (US spelling, against its
  own spelling note).  Flavour text has no game effect and is not kept.

The rulebook excerpt against the card data (the rulebook wins on rules; the data is all there is on card
texts, §"Not specified by the source" item 1):

* the excerpt's list labels Mountain Troll (28) and Mrs Norris (29) *foil premium* inside the rare block;
  the data has them *rare*, which fits their place in the list (reading (a) of the §14.1 note).  Rarity
  has no game effect; the data's word is kept;
* the excerpt's rarity key has no word for Lessons; the data gives the four Lessons the rarity
  ``lesson``, kept;
* the excerpt prints Borrowed Wand's text with a comma the data lacks ("If you play this card, and …"),
  and leaves its Power symbol unstated; the data says Charms.  The data's text is kept;
* the excerpt's lists say "Privet Drive" and "Charms Lesson"; the cards are "4 Privet Drive" and
  "Charms" (both forms are found, above).
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from p2php.errors import P2phpError
from p2php.text import quote

__all__ = [
    "BASE_SET", "HOUSES", "RULINGS", "SET_NAME", "SET_SIZE", "Card", "CardDataError", "CardType", "LessonType",
    "Rarity", "Ruling", "card_by_name", "card_by_number", "cards_named", "name_key", "nearest_names",
]

SET_NAME = "Base"
SET_SIZE = 116
"""The set's size as printed on every card ("39/116")."""
HOUSES = ("Gryffindor", "Hufflepuff", "Ravenclaw", "Slytherin")
"""The House keywords (§0.4), for the optional House deck rule (§10)."""


class CardDataError(P2phpError, ValueError):
    """``base_set.json`` disagrees with what the rules say about the Base Set (regenerate it, or fix the data)."""


class CardType(StrEnum):
    """The six card types (tcg.md §0.1)."""

    LESSON = "lesson"
    CREATURE = "creature"
    SPELL = "spell"
    ITEM = "item"
    CHARACTER = "character"
    ADVENTURE = "adventure"


class LessonType(StrEnum):
    """The four Lesson / Power types of the Base Set (tcg.md §0.2), in the rulebook's order."""

    CARE_OF_MAGICAL_CREATURES = "care_of_magical_creatures"
    CHARMS = "charms"
    POTIONS = "potions"
    TRANSFIGURATION = "transfiguration"


class Rarity(StrEnum):
    """The rarity key of §14.1, plus ``lesson`` (the data's word for the four Lessons)."""

    HOLO_PORTRAIT_PREMIUM = "holo_portrait_premium"
    FOIL_PREMIUM = "foil_premium"
    RARE = "rare"
    UNCOMMON = "uncommon"
    COMMON = "common"
    LESSON = "lesson"


@dataclass(frozen=True, slots=True)
class Ruling:
    """One published ruling (from ``shared/data/tcg/rulings.json``) about one or more Base Set cards."""

    id: str
    date: str  # YYYY-MM-DD
    source: str
    text: str
    cards: tuple[int, ...]  # Base Set numbers it concerns


@dataclass(frozen=True, slots=True)
class Card:
    """One Base Set card as the game needs it: numbers are ints, absent values ``None`` or empty."""

    number: int
    name: str
    type: CardType
    rarity: Rarity
    keywords: tuple[str, ...] = ()  # as printed after the type: "Wizard", "Gryffindor", "Unique", "Dog" …
    lesson: LessonType | None = None  # the Power symbol under Power needed; a Lesson's own type
    cost: int | None = None  # Power needed (Creatures, Spells, Items)
    provides: tuple[tuple[LessonType, int], ...] = ()  # Power provided while in play, by type
    damage: int | None = None  # a Creature's damage each turn
    health: int | None = None  # a Creature's Health
    effect: tuple[str, ...] = ()  # the text box, one entry per paragraph
    note: str | None = None  # a play condition printed apart from the effect (Unusual Pets)
    to_solve: str | None = None  # Adventures
    reward: str | None = None  # Adventures: the opponent's reward
    rulings: tuple[str, ...] = ()  # ids into RULINGS

    @property
    def unique(self) -> bool:
        """Only one copy in play at a time, both players counted (§8)."""
        return "Unique" in self.keywords

    @property
    def houses(self) -> tuple[str, ...]:
        return tuple(h for h in HOUSES if h in self.keywords)

    @property
    def can_start(self) -> bool:
        """Whether this card may be a starting Character: a Character with the Wizard or Witch keyword (§5.5)."""
        return self.type is CardType.CHARACTER and ("Wizard" in self.keywords or "Witch" in self.keywords)

    @property
    def label(self) -> str:
        """The name, with the set and number when the name has more than one version: ``Draco Malfoy (Base 3)``."""
        return f"{self.name} ({SET_NAME} {self.number})" if len(cards_named(self.name)) > 1 else self.name

    def game_text(self) -> tuple[object, ...]:
        """Everything but number and rarity: equal for two versions of one card."""
        return (self.name, self.type, self.keywords, self.lesson, self.cost, self.provides, self.damage,
                self.health, self.effect, self.note, self.to_solve, self.reward)


# ----------------------------------------------------------------------------- names

_NAME_LIMIT = 120
"""Characters of a looked-up name that are read at all: every card name is far shorter."""
_US_TO_UK = (
    (re.compile(r"iz(e|es|ed|ing|ation)\b"), r"is\1"),
    (re.compile(r"yz(e|es|ed|ing)\b"), r"ys\1"),
    (re.compile(r"\b(colo|flavo|armo|hono|humo|favo|harbo|rumo|vapo|parlo|behavio)r(s?)\b"), r"\1ur\2"),
    (re.compile(r"\bgray\b"), "grey"),
)
_ALIASES = {"Privet Drive": "4 Privet Drive"}
"""Other names the rulebook uses for a card (§14.1: the list drops the "4")."""


def name_key(text: str) -> str:
    """The form names are compared in: case, spacing, punctuation and US/British spelling folded (§14.3)."""
    key = re.sub(r"[\u00bc-\u00be\u2150-\u215e]", lambda m: " " + m.group(), text[:_NAME_LIMIT])  # 9¾: 9 3/4
    key = unicodedata.normalize("NFKC", key).replace("\u2044", "/").casefold()
    key = re.sub(r"[\u2018\u2019'`.!?,:;\"]", "", key)
    key = re.sub(r"[-\u2010-\u2015_]", " ", key)
    key = " ".join(key.split())
    for pattern, replacement in _US_TO_UK:
        key = pattern.sub(replacement, key)
    return key


# ----------------------------------------------------------------------------- loading and checks

@dataclass(frozen=True, slots=True)
class _Data:
    cards: tuple[Card, ...]
    rulings: Mapping[str, Ruling]
    by_key: Mapping[str, tuple[Card, ...]]  # name_key -> every version, by number
    names: tuple[str, ...]  # distinct names, sorted


def _opt_int(raw: dict[str, Any], key: str) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CardDataError(f"base_set.json: card {raw.get('number')!r}: {key} {value!r} is not a whole number")
    return value


def _opt_text(raw: dict[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise CardDataError(f"base_set.json: card {raw.get('number')!r}: {key} is not text")
    return value


def _card(raw: dict[str, Any]) -> Card:
    try:
        lesson = raw.get("lesson")
        provides = raw.get("provides") or {}
        return Card(
            number=int(raw["number"]),
            name=str(raw["name"]),
            type=CardType(raw["type"]),
            rarity=Rarity(raw["rarity"]),
            keywords=tuple(str(k) for k in raw.get("keywords") or ()),
            lesson=None if lesson is None else LessonType(lesson),
            cost=_opt_int(raw, "cost"),
            provides=tuple((t, int(provides[t.value])) for t in LessonType if t.value in provides),
            damage=_opt_int(raw, "damage"),
            health=_opt_int(raw, "health"),
            effect=tuple(str(line) for line in raw.get("effect") or ()),
            note=_opt_text(raw, "note"),
            to_solve=_opt_text(raw, "to_solve"),
            reward=_opt_text(raw, "reward"),
            rulings=tuple(str(r) for r in raw.get("rulings") or ()),
        )
    except (KeyError, TypeError, ValueError) as err:
        if isinstance(err, CardDataError):
            raise
        raise CardDataError(f"base_set.json: card {raw.get('number')!r} is malformed: {err}") from None


def _fail(message: str) -> CardDataError:
    return CardDataError(f"base_set.json disagrees with the rules: {message}")


def _check(cards: tuple[Card, ...], rulings: Mapping[str, Ruling], by_key: Mapping[str, tuple[Card, ...]]) -> None:
    """What the rulebook states about the set, checked against the file (tcg.md §0, §13, §14.1)."""
    numbers = [c.number for c in cards]
    if numbers != list(range(1, SET_SIZE + 1)):
        raise _fail(f"expected the numbers 1..{SET_SIZE} once each in order, got {len(numbers)} cards")
    versions = {k: tuple(c.number for c in v) for k, v in sorted(by_key.items()) if len(v) > 1}
    if versions != {"draco malfoy": (2, 3), "hermione granger": (9, 10)}:
        raise _fail(f"the names with two versions should be Draco Malfoy (2, 3) and Hermione Granger (9, 10), got "
                    f"{versions}")
    for key in versions:
        holo, foil = by_key[key]
        if (holo.rarity, foil.rarity) != (Rarity.HOLO_PORTRAIT_PREMIUM, Rarity.FOIL_PREMIUM):
            raise _fail(f"{holo.name}: expected a holo-portrait premium and a foil premium version")
        if holo.game_text() != foil.game_text():
            raise _fail(f"{holo.name}: the two versions should have the same game text")
    # §14.1 lists numbers 1..63: 10 holo-portrait premium, 12 foil premium (two of them, 28 and 29, are rare in
    # the data: see the module docstring), 16 rare, 25 uncommon.  Commons come after the list.
    listed = [c.rarity for c in cards[:63]]
    expected = {Rarity.HOLO_PORTRAIT_PREMIUM: 10, Rarity.FOIL_PREMIUM: 10, Rarity.RARE: 18, Rarity.UNCOMMON: 25}
    got = {r: listed.count(r) for r in expected}
    if got != expected or any(c.rarity is Rarity.COMMON for c in cards[:63]):
        raise _fail(f"rarities of numbers 1-63 should be {expected} as in §14.1, got {got}")
    lessons = tuple(c for c in cards if c.type is CardType.LESSON)
    if [(c.number, c.lesson, c.provides) for c in lessons] != [(113 + i, t, ((t, 1),)) for i, t in
                                                                enumerate(LessonType)]:
        raise _fail("numbers 113-116 should be the four Lessons, one per type, each providing 1 Power of it")
    examples = (  # §13: the cards the excerpt prints in full
        (39, "4 Privet Drive", CardType.ADVENTURE, None, None, None, None, ()),
        (78, "Borrowed Wand", CardType.ITEM, 3, None, None, LessonType.CHARMS, ((LessonType.CHARMS, 2),)),
        (92, "Illegibilus", CardType.SPELL, 5, None, None, LessonType.CHARMS, ()),
        (107, "Surly Hound", CardType.CREATURE, 3, 1, 3, LessonType.CARE_OF_MAGICAL_CREATURES, ()),
        (113, "Care of Magical Creatures", CardType.LESSON, None, None, None, LessonType.CARE_OF_MAGICAL_CREATURES,
         ((LessonType.CARE_OF_MAGICAL_CREATURES, 1),)),
    )
    for number, name, kind, cost, damage, health, lesson, provides in examples:
        c = cards[number - 1]
        if (c.name, c.type, c.cost, c.damage, c.health, c.lesson, c.provides) != (
                name, kind, cost, damage, health, lesson, provides):
            raise _fail(f"{number} should be {name} as the rulebook prints it (§13), got {c}")
    for number, keyword in ((77, "Healing"), (78, "Wand"), (107, "Dog")):  # §0.4
        if keyword not in cards[number - 1].keywords:
            raise _fail(f"{cards[number - 1].name} should have the keyword {keyword} (§0.4)")
    for c in cards:
        needs_power = c.type in (CardType.CREATURE, CardType.SPELL, CardType.ITEM)
        if needs_power != (c.cost is not None and c.lesson is not None):
            raise _fail(f"{c.number} {c.name}: a {c.type} {'needs' if needs_power else 'has no'} Power needed (§0.1)")
        if (c.type is CardType.CREATURE) != (c.health is not None) or (
                c.damage is not None and c.type is not CardType.CREATURE):
            raise _fail(f"{c.number} {c.name}: only Creatures have Health and damage each turn (§5.2)")
        if (c.type is CardType.ADVENTURE) != (c.to_solve is not None and c.reward is not None):
            raise _fail(f"{c.number} {c.name}: only Adventures have To Solve and a Reward (§5.6)")
        if c.type is CardType.CHARACTER and not c.unique:
            raise _fail(f"{c.number} {c.name}: all Character cards are Unique (§8)")
        unknown = [r for r in c.rulings if r not in rulings]
        if unknown:
            raise _fail(f"{c.number} {c.name}: unknown ruling ids {unknown}")
    if not any(c.can_start for c in cards):
        raise _fail("no Wizard or Witch Character to start with")


@cache
def _data() -> _Data:
    try:
        raw = json.loads(resources.files(__package__ or "p2php.games.tcg").joinpath("base_set.json").read_bytes())
    except (OSError, ValueError) as err:
        raise CardDataError(f"cannot read p2php/games/tcg/base_set.json: {err}") from None
    if not isinstance(raw, dict) or raw.get("set") != SET_NAME or raw.get("size") != SET_SIZE:
        raise _fail(f"expected the {SET_NAME} set of {SET_SIZE} cards")
    cards = tuple(sorted((_card(c) for c in raw.get("cards") or ()), key=lambda c: c.number))
    rulings = MappingProxyType({
        rid: Ruling(rid, str(r["date"]), str(r["source"]), str(r["text"]), tuple(int(n) for n in r["cards"]))
        for rid, r in sorted((raw.get("rulings") or {}).items())
    })
    grouped: dict[str, list[Card]] = {}
    for card in cards:
        grouped.setdefault(name_key(card.name), []).append(card)
    by_key = {key: tuple(group) for key, group in sorted(grouped.items())}
    for _key, group in sorted(grouped.items()):
        if len({c.name for c in group}) > 1:
            raise _fail(f"the names {sorted({c.name for c in group})} cannot be told apart")
    for alias, name in sorted(_ALIASES.items()):
        by_key.setdefault(name_key(alias), by_key[name_key(name)])
    _check(cards, rulings, by_key)
    return _Data(cards, rulings, MappingProxyType(by_key), tuple(sorted({c.name for c in cards})))


# ----------------------------------------------------------------------------- lookups

def _resolve(name: str) -> tuple[Card, ...]:
    data = _data()
    key = name_key(name)
    found = data.by_key.get(key)
    if found is None:
        for suffix in (" lessons", " lesson"):  # "Charms Lesson" in the rulebook's deck lists (§14.2)
            if key.endswith(suffix):
                lesson = data.by_key.get(key[: -len(suffix)])
                if lesson and lesson[0].type is CardType.LESSON:
                    found = lesson
                break
    return found or ()


def cards_named(name: str) -> tuple[Card, ...]:
    """Every version of the card called ``name`` (matched as :func:`name_key` says), by number; ``()`` if none."""
    return _resolve(name)


def card_by_name(name: str) -> Card:
    """The card called ``name``; for a name with two versions, the default (lowest-numbered) one.

    Raises :class:`KeyError` naming the nearest card names when there is no such card.
    """
    found = _resolve(name)
    if not found:
        near = nearest_names(name)
        raise KeyError(f"no {SET_NAME} Set card is called {quote(name)}"
                       + (f" (nearest: {', '.join(near)})" if near else ""))
    return found[0]


def card_by_number(number: int) -> Card:
    """The card with this Base Set number (1..116); :class:`KeyError` otherwise."""
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= SET_SIZE:
        raise KeyError(f"no {SET_NAME} Set card has the number {quote(number)} (1..{SET_SIZE})")
    return _data().cards[number - 1]


def _likeness(query: str, key: str) -> float:
    """How alike a looked-up name and a card's name key are: the best of whole name, same-length prefix, one word.

    A whole-name ratio alone misses first names ("Hermoine" is far from "hermione granger"), so a prefix of
    the key as long as the query, and each word of the key, count too, a little less than a whole match.
    """
    best = difflib.SequenceMatcher(None, query, key).ratio()
    if len(query) < len(key):
        best = max(best, 0.9 * difflib.SequenceMatcher(None, query, key[: len(query)]).ratio())
    for word in key.split():
        if len(word) >= 3:
            best = max(best, 0.85 * difflib.SequenceMatcher(None, query, word).ratio())
    return best


def nearest_names(text: str, n: int = 3) -> tuple[str, ...]:
    """Up to ``n`` card names closest to ``text``, best first (:mod:`difflib` ratios on :func:`name_key` forms).

    Only names at least 60% alike are offered; ties go in name order, so the answer is deterministic.
    """
    data = _data()
    query = name_key(text)
    if not query or n <= 0:
        return ()
    keys = {name_key(name): name for name in data.names}
    for alias, name in sorted(_ALIASES.items()):
        keys.setdefault(name_key(alias), name)
    scored: dict[str, float] = {}
    for key, name in sorted(keys.items()):
        score = _likeness(query, key)
        if score >= 0.6 and score > scored.get(name, 0.0):
            scored[name] = score
    return tuple(sorted(scored, key=lambda name: (-scored[name], name))[:n])


BASE_SET: tuple[Card, ...] = _data().cards
"""All 116 cards, ordered by number (``BASE_SET[n - 1].number == n``)."""
RULINGS: Mapping[str, Ruling] = _data().rulings
"""The rulings about Base Set cards, by id (``Card.rulings`` holds ids)."""
