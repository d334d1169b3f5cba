"""Harry Potter TCG deck lists: a plain text format, the deck-building rules, the two Starter Set decks.

The format, one entry per line (``decks/hermione.deck`` is an example)::

    # Hermione's Deck (a comment: a line whose first non-blank character is '#')
    Character: Hermione Granger
    12 Care of Magical Creatures Lesson
    4 Curious Raven
    1 Draco Malfoy (Base 3)
    2 #80

* ``Character: <card>`` names the starting Character, once per file, anywhere in it;
* ``<count> <card>`` adds ``count`` copies (1..99; ``4x Curious Raven`` and ``4 x Curious Raven`` are
  read too).  A card named on two lines is one entry, with the counts added, at its first line;
* ``<card>`` is a name (matched as :func:`~p2php.games.tcg.cards.name_key` says: case, spaces,
  punctuation, US spellings and a "Lesson" suffix on Lessons do not matter), or a name with its set and
  number, ``Draco Malfoy (Base 3)``, or a number alone, ``#3``.  A bare name with two versions (Draco
  Malfoy, Hermione Granger) means the default, lowest-numbered one: the rulebook's own lists name them
  this way (tcg.md §14.2) and the versions play the same.  A name and a number that disagree are an error;
* blank lines and comment lines are skipped; there are no comments after an entry (``#3`` is a card).

:func:`format_deck` writes the canonical form (no comments, the Character first, then the entries in
order, two-version cards always with set and number), and ``parse_deck(format_deck(d)) == d``.

Untrusted input is bounded before it is looked at: at most 64 KiB, 1000 lines, 200 characters a line and
no control characters (tabs aside); every message is one line, and any text from the file in it is quoted
by :func:`p2php.text.quote` (escaped, cut).

The rules (:func:`validate`; rulebook "Building Your Own Deck", tcg.md §10):

* ``constructed``: exactly 60 cards plus 1 starting Character (the "also" reading, §10 note (a));
  ``starter``: exactly 40 plus 1, the size of the two official Starter decks (§14.2), which do not meet
  the 60-card rule;
* the starting Character must be a Character with the Wizard or Witch keyword (§5.5, §10);
* at most 4 copies of any card, Lessons excepted.  The two versions of Draco Malfoy (or Hermione
  Granger) are one card for this count: same name, same text;
* optionally (``house=``), a House deck: no card, the starting Character included, with another House's
  keyword.

Decisions where the rulebook is silent (tcg.md "Not specified by the source" item 7):

* the starting Character is not part of "the deck" the 4-copy limit speaks of ("Your deck must have
  exactly 60 cards.  You must *also* have 1 card that's your starting Character"), so it is not counted:
  a deck may hold 4 more copies of it.  They could never be played while it is in play (§8: Unique, one
  copy in play), which is the player's problem, not an illegal deck;
* Uniqueness (§8) limits what is in play, not what is in a deck, so it adds no deck-building rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

from p2php.errors import P2phpError
from p2php.games.tcg.cards import (
    HOUSES,
    SET_NAME,
    SET_SIZE,
    Card,
    CardType,
    card_by_number,
    cards_named,
    name_key,
    nearest_names,
)
from p2php.text import is_control, quote, safe

__all__ = [
    "COPY_LIMIT", "DECK_SIZES", "MAX_BYTES", "MAX_COUNT", "MAX_LINES", "MAX_LINE_LENGTH", "STARTER_DECKS",
    "DeckError", "DeckFormat", "DeckList", "format_deck", "parse_deck", "read_deck", "starter_deck", "validate",
]

DeckFormat = Literal["constructed", "starter"]
DECK_SIZES: dict[str, int] = {"constructed": 60, "starter": 40}
"""Cards besides the starting Character, per format (§10, §14.2)."""
COPY_LIMIT = 4
"""Copies of one card a deck may hold; Lessons are unlimited (§10)."""
MAX_BYTES = 64 * 1024
MAX_LINES = 1000
MAX_LINE_LENGTH = 200
MAX_COUNT = 99
STARTER_DECKS = ("draco", "hermione")

_CHARACTER = re.compile(r"character\s*:\s*(.*)", re.IGNORECASE)
_ENTRY = re.compile(r"([0-9]+)(?:\s*[xX])?\s+(.+)")
_NUMBER = re.compile(r"#\s*([0-9]+)")
_WITH_SET = re.compile(r"(.*?)\s*\(\s*([^()#]*?)\s*#?\s*([0-9]+)\s*\)")


class DeckError(P2phpError, ValueError):
    """A deck file that cannot be read or breaks a rule: one line, ``<file>:<line>: <what>``.

    ``kind`` says which rule (for callers and tests, never the words): ``too_large``, ``bad_text``,
    ``syntax``, ``count``, ``unknown_card``, ``unknown_set``, ``mismatch``, ``character``, ``copies``,
    ``house``, ``size``.  ``line`` is ``None`` for what concerns the whole file (its size, a missing
    Character line, the number of cards).
    """

    def __init__(self, deck: str, line: int | None, kind: str, detail: str) -> None:
        where = safe(deck, 60) + (f":{line}" if line is not None else "")
        super().__init__(f"{where}: {detail}")
        self.deck = deck
        self.line = line
        self.kind = kind


@dataclass(frozen=True, slots=True)
class DeckList:
    """A starting Character and the ordered ``(card, count)`` entries of the deck proper.

    ``name``, ``character_line`` and ``lines`` (the source lines of each entry) only serve messages and
    take no part in equality: the same deck read from two files is the same deck.
    """

    character: Card
    entries: tuple[tuple[Card, int], ...]
    name: str = field(default="deck", compare=False)
    character_line: int | None = field(default=None, compare=False)
    lines: tuple[tuple[int, ...], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        numbers = [card.number for card, _ in self.entries]
        if len(set(numbers)) != len(numbers):
            raise ValueError("a DeckList names each card once (add the counts)")
        if any(type(count) is not int or count < 1 for _, count in self.entries):
            raise ValueError("a DeckList's counts are positive ints")
        if self.lines and len(self.lines) != len(self.entries):
            raise ValueError("a DeckList has one tuple of source lines per entry, or none")

    @property
    def size(self) -> int:
        """Cards in the deck proper, the starting Character not counted."""
        return sum(count for _, count in self.entries)

    def cards(self) -> tuple[int, ...]:
        """The deck proper as card numbers, one per copy, in number order (the starting Character is apart)."""
        return tuple(sorted(card.number for card, count in self.entries for _ in range(count)))

    def copies(self, name: str) -> int:
        """Copies in the deck proper of the card called ``name``, every version counted."""
        versions = {card.number for card in cards_named(name)}
        return sum(count for card, count in self.entries if card.number in versions)


# ----------------------------------------------------------------------------- parsing

def _card_ref(text: str, deck: str, line: int) -> Card:
    """The card a line names: ``Name``, ``Name (Base 3)`` or ``#3``."""
    match = _NUMBER.fullmatch(text)
    name, set_name, digits = ("", SET_NAME, match.group(1)) if match else ("", "", "")
    if match is None:
        with_set = _WITH_SET.fullmatch(text)
        if with_set is not None:
            name, set_name, digits = with_set.group(1), with_set.group(2) or SET_NAME, with_set.group(3)
    if digits:
        if name_key(set_name) != name_key(SET_NAME):
            raise DeckError(deck, line, "unknown_set", f"unknown set {quote(set_name)} in {quote(text)}; only the "
                            f"{SET_NAME} Set is known")
        if len(digits) > 3 or not 1 <= int(digits) <= SET_SIZE:
            raise DeckError(deck, line, "unknown_card", f"no card number {quote(digits, 10)} in the {SET_NAME} Set "
                            f"(1..{SET_SIZE})")
        card = card_by_number(int(digits))
        if name and card not in cards_named(name):
            raise DeckError(deck, line, "mismatch", f"{quote(text)}: {SET_NAME} {card.number} is {card.name}")
        return card
    found = cards_named(text)
    if not found:
        near = nearest_names(text)
        hint = f" (nearest: {', '.join(near)})" if near else ""
        raise DeckError(deck, line, "unknown_card", f"unknown card {quote(text)}{hint}")
    return found[0]


