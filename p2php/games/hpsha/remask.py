"""Re-masking a hand before a random pick from it (protocol.md §10.4, "A card taken from a hand ...").

A hand card keeps its slot while it stays in the hand, so a card whose face someone other than its holder
knows -- opened in the hand (勇气's two 拼点 cards, 预言, 亲和, a card obtained from an equipment area), given or
taken earlier (its former holder knows it), seen in a 禁闭 look or a deck peek (贪吃, the Centaur) -- is
recognised by its slot when a joint Randomness picks it "at random, face down": every seat, and a spectator,
would learn which card went, where a physical table hides it.  So before such a pick
(:class:`~p2php.games.hpsha.moves.RandomHandCardTask`: 除你武器, 摄神取念, 灵魂出窍, 仁爱, 诘难, the creatures' ♣),
when the hand holds such a card, the hand is mixed again with the engine's steps:

* a :class:`~p2php.engine.contract.Reshuffle` of the hand's cards into fresh slots (``HpshaState.alloc``, so
  no other block collides) -- a new encryption under new keys of every seat, so an old slot's face says
  nothing of where its card went (§7.6), then
* one :class:`~p2php.engine.contract.Deal` of all the new slots to the holder, who sees its hand again (every
  other seat's key for them is released, as for a card drawn).

A Reshuffle's face-down inputs must come from one deck and its reshuffles (one joint key in a verified deck;
a fast table refuses the same).  A hand may hold cards of several such *families*: the first deck and every
deck the discard pile was shuffled into (``ReshuffleTask``), each under its own key.  So the hand is mixed per
family (``HpshaState.blocks`` says which deck each slot is of); the opened cards (face up, public) may join
any family's group and join one that needs mixing.  A family group of one card is left as it is (a one-slot
Reshuffle would hide nothing), and a group in which nobody but the holder knows a face is left as it is too.
Cards 禁闭 set face down this turn (``sealed:<slot>``, a public set) are mixed only among themselves and stay
sealed; a card 解危 set aside or 预言's revealed card (``prophecy``) keeps its slot.

The cost is paid only when somebody other than the holder may know a face in that hand: ``HpshaState.seen``
(the seats that saw a hidden slot's face: a Show's viewer, a hand the card left) and ``pub`` (opened faces).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2php.engine.contract import Reshuffle, Slot
from p2php.engine.remask import HandRemask, mixing_groups

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

__all__ = ["RemaskHandTask", "remask_groups"]


def _pinned(st: HpshaState, seat: int) -> set[int]:
    """Hand slots that keep their slot: 解危's card (set aside) and 预言's revealed card."""
    out = {s for s in st.hands[seat] if s in st.set_aside}
    prophecy = st.flags[seat].get("prophecy")
    if prophecy is not None:
        out.add(int(prophecy))
    return out


def remask_groups(st: HpshaState, seat: int) -> list[list[int]]:
    """The groups of ``seat``'s hand slots to mix (each one Reshuffle), in a fixed order; ``[]``: nothing to do.

    A group is one family's face-down cards (and, for one group per 禁闭 class, the opened cards); it is mixed
    when it holds at least two cards and one whose face a seat other than ``seat`` may know."""
    hand = st.hands[seat]
    if len(hand) < 2:
        return []
    pinned = _pinned(st, seat) if st.set_aside or "prophecy" in st.flags[seat] else set()
    pub, seen, flags, turn = st.pub, st.seen, st.flags[seat], st.turn_no
    hidden: dict[tuple[bool, int], list[int]] = {}
    opened: dict[bool, list[int]] = {}
    exposed: set[tuple[bool, int]] = set()
    for s in hand:
        if s in pinned:
            continue
        sealed = flags.get(f"sealed:{s}") == turn
        if s in pub:
            opened.setdefault(sealed, []).append(s)
            continue
        key = (sealed, st.family(s))
        hidden.setdefault(key, []).append(s)
        if any(x != seat for x in seen.get(s, ())):
            exposed.add(key)
    return mixing_groups(hidden, opened, exposed)


@dataclass
class RemaskHandTask(HandRemask["HpshaState"]):
    """Mix ``seat``'s hand into fresh slots (one Reshuffle per group of :func:`remask_groups`), then deal the
    new slots to ``seat`` (one Deal): the kit's :class:`~p2php.engine.remask.HandRemask`."""

    def plan(self, st: HpshaState) -> list[list[Slot]]:
        return remask_groups(st, self.seat)

    def fresh_slots(self, st: HpshaState, group: list[Slot]) -> tuple[Slot, str]:
        return st.alloc(len(group)), f"hand{self.seat}"

    def mixed(self, st: HpshaState, step: Reshuffle) -> None:
        st.remasked(self.seat, step)
