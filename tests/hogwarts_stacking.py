"""Stacked Hogwarts decks for the scenario tests: the named cards on top, in order, the rest as shuffled."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from p2php.engine.contract import CardId, Shuffle
from p2php.games.hogwarts.ids import instance


def tops_first(step: Shuffle, tops: Mapping[str, Sequence[str]]) -> list[CardId]:
    """``step``'s cards with the cards named in ``tops[step.purpose]`` first, in that order."""
    cards = list(step.cards)
    first = []
    for name in tops.get(step.purpose, []):
        card = next(c for c in cards if instance(c).card == name)
        cards.remove(card)
        first.append(card)
    return first + cards