def parse_deck(text: str, *, name: str = "deck") -> DeckList:
    """Read a deck list (the format in the module docstring); :class:`DeckError` says what is wrong and where.

    Only the form is checked here (and that every card exists); :func:`validate` checks the rules.
    """
    if not isinstance(text, str):
        raise TypeError("parse_deck reads text (str); decode bytes first, or use read_deck")
    if len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise DeckError(name, None, "too_large", f"more than {MAX_BYTES} bytes; a deck file is at most that")
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    if len(rows) > MAX_LINES:
        raise DeckError(name, None, "too_large", f"{len(rows)} lines; a deck file has at most {MAX_LINES}")
    character: Card | None = None
    character_line: int | None = None
    counts: dict[int, int] = {}
    cards: dict[int, Card] = {}
    lines: dict[int, list[int]] = {}
    for number, row in enumerate(rows, start=1):
        row = row.removesuffix("\r")
        if number == 1:
            row = row.removeprefix("\ufeff")
        if len(row) > MAX_LINE_LENGTH:
            raise DeckError(name, number, "bad_text", f"line of {len(row)} characters; at most {MAX_LINE_LENGTH}")
        bad = next((char for char in row if char != "\t" and is_control(char)), None)
        if bad is not None:
            raise DeckError(name, number, "bad_text", f"control character {quote(bad)} in {quote(row)}")
        line = " ".join(row.split())
        if not line or line.startswith("#"):
            continue
        is_character = _CHARACTER.fullmatch(line)
        if is_character is not None:
            if not is_character.group(1):
                raise DeckError(name, number, "syntax", "'Character:' names no card")
            if character is not None:
                raise DeckError(name, number, "character", f"a second 'Character:' line (the first is line "
                                f"{character_line})")
            character, character_line = _card_ref(is_character.group(1), name, number), number
            continue
        entry = _ENTRY.fullmatch(line)
        if entry is None:
            raise DeckError(name, number, "syntax", f"expected '<count> <card>', 'Character: <card>' or a "
                            f"'# comment', got {quote(line)}")
        digits, ref = entry.groups()
        if len(digits) > len(str(MAX_COUNT)) or not 1 <= int(digits) <= MAX_COUNT:
            raise DeckError(name, number, "count", f"count {quote(digits, 12)}; a line adds 1 to {MAX_COUNT} copies")
        card = _card_ref(ref, name, number)
        if counts.get(card.number, 0) + int(digits) > MAX_COUNT:
            raise DeckError(name, number, "count", f"more than {MAX_COUNT} copies of {card.label}")
        cards[card.number] = card
        counts[card.number] = counts.get(card.number, 0) + int(digits)
        lines.setdefault(card.number, []).append(number)
    if character is None:
        raise DeckError(name, None, "character", "no 'Character: <card>' line (the starting Character, a Wizard "
                        "or Witch)")
    order = list(counts)  # first appearance in the file: a dict keeps insertion order, and we built it in order
    return DeckList(character, tuple((cards[n], counts[n]) for n in order), name=name,
                    character_line=character_line, lines=tuple(tuple(lines[n]) for n in order))


