"""TEST ONLY: stack the decks of a real protocol run, so rule scenarios can pass through it.

Rule tests need a known deck order.  :class:`~p2php.engine.local.LocalTable` gets it
by skipping the crypto; this module gets it *through* the crypto: every peer of the
test agrees to replace the permutations its secrets derive with ones that realise
the wanted order (the first shuffler applies it, the others shuffle nothing).  All
peers and their audits use the same replacement, so the run is a complete, audited
protocol run — but with a deck everyone chose in advance, which is exactly what a
real game must never have.  Never use it outside tests and scenario demos.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from p2php.crypto import deck
from p2php.engine.contract import CardId, Shuffle
from p2php.session.lockstep import DeckRecord, Lockstep, Stacker

Arrange = Callable[[Shuffle], Sequence[CardId]]


def stacker(arrange: Arrange, players: int) -> Stacker:
    """A :data:`Stacker` that makes every public-composition deck come out as ``arrange`` says."""

    def restack(seat: int, rec: DeckRecord, ds: deck.DeckSecrets) -> deck.DeckSecrets:
        if rec.owner is not None:
            return ds
        step = Shuffle(rec.cards, rec.first_slot, rec.purpose)
        wanted = list(arrange(step))
        if sorted(wanted) != sorted(rec.cards):
            raise ValueError("arrange() must return a permutation of the shuffled cards")
        first = rec.pass_order(players)[0]
        if seat != first:
            return dataclasses.replace(ds, permutation=list(range(rec.size)))
        position = {card: i for i, card in enumerate(rec.cards)}
        return dataclasses.replace(ds, permutation=[position[c] for c in wanted])

    return restack


def stack(peers: Sequence[Lockstep], arrange: Arrange) -> None:
    """Make every peer of a test table use the same stacked decks."""
    for ls in peers:
        ls.stacker = stacker(arrange, ls.players)
