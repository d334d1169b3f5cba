"""Stacked decks: a chosen deck order, on a trusted dealer or through the real crypto.

Rule tests need a known deck order.  An *arrangement* (:data:`Arrange`) says, for
each shuffle, which face goes to which slot.  :class:`StackedChance` gives it to a
:class:`~p2php.engine.local.LocalTable`; :class:`StackedSecrets` gives it to real
peers as their deck secrets source: every seat derives its real secrets, then the
first shuffler's permutation is replaced by the one that realises the order and
the others shuffle nothing (in a verified deck: the first passer's proven pass applies
that permutation, the others' the identity; the proofs hold as for any permutation).
All peers and their audits use the same source, so a stacked protocol run is
complete and audited — with a deck everyone chose in advance, which a real game
must never have.  Only tests and scenario demos use this.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence

from p2php.crypto import deck
from p2php.engine.contract import CardId, Randomness, Seat, Shuffle
from p2php.errors import P2phpError
from p2php.rng import DetRng
from p2php.session.decks import DERIVED
from p2php.session.records import DeckRecord, DeckSecretsSource

Arrange = Callable[[Shuffle], Sequence[CardId]]
"""An arrangement: given a Shuffle step, the faces of its slots in slot order.

A :class:`~p2php.engine.contract.Reshuffle` is asked as ``Shuffle(faces, first_slot, purpose)``: the faces now in
its slots, in the step's order (engine mode and protocol mode alike)."""


class StackingError(P2phpError, ValueError):
    """A stacking request that cannot be satisfied (the message says which deck and which cards)."""


def checked_order(step: Shuffle, cards: Sequence[CardId], wanted: Sequence[CardId]) -> list[CardId]:
    """``wanted`` if it is a permutation of ``cards``, else a :class:`StackingError` saying what differs."""
    order = list(wanted)
    have, want = Counter(cards), Counter(order)
    if have != want:
        missing = sorted((have - want).elements())
        extra = sorted((want - have).elements())
        raise StackingError(
            f"the {step.purpose or 'unnamed'} deck at slot {step.first_slot} ({len(cards)} cards) cannot be "
            f"stacked as asked ({len(order)} cards): not placed {missing[:12]}, not in this deck or "
            f"placed twice {extra[:12]}"
        )
    return order


class StackedChance:
    """A :class:`~p2php.engine.local.Chance` for a LocalTable: stacked shuffles, optional fixed dice.

    ``random`` values are used in order for the game's Randomness steps; when they
    run out (or none were given) the table's seeded generator takes over.
    """

    def __init__(self, arrange: Arrange, random: Sequence[bytes] = ()) -> None:
        self.arrange = arrange
        self.fixed = list(random)

    def order(self, step: Shuffle, cards: list[CardId], rng: DetRng) -> list[CardId]:
        return checked_order(step, cards, self.arrange(step))

    def random(self, step: Randomness, rng: DetRng) -> bytes:
        return self.fixed.pop(0) if self.fixed else rng.bytes(32)


class StackedSecrets:
    """A deck secrets source that makes every public-composition deck come out as ``arrange`` says.

    Secret decks (a seat's own list) are left to the real derivation: no one else
    knows their cards, so they cannot be stacked from outside — unless ``secret``: then
    nobody permutes them, and the table has each owner feed its list in the stacked order
    (:class:`~p2php.testing.protocol.ProtocolTable` with ``stack_secret``).  A reshuffle
    (:class:`~p2php.engine.contract.Reshuffle`) is stacked like a Shuffle of the faces
    now in its slots: ``arrange`` gets ``Shuffle(faces, first_slot, purpose)``, and
    ``inputs`` (given by the table, which may look at every seat's secrets) says
    those faces for a reshuffle of face-down cards.
    """

    def __init__(self, arrange: Arrange, players: int, base: DeckSecretsSource = DERIVED,
                 inputs: Callable[[DeckRecord], Sequence[CardId]] | None = None, secret: bool = False) -> None:
        self.arrange = arrange
        self.players = players
        self.base = base
        self.inputs = inputs
        self.secret = secret  # secret decks too: their owner feeds its list in the stacked order, nobody permutes

    def _cards(self, rec: DeckRecord) -> tuple[CardId, ...] | None:
        """The faces the first pass starts from, in order (``None``: a secret deck, not stacked)."""
        if rec.hidden:
            if self.inputs is None:
                raise StackingError(f"the reshuffle at slot {rec.first_slot} holds face-down cards: stacking it needs "
                                    "the faces of its slots (a table that knows them)")
            return tuple(self.inputs(rec))
        if rec.owner is not None:
            return None
        return rec.cards

    def _permutation(self, seat: Seat, rec: DeckRecord, cards: tuple[CardId, ...]) -> list[int]:
        step = Shuffle(cards, rec.first_slot, rec.purpose)
        wanted = checked_order(step, cards, self.arrange(step))
        if seat != rec.pass_order(self.players)[0]:
            return list(range(rec.size))
        position = {card: i for i, card in enumerate(cards)}
        return [position[c] for c in wanted]

    def derive(self, seat: Seat, rec: DeckRecord, decks_secret: bytes) -> deck.DeckSecrets:
        ds = self.base.derive(seat, rec, decks_secret)
        cards = self._cards(rec)
        if cards is None:
            return dataclasses.replace(ds, permutation=list(range(rec.size))) if self.secret else ds
        return dataclasses.replace(ds, permutation=self._permutation(seat, rec, cards))

    def pass_permutation(self, seat: Seat, rec: DeckRecord) -> list[int] | None:
        """The verified pass of ``seat``: the arrangement for the first passer, the identity for the others."""
        cards = self._cards(rec)
        if cards is None:
            return list(range(rec.size)) if self.secret else self.base.pass_permutation(seat, rec)
        return self._permutation(seat, rec, cards)
