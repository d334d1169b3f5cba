"""An in-memory network for real peers: the whole protocol, no sockets, and a clock tests control.

:func:`~p2php.session.local_net.run_local_table` runs every peer over loopback TCP.  The same
peers (``run_peer``: mesh, handshake, link tags, lockstep, deadlines, audit) run here over
trio's in-memory streams instead, through the transport seam (:mod:`p2php.net.transport`).
With no real I/O, trio's ``MockClock(autojump_threshold=0)`` (pytest-trio's
``autojump_clock`` fixture) jumps straight to the next deadline, so a test of a 30-second
timeout takes milliseconds and never depends on how loaded the machine is::

    async def test_a_silent_seat_is_named(autojump_clock):
        results = await run_memory_table("toy", 3, deciders, timeout=30.0)

Nothing here is used in real play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import trio
import trio.testing

from p2php.session.local_net import run_local_table
from p2php.session.runner import Decider, Observer, PeerResult

__all__ = ["MemoryListener", "MemoryNetwork", "run_memory_table"]

_BACKLOG = 64


class MemoryListener(trio.abc.Listener[trio.abc.HalfCloseableStream]):
    """Accepts the links dialled to one address of a :class:`MemoryNetwork`."""

    def __init__(self, network: MemoryNetwork, port: int) -> None:
        self.network, self.port = network, port
        self._send, self._receive = trio.open_memory_channel[trio.abc.HalfCloseableStream](_BACKLOG)

    async def accept(self) -> trio.abc.HalfCloseableStream:
        try:
            return await self._receive.receive()
        except trio.EndOfChannel:
            raise trio.ClosedResourceError("the listener is closed") from None

    async def aclose(self) -> None:
        self.network.listeners.pop(self.port, None)
        await self._send.aclose()
        await self._receive.aclose()
        await trio.lowlevel.checkpoint()


class MemoryNetwork:
    """Addresses ``("memory", port)`` and the listeners behind them; :meth:`dial` is a transport's dial."""

    HOST = "memory"

    def __init__(self) -> None:
        self.listeners: dict[int, MemoryListener] = {}
        self._next_port = 40000

    def listen(self) -> MemoryListener:
        port, self._next_port = self._next_port, self._next_port + 1
        listener = self.listeners[port] = MemoryListener(self, port)
        return listener

    async def open_listener(self) -> MemoryListener:  # a LocalNetwork (p2php.session.local_net)
        await trio.lowlevel.checkpoint()
        return self.listen()

    def address_of(self, listener: trio.abc.Listener[trio.abc.HalfCloseableStream]) -> tuple[str, int]:
        assert isinstance(listener, MemoryListener)
        return self.HOST, listener.port

    async def dial(self, host: str, port: int) -> trio.abc.HalfCloseableStream:
        await trio.lowlevel.checkpoint()
        listener = self.listeners.get(port) if host == self.HOST else None
        if listener is None:
            raise ConnectionRefusedError(f"nothing listens at {host}:{port}")
        ours, theirs = trio.testing.memory_stream_pair()
        theirs.remote = f"{self.HOST}-dialer"  # type: ignore[attr-defined]  # what remote_address reports
        try:
            listener._send.send_nowait(theirs)
        except (trio.WouldBlock, trio.ClosedResourceError):
            raise ConnectionRefusedError(f"{host}:{port} is not accepting") from None
        return ours


async def run_memory_table(
    game: str,
    players: int,
    deciders: Sequence[Decider],
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    timeout: float = 30.0,
    observe: Observer | None = None,
    **config: Any,
) -> list[PeerResult]:
    """Run ``players`` real peers over a :class:`MemoryNetwork` until every one has a verdict
    (:func:`~p2php.session.local_net.run_local_table` on the in-memory network).

    ``config`` sets further :class:`~p2php.session.runner.PeerConfig` fields for every peer
    (``resume_timeout``, ``linger`` ...).
    """
    return await run_local_table(game, players, deciders, options, seed, timeout, observe=observe,
                                 network=MemoryNetwork(), **config)
