"""Re-locking a face-down card that comes round again after a hand held it (E37).

A card dealt to a seat has every other seat's key released: that is how its holder alone opens it.  When the
holder puts it back under its deck face down (a Death Eater's unplayed cards, a defeat, Rookwood's spy, a
Quidditch card, the Return's flip), those keys stay public; were it dealt again to another seat, the old
holder would release its key too, and then *every* seat could open a card that only its new holder may see
(``benchmarks/hogwarts_loopback.py``'s knowledge check found it at 4 peers).  So before a Deal, each such
*worn* card (``HogwartsState.worn``, marked by ``under``) is locked afresh: a
:class:`~p2php.engine.contract.Reshuffle` of that one slot, a new encryption under new keys of every seat.
Nobody learns anything by it (the old holder already knew the face, as it may).  The new slot replaces the old
one where it lay; reseal slots are counted down from the top of the deck's slot span (``ids.SPAN``), the
searches' reshuffle blocks count up from its bottom (``search``); should they ever meet, the card is opened
to everyone instead, which tells nobody more than the released keys already could.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from p2php.engine.contract import Reshuffle, Reveal, Slot, Step

from .ids import SPAN, deck_first_slot, deck_of_slot, shuffle_of

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["reseal", "resealed", "reseal_room", "top_slots"]


def reseal(g: HogwartsState, slots: Sequence[Slot]) -> Reshuffle | Reveal | None:
    """The step that re-locks the first worn face-down card of ``slots`` (``None``: none is worn)."""
    for slot in slots:
        if slot in g.worn and slot not in g.pub:
            deck = deck_of_slot(slot)
            if not reseal_room(g, deck):
                return Reveal((slot,))
            return Reshuffle((slot,), next_reseal_slot(g, deck), purpose=f"{deck}_reseal")
    return None


def resealed(g: HogwartsState, step: Step) -> None:
    """After :func:`reseal`'s step: the new slot lies where the old one did (an opened card stays)."""
    if isinstance(step, Reshuffle):
        old = step.slots[0]
        deck = deck_of_slot(old)
        pile = g.deck[deck]
        pile[pile.index(old)] = step.first_slot
        g.resealed[deck] = g.resealed.get(deck, 0) + 1
    else:
        assert isinstance(step, Reveal)
        old = step.slots[0]
    del g.worn[old]


def next_reseal_slot(g: HogwartsState, deck: str) -> Slot:
    return deck_first_slot(deck) + SPAN - 1 - g.resealed.get(deck, 0)


def top_slots(g: HogwartsState, deck: str, k: int) -> Slot | None:
    """The first of ``k`` fresh slots of ``deck``'s span, right below those taken from its top so far (reseals,
    hand re-masks: ``HogwartsState.resealed`` counts them), or ``None`` if they would reach its latest search
    block (the searches count up, ``search.below_reseals``)."""
    first = deck_first_slot(deck) + SPAN - g.resealed.get(deck, 0) - k
    return first if shuffle_of(first) > g.reshuffles.get(deck, 0) else None


def reseal_room(g: HogwartsState, deck: str) -> bool:
    """Whether the next reseal slot lies above the deck's latest search block."""
    return shuffle_of(next_reseal_slot(g, deck)) > g.reshuffles.get(deck, 0)
