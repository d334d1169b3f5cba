"""Several peers in one process, each with its own keys and its own TCP connections.

This is what ``p2php demo`` and the loopback tests run: real sockets on
127.0.0.1, a full mesh, every peer an independent :func:`run_peer` that shares
nothing with the others but the addresses.  Another :class:`LocalNetwork` (the
testing kit's in-memory one) carries the same peers without sockets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import trio

from p2php.net.mesh import listen, listener_port
from p2php.net.transport import Listener, Stream, tcp_dial
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.rematch import Rematch
from p2php.session.runner import Decider, Observer, PeerConfig, PeerResult, run_peer


class LocalNetwork(Protocol):
    """Where the peers of :func:`run_local_table` listen and how they reach each other."""

    async def open_listener(self) -> Listener: ...

    def address_of(self, listener: Listener) -> tuple[str, int]: ...

    async def dial(self, host: str, port: int) -> Stream: ...


class Loopback:
    """TCP on 127.0.0.1 (the default)."""

    async def open_listener(self) -> Listener:
        return await listen("127.0.0.1", 0)

    def address_of(self, listener: Listener) -> tuple[str, int]:
        return "127.0.0.1", listener_port(listener)

    async def dial(self, host: str, port: int) -> Stream:
        return await tcp_dial(host, port)


async def run_local_table(
    game: str,
    players: int,
    deciders: Sequence[Decider],
    options: Mapping[str, Any] | None = None,
    seed: int | str | None = None,
    timeout: float = 30.0,
    transcripts: Path | None = None,
    observe: Observer | None = None,
    names: Sequence[str] | None = None,
    observe_seat: int = 0,
    network: LocalNetwork | None = None,
    private_decks: Mapping[int, Mapping[str, list[int]]] | None = None,
    observed: Mapping[str, Any] | None = None,
    rematch_of: Sequence[Lockstep] | None = None,
    **config: Any,
) -> list[PeerResult]:
    """Run ``players`` peers on ``network`` (loopback TCP by default) until every one has a verdict.

    ``private_decks`` gives seats their own secret deck lists (a seat without one brings the game's default);
    ``config`` sets further :class:`~p2php.session.runner.PeerConfig` fields for every peer, ``observed`` for
    the ``observe_seat`` only (a person's seat: its ``leave`` event, its ``on_link``).  ``rematch_of``: every
    seat's lockstep of an ended game at this table, to play it again (§3.9; give ``seed`` another value too).
    """
    net = network if network is not None else Loopback()
    listeners = [await net.open_listener() for _ in range(players)]
    addresses = {s: net.address_of(listeners[s]) for s in range(players)}
    results: list[PeerResult | None] = [None] * players

    async def one(seat: int) -> None:
        secrets = seeded_secrets(seed, seat) if seed is not None else LocalSecrets()
        cfg = PeerConfig(
            game=game,
            options=dict(options or {}),
            players=players,
            seat=seat,
            name=names[seat] if names else f"bot{seat}",
            timeout=timeout,
            secrets=secrets,
            transcript_path=None if transcripts is None else transcripts / f"seat{seat}.p2php",
            connect=net.dial,
            private_decks=dict((private_decks or {}).get(seat, {})),
            rematch=None if rematch_of is None else Rematch.of(rematch_of[seat]),
            **{**config, **((observed or {}) if seat == observe_seat else {})},
        )
        try:
            results[seat] = await run_peer(
                cfg, addresses, listeners[seat], deciders[seat], observe if seat == observe_seat else None
            )
        finally:
            await listeners[seat].aclose()

    async with trio.open_nursery() as nursery:
        for seat in range(players):
            nursery.start_soon(one, seat)
    return [r for r in results if r is not None]
