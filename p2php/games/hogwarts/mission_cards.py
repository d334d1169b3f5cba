"""The spell and potion cards a mission also needs under the qualified rules (rules §11, data §3.3, C-52).

A need is one exact card (``polyjuice_potion``) or any card of a deck and use ("attack spell").  The cards
must be in the hand when the battle card is taken; they are shown face up to everyone then (the protocol's
reveal, with the action that names them), count against the battle's card limit only if played, and all go
under their decks after the battle, used or not.

Matching is greedy and still exact: the exact needs take their cards first (only those cards can meet them),
then each "deck and use" need takes any card of that deck and use that is left.  Whether a player *could*
hold the cards is public (how many spell and potion cards it holds: card backs), so asking it reveals nothing.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from p2php.engine.contract import Knowledge, Seat, Slot

from .ids import deck_of_slot, instance
from .missions import CardNeed, Mission

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["assignment", "card_choices", "cards_for", "could_hold", "shown_fit"]


def _need_deck(g: HogwartsState, need: CardNeed) -> str:
    return g.data.hand_card(need.card).deck if need.card else str(need.deck)


def _meets(g: HogwartsState, need: CardNeed, card_id: str) -> bool:
    if need.card:
        return card_id == need.card
    card = g.data.hand_card(card_id)
    return card.deck == need.deck and card.use == need.use


def assignment(g: HogwartsState, mission: Mission, cards: list[tuple[Slot, str]]) -> list[Slot] | None:
    """Slots of ``cards`` (slot, card id) that meet every need of ``mission``, in need order; None if none do."""
    left = list(cards)
    chosen: dict[int, Slot] = {}
    order = sorted(range(len(mission.qualified_cards)), key=lambda i: mission.qualified_cards[i].card is None)
    for i in order:
        need = mission.qualified_cards[i]
        found = next((c for c in left if _meets(g, need, c[1])), None)
        if found is None:
            return None
        left.remove(found)
        chosen[i] = found[0]
    return [chosen[i] for i in range(len(mission.qualified_cards))]


def _known(g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[tuple[Slot, str]]:
    out: list[tuple[Slot, str]] = []
    for slot in g.hand[seat]:
        face = knowledge.face(slot)
        if face is not None and deck_of_slot(slot) in ("spell", "potion"):
            out.append((slot, instance(face).card))
    return out


def cards_for(g: HogwartsState, seat: Seat, mission: Mission, knowledge: Knowledge) -> list[Slot] | None:
    """The cards ``seat`` would show for ``mission`` (the first that fit, in hand order), or None."""
    return assignment(g, mission, _known(g, seat, knowledge))


def card_choices(g: HogwartsState, seat: Seat, mission: Mission, knowledge: Knowledge) -> list[list[Slot]]:
    """Every way ``seat`` may meet ``mission``'s card needs, one list of slots per distinct set of cards (sets in
    hand order, each in the order of the needs). The cards go back under their decks, used or not
    (rules/hogwarts.md §11), so which of them an "any spell" need takes is the player's choice; listing only the
    first set that fit took it from them."""
    known = _known(g, seat, knowledge)
    out: list[list[Slot]] = []
    seen: set[tuple[str, ...]] = set()
    for combo in combinations(known, len(mission.qualified_cards)):
        cards = tuple(sorted(card for _, card in combo))
        if cards in seen:
            continue
        assigned = assignment(g, mission, list(combo))
        if assigned is not None:
            seen.add(cards)
            out.append(assigned)  # (in the order of the needs they meet, as the first that fit was)
    return out


def could_hold(g: HogwartsState, seat: Seat, mission: Mission, members: list[Seat] | None = None) -> bool:
    """Public: ``seat`` (or its team's ``members`` together) holds at least as many spell and potion cards as
    ``mission`` needs of each."""
    decks = [deck_of_slot(s) for m in (members or [seat]) for s in g.hand[m]]
    needs = [_need_deck(g, n) for n in mission.qualified_cards]
    return all(decks.count(d) >= needs.count(d) for d in ("spell", "potion"))


def shown_fit(g: HogwartsState, seat: Seat, mission: Mission, slots: object, knowledge: Knowledge) -> bool | None:
    """Whether ``slots`` (an action's list) are distinct cards of ``seat``'s hand that meet every need (None:
    some face is unknown to ``knowledge``, so only the shown faces can tell)."""
    if not isinstance(slots, list) or len(slots) != len(mission.qualified_cards) or len(set(slots)) != len(slots):
        return False
    if not all(isinstance(s, int) and s in g.hand[seat] for s in slots):
        return False
    faces = [knowledge.face(s) for s in slots]
    if any(f is None for f in faces):
        return None
    cards = [(s, instance(f).card) for s, f in zip(slots, faces, strict=True) if f is not None]
    if any(deck_of_slot(s) not in ("spell", "potion") for s in slots):
        return False
    return assignment(g, mission, cards) is not None


def still_needed(g: HogwartsState, mission: Mission, shown: list[tuple[Slot, str]]) -> list[CardNeed]:
    """The needs of ``mission`` that the cards already ``shown`` (slot, card id) do not meet (team mode: each
    member shows its part in turn), exact needs matched first."""
    left = list(shown)
    out: list[CardNeed] = []
    for need in sorted(mission.qualified_cards, key=lambda n: n.card is None):
        found = next((c for c in left if _meets(g, need, c[1])), None)
        if found is None:
            out.append(need)
        else:
            left.remove(found)
    return out


def part_for(g: HogwartsState, needs: list[CardNeed], seat: Seat, knowledge: Knowledge) -> list[Slot]:
    """The cards of ``seat``'s hand that meet as many of ``needs`` as it can (greedy, exact needs first)."""
    left = _known(g, seat, knowledge)
    out: list[Slot] = []
    for need in sorted(needs, key=lambda n: n.card is None):
        found = next((c for c in left if _meets(g, need, c[1])), None)
        if found is not None:
            left.remove(found)
            out.append(found[0])
    return out
