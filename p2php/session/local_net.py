"""Several peers in one process, each with its own keys and its own TCP connections.

This is what ``p2php demo`` and the loopback tests run: real sockets on
127.0.0.1, a full mesh, every peer an independent :func:`run_peer` that shares
nothing with the others but the addresses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

from p2php.net.mesh import listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.memory import seeded_secrets
from p2php.session.runner import Decider, Observer, PeerConfig, PeerResult, run_peer


async def run_local_table(
    game: str,
    players: int,
    deciders: Sequence[Decider],
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    timeout: float = 30.0,
    transcripts: Path | None = None,
    observe: Observer | None = None,
    names: Sequence[str] | None = None,
    observe_seat: int = 0,
) -> list[PeerResult]:
    """Run ``players`` peers on loopback until every one has a verdict."""
    listeners = [await listen("127.0.0.1", 0) for _ in range(players)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(players)}
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