def read_deck(path: str | Path) -> DeckList:
    """:func:`parse_deck` on a UTF-8 file, reading no more than the size limit (+1 byte to know it is over)."""
    path = Path(path)
    with path.open("rb") as handle:
        raw = handle.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise DeckError(path.name, None, "too_large", f"more than {MAX_BYTES} bytes; a deck file is at most that")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise DeckError(path.name, line, "bad_text", "not UTF-8 text") from None
    return parse_deck(text, name=path.name)


# ----------------------------------------------------------------------------- rules

def _where(deck: DeckList, index: int) -> int | None:
    return deck.lines[index][-1] if deck.lines else None


def validate(deck: DeckList, *, format: DeckFormat = "constructed", house: str | None = None) -> DeckList:
    """``deck`` if it follows the deck-building rules of ``format`` (module docstring); else :class:`DeckError`.

    Problems are reported one at a time, the starting Character first, then the entries in file order,
    then the size.  ``house``: also check the optional House deck rule for that House.
    """
    if format not in DECK_SIZES:
        raise ValueError(f"unknown deck format {quote(format)}; known: {', '.join(DECK_SIZES)}")
    if house is not None and house.capitalize() not in HOUSES:
        raise ValueError(f"unknown House {quote(house)}; known: {', '.join(HOUSES)}")
    house = None if house is None else house.capitalize()
    char = deck.character
    if not char.can_start:
        why = "not a Character" if char.type is not CardType.CHARACTER else "neither a Wizard nor a Witch"
        raise DeckError(deck.name, deck.character_line, "character",
                        f"{char.label} cannot be the starting Character: {why} (only a Wizard or Witch can)")
    if house is not None and any(h != house for h in char.houses):
        raise DeckError(deck.name, deck.character_line, "house",
                        f"{char.label} is {', '.join(char.houses)}, not in a {house} House deck")
    totals: dict[str, int] = {}
    for index, (card, count) in enumerate(deck.entries):
        if house is not None and any(h != house for h in card.houses):
            raise DeckError(deck.name, _where(deck, index), "house",
                            f"{card.label} is {', '.join(card.houses)}, not in a {house} House deck")
        if card.type is CardType.LESSON:
            continue
        totals[card.name] = totals.get(card.name, 0) + count
        if totals[card.name] > COPY_LIMIT:
            total = deck.copies(card.name)
            raise DeckError(deck.name, _where(deck, index), "copies",
                            f"{total} copies of {card.name}; at most {COPY_LIMIT} of a card (Lessons excepted)")
    want = DECK_SIZES[format]
    if deck.size != want:
        raise DeckError(deck.name, None, "size", f"{deck.size} cards besides the starting Character; a {format} "
                        f"deck has exactly {want} plus the starting Character")
    return deck


# ----------------------------------------------------------------------------- writing, starter decks

def format_deck(deck: DeckList) -> str:
    """The canonical text of ``deck``: ``Character:`` first, then one ``<count> <card>`` line per entry."""
    lines = [f"Character: {deck.character.label}"]
    lines += [f"{count} {card.label}" for card, count in deck.entries]
    return "\n".join(lines) + "\n"


@cache
def starter_deck(which: str) -> DeckList:
    """One of the two Starter Set decks (tcg.md §14.2), ``"draco"`` or ``"hermione"``, checked as ``starter``."""
    if which not in STARTER_DECKS:
        raise ValueError(f"no starter deck {quote(which)}; known: {', '.join(STARTER_DECKS)}")
    text = resources.files(__package__ or "p2php.games.tcg").joinpath("decks", f"{which}.deck").read_text("utf-8")
    return validate(parse_deck(text, name=f"{which}.deck"), format="starter")
