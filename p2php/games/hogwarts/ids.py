"""Card instances and slots: which card id is which printed card, and which deck a slot belongs to.

Every shuffled card is one *instance* (a deck holds ``copies`` instances of a distinct card); card ids are
``0 .. universe_size - 1`` in the data's deck order (spell, potion, book, action, event, duel, quidditch,
then the 30 missions).  The battle cards are not instances: they are never shuffled (rules §5) and are
public, so the state names them by id (``BA06``).

Each deck gets its own span of slots (deck ``k``'s slots start at ``k * SPAN``; its ``r``-th reshuffle, after
a start-of-turn card searched it, at ``k * SPAN + r * BLOCK``) and a used card goes *under its own deck*
(rules §10.1), never into another one, so whose deck a slot is stays arithmetic: a player's hand is a list
of slots whose decks everyone knows, only the faces are secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .data import load

__all__ = ["BLOCK", "DECKS", "HAND_DECKS", "MAX_RESHUFFLES", "MISSIONS", "SPAN", "Instance", "deck_cards",
           "deck_first_slot", "deck_of_slot", "instance", "mission_card", "shuffle_of", "universe"]

DECKS = ("spell", "potion", "book", "action", "event", "duel", "quidditch")
"""The shuffled decks of rules §5, in slot-block order."""
MISSIONS = "mission"
"""The mission deck: shuffled and dealt face down, one block after the others."""
HAND_DECKS = ("spell", "potion", "book", "quidditch")
"""Decks whose cards are taken into the hand (the others are drawn face up and applied)."""
BLOCK = 100
"""Slots per shuffle of a deck (the largest deck holds 40 cards)."""
SPAN = 10_000
"""Slots per deck: its first shuffle and up to 99 reshuffles."""
MAX_RESHUFFLES = SPAN // BLOCK - 1


@dataclass(frozen=True, slots=True)
class Instance:
    """One card instance: its deck and its distinct card's id (``stupefy``, ``BK18``, ``EV14``, ``M06``)."""

    deck: str
    card: str


@cache
def universe() -> tuple[Instance, ...]:
    """Every card instance, in card-id order."""
    data = load()
    out: list[Instance] = []
    for deck in DECKS:
        for card_id, card in data.deck(deck).items():
            out.extend(Instance(deck, card_id) for _ in range(getattr(card, "copies", 1)))
    out.extend(Instance(MISSIONS, f"M{m.number:02d}") for m in data.missions)
    return tuple(out)


def instance(card: int) -> Instance:
    return universe()[card]


@cache
def deck_cards(deck: str) -> tuple[int, ...]:
    """The card ids of one deck (its Shuffle's public composition)."""
    return tuple(i for i, inst in enumerate(universe()) if inst.deck == deck)


def deck_first_slot(deck: str, reshuffles: int = 0) -> int:
    """The first slot of ``deck``'s shuffle (or of its ``reshuffles``-th reshuffle)."""
    return (len(DECKS) if deck == MISSIONS else DECKS.index(deck)) * SPAN + reshuffles * BLOCK


def shuffle_of(slot: int) -> int:
    """Which shuffle of its deck a slot comes from: 0 for the set-up's, ``r`` for the ``r``-th reshuffle."""
    return (slot % SPAN) // BLOCK


def deck_of_slot(slot: int) -> str:
    """The deck a slot belongs to (public: the slot spans are fixed)."""
    k = slot // SPAN
    return MISSIONS if k == len(DECKS) else DECKS[k]


def mission_card(card: int) -> int:
    """The mission number of a mission card id (``ValueError`` for any other card)."""
    inst = instance(card)
    if inst.deck != MISSIONS:
        raise ValueError(f"card {card} is not a mission")
    return int(inst.card[1:])
