"""Re-masking a hand before a random pick from it (E38; protocol.md §10.4, "A card taken from a hand ...").

A hand card keeps its slot while it stays in the hand, so a card whose face a seat other than its holder knows is
recognised by its slot when a joint Randomness picks it "at random": every seat, and a spectator, learns which
card went, where a physical table hides it.  Such faces: a card that came round face up (E3: an opened card goes
under its deck face up and is drawn again), a team member's mission cards shown and kept (E33), a card taken from
another hand (its old holder knows it), a hand shown to a Death Eater's player (Rookwood's ``spy``), a worn card
dealt again (its old holder knows it; E37 re-locks its key, not its face).  ``HogwartsState.seen`` keeps, per
hand-deck slot, the seats it was dealt or shown to; ``pub`` the opened faces.

So before each random pick from a hand -- the underage duel's prize card (``pvp``), the qualified battle's two
(``pvp_qualified``), an enemy's ``reveal:discard`` (``battle``), Rookwood's ``spy`` in the Return
(``voldemort_battle``) -- and before a choice that names a hand slot for the others to see -- a card put back
face down (``cards_flow.ReturnCards``), the card Rookwood's player puts under after his look (``versus``) -- a
hand holding such a card among those the pick may take is mixed with the engine's steps (:class:`RemaskHand`):

* a :class:`~p2php.engine.contract.Reshuffle` per group into fresh slots of the deck's span, taken from its top
  below the reseals' (``reseal.top_slots``: the searches' blocks count up from the bottom, so nothing collides),
  then
* one :class:`~p2php.engine.contract.Deal` of all the new slots to the holder.

A group is one deck's face-down cards under one joint key (a *family*, ``HogwartsState.family``: a Reshuffle takes
face-down cards of one key only), with the deck's opened cards joining its largest group that is mixed anyway
(else its largest); which deck a hand card is from stays public (card backs, E3).  A group is mixed only when it
holds two or more cards and one whose face another seat may know.  A mission's cards on show (E30, E33) keep their
slots while the mission is being attempted: they go under after its battle by their slots.  With no room left in
the deck's span (never in practice: 9 900 slots between the searches and the top) a group is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from p2php.engine.contract import Reshuffle, Slot
from p2php.engine.remask import HandRemask, mixing_groups
from p2php.engine.tasks import Outcome, Push, Task

from .ids import HAND_DECKS, deck_of_slot
from .reseal import top_slots

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["RemaskHand", "keeps_cards_on_show", "mix_first", "remask_groups"]

T = TypeVar("T")


_SHOWING: list[type] = []
"""Task classes that hold cards on show by their slots (``shown``): a mission being attempted (mission_flow.py
registers it with :func:`keeps_cards_on_show`; imported here, it would close an import cycle through battle.py)."""


def keeps_cards_on_show(cls: type[T]) -> type[T]:
    """Class decorator: ``cls``'s tasks hold cards on show in ``shown``, which keep their slots while it runs."""
    _SHOWING.append(cls)
    return cls


def _on_show(g: HogwartsState) -> set[Slot]:
    """The mission cards shown for a mission being attempted (their slots are its record of them)."""
    showing = tuple(_SHOWING)
    return {s for task in g.stack if isinstance(task, showing) for s in task.shown}  # type: ignore[attr-defined]


def remask_groups(g: HogwartsState, seat: int, decks: Sequence[str] = HAND_DECKS) -> list[list[Slot]]:
    """The groups of ``seat``'s hand slots of ``decks`` to mix (one Reshuffle each), in a fixed order; ``[]``:
    nothing to do."""
    hand = [s for s in g.hand[seat] if deck_of_slot(s) in decks]
    if len(hand) < 2:
        return []
    shown = _on_show(g)
    pub, seen = g.pub, g.seen
    hidden: dict[tuple[str, int], list[Slot]] = {}
    opened: dict[str, list[Slot]] = {}
    exposed: set[tuple[str, int]] = set()
    for s in hand:
        if s in shown:
            continue
        deck = deck_of_slot(s)
        if s in pub:
            opened.setdefault(deck, []).append(s)
            continue
        key = (deck, g.family(s))
        hidden.setdefault(key, []).append(s)
        if any(x != seat for x in seen.get(s, ())):
            exposed.add(key)
    return mixing_groups(hidden, opened, exposed)


def mix_first(g: HogwartsState, seats: Sequence[int], decks: Sequence[str] = HAND_DECKS) -> Outcome | None:
    """Before a random pick from the hands of ``seats`` (among their cards of ``decks``): the re-masks it needs
    (``None``: none)."""
    tasks: list[Task[HogwartsState]] = [RemaskHand(s, decks=list(decks)) for s in seats if remask_groups(g, s, decks)]
    return Push(*tasks) if tasks else None


@dataclass
class RemaskHand(HandRemask["HogwartsState"]):
    """Mix ``seat``'s hand cards of ``decks`` into fresh slots (one Reshuffle per group of :func:`remask_groups`),
    then deal the new slots to ``seat`` (one Deal): the kit's :class:`~p2php.engine.remask.HandRemask`, the fresh
    slots from the top of the deck's span (none left: the group stays as it is)."""

    decks: list[str] = field(default_factory=lambda: list(HAND_DECKS))

    def plan(self, g: HogwartsState) -> list[list[Slot]]:
        return remask_groups(g, self.seat, self.decks)

    def fresh_slots(self, g: HogwartsState, group: list[Slot]) -> tuple[Slot, str] | None:
        deck = deck_of_slot(group[0])
        first = top_slots(g, deck, len(group))
        return None if first is None else (first, f"{deck}_hand")

    def mixed(self, g: HogwartsState, step: Reshuffle) -> None:
        g.remasked(self.seat, step)
