"""Running one peer over the network (trio): the I/O edge around :class:`Lockstep`.

:func:`run_peer` forms the mesh, performs the handshake, then loops: broadcast
what the lockstep machine produced, ask the local decider when it is this seat's
turn, otherwise wait (with a timeout) for the next frame.  A silent peer is named
when the timeout expires; a peer that sends garbage is named at once.  Whatever
happens, the peer ends with a verdict and its full transcript.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from p2php.engine.contract import Action, Decide
from p2php.engine.registry import get_game
from p2php.net.mesh import Frame, HandshakeError, open_mesh
from p2php.session import transcript
from p2php.session.handshake import HandshakeRefused, LocalSecrets, Table, check_hello, make_hello
from p2php.session.lockstep import Fault, Lockstep

Decider = Callable[[Lockstep], Awaitable[Action]]
"""Chooses the local seat's action (a bot, or a person at a terminal)."""
Observer = Callable[[Lockstep, list[str]], None]
"""Called after progress with new log lines (for terminals and demos)."""


@dataclass
class PeerConfig:
    game: str
    options: Mapping[str, Any]
    players: int
    seat: int
    name: str = ""
    timeout: float = 30.0
    connect_timeout: float = 20.0
    secrets: LocalSecrets = field(default_factory=LocalSecrets)
    transcript_path: Path | None = None
    private_decks: dict[str, list[int]] = field(default_factory=dict)
    """Secret deck lists this seat owns, by Shuffle purpose (e.g. a trading-card deck)."""


@dataclass
class PeerResult:
    lockstep: Lockstep
    seconds: float
    setup_seconds: float
    bytes_sent: int
    bytes_received: int
    frames_sent: int


def bot_decider(bot: Any) -> Decider:
    async def decide(ls: Lockstep) -> Action:
        assert ls.seat is not None
        action: Action = bot.choose(ls.state, ls.seat, ls.knowledge(), ls.legal_actions())
        return action

    return decide


async def run_peer(
    cfg: PeerConfig,
    addresses: Mapping[int, tuple[str, int]],
    listener: trio.SocketListener | None,
    decide: Decider,
    observe: Observer | None = None,
) -> PeerResult:
    """Play one seat to the end (or to a named fault) and return what happened."""
    start = time.perf_counter()
    game = get_game(cfg.game)
    options = game.parse_options(dict(cfg.options))
    hello = make_hello(cfg.secrets, cfg.seat, cfg.players, game.name, options, cfg.name or f"seat{cfg.seat}")
    hellos: dict[int, dict[str, Any]] = {cfg.seat: hello}

    def accept_hello(seat: int, their: dict[str, Any]) -> None:
        try:
            hellos[seat] = check_hello(their, seat=seat, players=cfg.players, game=game.name, options=options)
        except HandshakeRefused as err:
            raise HandshakeError(str(err), seat) from None

    mesh = await open_mesh(
        cfg.seat, dict(addresses), listener, hello, accept_hello, connect_timeout=cfg.connect_timeout
    )
    table = Table(game.name, options, tuple(hellos[s] for s in range(cfg.players)))
    ls = Lockstep(game, table, cfg.seat, cfg.secrets, cfg.private_decks)
    frames_sent = 0
    setup_seconds = 0.0
    async with mesh:
        events = mesh.receive()
        while True:
            for msg in ls.poll():
                await mesh.broadcast(msg.to_wire())
                frames_sent += 1
            if observe is not None:
                observe(ls, [])
            if not setup_seconds and isinstance(ls.step, Decide):
                setup_seconds = time.perf_counter() - start  # keys, shuffle, deal: all ready
            if ls.finished:
                break
            if ls.awaiting_me():
                action = await decide(ls)
                ls.act(action)
                continue
            with trio.move_on_after(cfg.timeout) as scope:
                event = await events.receive()
            if scope.cancelled_caught:
                ls.timeout()
                continue
            if isinstance(event, Frame):
                ls.receive(event.seat, event.frame)
            elif not ls.finished and event.seat in ls.waiting_for() and not ls.auditing:
                ls._raise_fault(Fault(event.seat, f"connection lost: {event.reason}", (ls.tick, ls.phase), silent=True))
        sent = sum(mesh.bytes_sent.values())
        received = sum(mesh.bytes_received.values())
        await mesh.aclose()
    if cfg.transcript_path is not None:
        transcript.save(ls, cfg.transcript_path)
    return PeerResult(ls, time.perf_counter() - start, setup_seconds, sent, received, frames_sent)
