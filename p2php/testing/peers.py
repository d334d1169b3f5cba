"""Real peers in memory whose decks are stacked: a full, audited protocol run over a chosen deck."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers
from p2php.testing.stacking import Arrange, StackedSecrets, StackingError


def restacked(peers: Sequence[Lockstep], arrange: Arrange) -> list[Lockstep]:
    """The same seats (game, table, secrets, private decks) rebuilt with stacked deck secrets.

    Call it before anything was played: the secrets source is given at construction. It works in both deck
    protocols (``crypto=fast`` and ``verified``).
    """
    if any(ls.tick or ls.phase or ls.transcript for ls in peers):
        raise StackingError("stack the decks before the peers start playing (the source is given at construction)")
    return [
        Lockstep(ls.game, ls.table, ls.seat, ls.secrets, ls.private_decks,
                 deck_source=StackedSecrets(arrange, ls.players))
        for ls in peers
    ]


def stacked_peers(
    game_name: str,
    players: int,
    arrange: Arrange,
    options: Mapping[str, Any] | None = None,
    seed: int | str | None = None,
    private_decks: Mapping[int, Mapping[str, list[int]]] | None = None,
) -> list[Lockstep]:
    """:func:`~p2php.session.memory.make_peers` with every public-composition deck stacked by ``arrange``."""
    return restacked(make_peers(game_name, players, options, seed, private_decks), arrange)
