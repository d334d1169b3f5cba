"""Card instance ids: a fixed per-seat block layout, so anyone computes a card's number from its id.

A seat's deck is a secret-composition deck (``Shuffle(owner=seat, size=n)``): only its owner lists
the instance ids, and the audit checks the list.  For that check, and for naming an opened card,
the id alone must say which card it is and whose block it comes from.  Each seat owns one block of
:data:`BLOCK` ids; inside it every non-Lesson card number of the Base Set has :data:`COPIES` ids
(the deck-building limit, tcg.md §10) and each of the four Lessons has :data:`LESSON_COPIES`
(Lessons are unlimited, §10: 60 covers a 60-card deck of one Lesson).  Blocks are laid out in card
number order, so the layout never depends on dict or set order.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import cache

from p2php.games.tcg.cards import BASE_SET, Card, CardType, card_by_number
from p2php.games.tcg.decklist import DeckList

__all__ = ["BLOCK", "COPIES", "LESSON_COPIES", "PLAYERS", "card_of", "counts_of", "first_version", "instance_ids",
           "own_deck_ids", "redrawn_copies", "seat_of"]

COPIES = 4
LESSON_COPIES = 60
PLAYERS = 2


@cache
def _layout() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(first offset of each card number, by number; the card number of each offset in a block)."""
    first: list[int] = [0] * (len(BASE_SET) + 1)
    numbers: list[int] = []
    for card in sorted(BASE_SET, key=lambda c: c.number):
        first[card.number] = len(numbers)
        numbers.extend([card.number] * (LESSON_COPIES if card.type is CardType.LESSON else COPIES))
    return tuple(first), tuple(numbers)


BLOCK = len(_layout()[1])
"""Instance ids per seat (112 non-Lesson numbers x 4 + 4 Lessons x 60 = 688)."""


def seat_of(card_id: int) -> int:
    """The seat whose block ``card_id`` lies in."""
    return card_id // BLOCK


def card_of(card_id: int) -> Card:
    """The Base Set card that instance ``card_id`` is (any seat's block)."""
    if not 0 <= card_id < PLAYERS * BLOCK:
        raise ValueError(f"no card instance {card_id} (ids are 0..{PLAYERS * BLOCK - 1})")
    return card_by_number(_layout()[1][card_id % BLOCK])


@cache
def first_version(number: int) -> int:
    """The lowest card number with the same name as card ``number`` (the two versions of Draco Malfoy, or of
    Hermione Granger, have one name and one text; every other card is its own first version).

    A seat's own deck lists every card by its first version (:func:`own_deck_ids`), so that a verified table's
    pool (:meth:`~p2php.games.tcg.game.TcgGame.private_pool`) can hold four ids of a name, not four of each
    version: the copy limit counts names (tcg.md §10), and any deck drawn from the pool must keep it.
    """
    name = card_by_number(number).name
    return min(c.number for c in BASE_SET if c.name == name)


def own_deck_ids(seat: int, deck: DeckList, rng: random.Random | None = None) -> list[int]:
    """The instance ids of a seat's own deck, every card as its :func:`first_version`, ascending.

    The copy numbers are drawn at random (``rng``; by default the system's secret randomness) among the card's
    :data:`COPIES` (or :data:`LESSON_COPIES`) ids, as protocol.md §7.8 asks of a secret deck: an opponent who sees
    "copy 3 of X" opened must not learn that the secret list holds at least four X, which copies ``0 .. count-1``
    told it (one Lesson opened as copy 11 proved twelve of them).
    """
    counts: Counter[int] = Counter()
    for card, count in deck.entries:
        counts[first_version(card.number)] += count
    return _drawn_copies(seat, counts, rng)


def redrawn_copies(seat: int, cards: Sequence[int], rng: random.Random | None = None) -> list[int]:
    """The same cards as the instance ids ``cards`` of ``seat``'s own deck, with their copy numbers drawn afresh
    (a rematch: the ended game opened some, and the same numbers again would add to what they told)."""
    return _drawn_copies(seat, Counter(card_of(c).number for c in cards), rng)


def _drawn_copies(seat: int, counts: Counter[int], rng: random.Random | None) -> list[int]:
    draw = rng if rng is not None else random.SystemRandom()
    first = _layout()[0]
    out: list[int] = []
    for number in sorted(counts):
        card = card_by_number(number)
        limit = LESSON_COPIES if card.type is CardType.LESSON else COPIES
        if counts[number] > limit:
            raise ValueError(f"{counts[number]} copies of {card.name}: the id layout has {limit}")
        out.extend(seat * BLOCK + first[number] + i for i in sorted(draw.sample(range(limit), counts[number])))
    return out


def instance_ids(seat: int, deck: DeckList) -> list[int]:
    """The instance ids of ``deck``'s cards (the starting Character apart) in ``seat``'s block, ascending."""
    first = _layout()[0]
    out: list[int] = []
    for card, count in sorted(deck.entries, key=lambda e: e[0].number):
        limit = LESSON_COPIES if card.type is CardType.LESSON else COPIES
        if count > limit:
            raise ValueError(f"{count} copies of {card.name}: the id layout has {limit}")
        out.extend(seat * BLOCK + first[card.number] + i for i in range(count))
    return out


def counts_of(cards: Sequence[int]) -> list[tuple[Card, int]]:
    """``(card, copies)`` of a list of instance ids, in card number order."""
    counts = Counter(card_of(c).number for c in cards)
    return [(card_by_number(n), counts[n]) for n in sorted(counts)]
