"""A TCP path that goes silent both ways without a word, for tests of connections whose path died.

What a home router that forgot its NAT mapping, or a laptop that changed networks, is to the two ends of a
connection: neither is told, and the bytes each sends vanish. Connections made after :meth:`SilentPath.silence`
go through as normal (a new connection gets a new mapping). Not the fault proxy's ``blackhole``: that one holds
bytes and delivers them late (a partition that heals), and it times itself by p2php frames, which a libp2p
connection's Noise bytes are not.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import trio


class SilentPath:
    """Forwards connections on a local port to ``127.0.0.1:target``, until :meth:`silence`."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = 0
        self.connections = 0
        self._silences: list[trio.Event] = []

    async def serve(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Run until cancelled (``await nursery.start(path.serve)``); :attr:`port` is set when it listens."""
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(partial(trio.serve_tcp, self._carry, 0, host="127.0.0.1"))
            self.port = listeners[0].socket.getsockname()[1]
            task_status.started()

    def silence(self) -> None:
        """Every connection so far goes silent both ways: read on and dropped, nobody told."""
        for silent in self._silences:
            silent.set()

    async def _carry(self, near: trio.SocketStream) -> None:
        self.connections += 1
        silent = trio.Event()
        self._silences.append(silent)
        far = await trio.open_tcp_stream("127.0.0.1", self.target)
        async with trio.open_nursery() as both:
            both.start_soon(self._forward, near, far, silent)
            both.start_soon(self._forward, far, near, silent)

    @staticmethod
    async def _forward(source: trio.SocketStream, sink: trio.SocketStream, silent: trio.Event) -> None:
        async for data in source:
            if not silent.is_set():
                await sink.send_all(data)
