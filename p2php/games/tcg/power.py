"""Power (§4): what a seat has in play, and whether it is enough for a card.

Power is not used up (§4, FAQ 3): a check only counts.  Each Lesson gives 1 Power of its type; the
rule for the type is that "only one Power has to match the symbol" under the Power needed.  Items
and Characters that provide Power (Wands, Cauldrons, Professor Flitwick) count through
:attr:`Card.provides` while in play, like Lessons.  Additional costs ("To play this card, discard ...") are checked
after Power (FAQ 4) by :mod:`p2php.games.tcg.effects`.
"""

from __future__ import annotations

from p2php.games.tcg.cards import Card, LessonType
from p2php.games.tcg.state import TcgState

__all__ = ["enough_power", "power"]


def power(g: TcgState, seat: int) -> dict[LessonType, int]:
    """Power in play by type (every type present, zero when none)."""
    out = {kind: 0 for kind in LessonType}
    cards = [*(g.card(s) for s in (*g.lessons[seat], *g.items[seat])), *g.characters_of(seat)]
    for card in cards:
        for kind, amount in card.provides:
            out[kind] += amount
    return out


def enough_power(g: TcgState, seat: int, card: Card, extra: int = 0) -> bool:
    """At least ``card.cost`` (+ ``extra``: Harry Hunting) Power in play, at least one of it of the card's type (§4)."""
    cost = (card.cost or 0) + extra
    if cost == 0:
        return True
    have = power(g, seat)
    matching = have[card.lesson] if card.lesson is not None else 1
    return sum(have.values()) >= cost and matching >= 1
