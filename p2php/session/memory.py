"""Peers wired together in memory: the full protocol, without sockets.

Useful for tests (a ``tamper`` hook plays a cheating network or peer), for
benchmarks that want to separate crypto cost from network cost, and as the
smallest example of driving :class:`~p2php.session.lockstep.Lockstep`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from p2php import tags
from p2php.bots import Bot
from p2php.engine.contract import Game
from p2php.engine.registry import get_game
from p2php.session.compact import FRAME, compact_frame
from p2php.session.handshake import LocalSecrets, Table, check_hello, make_hello
from p2php.session.lockstep import Lockstep
from p2php.session.modes import parse_table_options

Tamper = Callable[[int, int, dict[str, Any]], dict[str, Any] | None]
"""``tamper(sender, recipient, frame)`` returns the frame to deliver, or ``None`` to drop it."""


def seeded_secrets(seed: int | str, seat: int) -> LocalSecrets:
    """Deterministic secrets for tests and reproducible demos (never for real play)."""
    from p2php.canonical import digest

    return LocalSecrets(master=digest(tags.TEST_MASTER, str(seed).encode(), seat.to_bytes(2, "big")))


def make_peers(
    game_name: str,
    players: int,
    options: Mapping[str, Any] | None = None,
    seed: int | str | None = None,
    private_decks: Mapping[int, Mapping[str, list[int]]] | None = None,
) -> list[Lockstep]:
    """One :class:`Lockstep` per seat, after an in-memory handshake."""
    game: Game = get_game(game_name)
    game.check_players(players)
    opts = parse_table_options(game, dict(options or {}))
    secrets = [
        seeded_secrets(seed, s) if seed is not None else LocalSecrets() for s in range(players)
    ]
    hellos = [make_hello(secrets[s], s, players, game.name, opts, f"peer{s}") for s in range(players)]
    for s, h in enumerate(hellos):
        check_hello(h, seat=s, players=players, game=game.name, options=opts)
    table = Table(game.name, opts, tuple(hellos))
    decks = private_decks or {}
    return [Lockstep(game, table, s, secrets[s], dict(decks.get(s, {}))) for s in range(players)]


def _deliver_forwards(ls: Lockstep, peers: Sequence[Lockstep], silent: Sequence[int]) -> bool:
    """Pass on the signed messages ``ls`` forwards (aborts, audits, equivocation proofs) as relays."""
    forwarded, ls.forward = ls.forward, []
    for wire in forwarded:
        for other in peers:
            if other is not ls and other.seat not in silent:
                other.receive_relayed(wire)
    return bool(forwarded)


def _deliver_wants(ls: Lockstep, peers: Sequence[Lockstep], tamper: Tamper | None, silent: Sequence[int]) -> bool:
    """Answer the full-form requests of ``ls`` (compact frames it could not rebuild, §5.4) from their senders."""
    wants, ls.compact.wants = ls.compact.wants, []
    assert ls.seat is not None
    for seat, seq in wants:
        holder = peers[seat]
        if seat in silent or holder.finished:
            continue
        wire = holder.answer_want(ls.seat, seq)
        if wire is not None and tamper is not None:
            wire = tamper(seat, ls.seat, wire)
        if wire is not None:
            ls.receive(seat, wire)
    return bool(wants)


def run_in_memory(
    peers: Sequence[Lockstep],
    bots: Mapping[int, Bot],
    tamper: Tamper | None = None,
    silent: Sequence[int] = (),
    max_rounds: int = 1_000_000,
    compact: bool = False,
) -> None:
    """Deliver every message to every other peer until all peers have finished.

    Seats in ``silent`` stop sending (their outgoing messages are dropped) from the
    start; when nothing moves, every waiting peer's :meth:`~Lockstep.timeout` fires.
    ``compact``: deliver messages in their compact wire form (§5.4) after ``tamper``, and answer the
    full-form requests that follows (through ``tamper`` too), as linked peers do.
    """
    stuck = 0
    for _ in range(max_rounds):
        moved = False
        for ls in peers:
            if ls.finished or ls.seat in silent:
                continue
            assert ls.seat is not None
            while True:
                if ls.awaiting_me():
                    legal = ls.legal_actions()
                    ls.act(bots[ls.seat].choose(ls.state, ls.seat, ls.knowledge(), legal))
                for msg in ls.poll():
                    moved = True
                    stuck = 0
                    for other in peers:
                        if other is ls:
                            continue
                        frame: dict[str, Any] | None = ls.wire_for(msg, other.seat)
                        if tamper is not None and frame is not None:
                            frame = tamper(ls.seat, other.seat if other.seat is not None else -1, frame)
                        short = (compact_frame(frame, len(peers), partial(ls.held_copy, ls.seat))
                                 if compact and frame is not None else None)
                        if short is not None:
                            other.receive_compact(ls.seat, short[FRAME])
                        elif frame is not None:
                            other.receive(ls.seat, frame)
                moved = _deliver_forwards(ls, peers, silent) or moved
                for other in peers:
                    if other.seat not in silent and not other.finished:
                        moved = _deliver_wants(other, peers, tamper, silent) or moved
                if not ls.awaiting_me():
                    break
        if all(ls.finished or ls.seat in silent for ls in peers):
            return
        if not moved:
            stuck += 1
            if stuck > 3:
                return  # nothing more can happen (e.g. only cheaters are left waiting)
            for ls in peers:
                if not ls.finished and ls.seat not in silent:
                    ls.timeout()
    raise RuntimeError("in-memory game did not finish")
