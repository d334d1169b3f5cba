"""An outsider that holds a listener's places for connections that have not yet shown who they are.

It opens connections from several loopback source addresses (each a "host" to the listener: Linux answers on all
of 127.0.0.0/8), says nothing, and opens a new one from the same address as soon as the listener closes one --
what anyone who learned a seat's or a lobby's address can do from a few machines.
"""

from __future__ import annotations

import errno
from typing import Any

import pytest
import trio


async def connect_from(source: str, port: int, host: str = "127.0.0.1") -> trio.SocketStream:
    """A TCP connection to ``host:port`` from the local address ``source``."""
    sock = trio.socket.socket()
    try:
        await sock.bind((source, 0))
        await sock.connect((host, port))
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


async def other_loopback_addresses_work() -> None:
    """Skip the test where the loopback interface answers on 127.0.0.1 only (not Linux)."""
    try:
        sock = trio.socket.socket()
        with sock:
            await sock.bind(("127.0.0.2", 0))
    except OSError as exc:
        if exc.errno in (errno.EADDRNOTAVAIL, errno.EINVAL):
            pytest.skip("no outsider from several hosts: this machine's loopback answers on 127.0.0.1 only")
        raise


class Squatter:
    """Holds ``per_source`` silent connections from each of ``sources`` to ``127.0.0.1:port``."""

    def __init__(self, port: int, sources: list[str], per_source: int) -> None:
        self.port = port
        self.sources = sources
        self.per_source = per_source
        self.opened = 0
        self.closed_on_us = 0  # connections the listener ended (refused at once, timed out or made room)

    async def run(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Open every connection, then hold them until cancelled (``await nursery.start(squatter.run)`` returns
        once all are open)."""
        async with trio.open_nursery() as nursery:
            ready = [trio.Event() for _ in range(len(self.sources) * self.per_source)]
            for i, event in enumerate(ready):
                nursery.start_soon(self._hold, self.sources[i // self.per_source], event)
            for event in ready:
                await event.wait()
            task_status.started()

    async def _hold(self, source: str, ready: trio.Event) -> None:
        while True:
            try:
                stream = await connect_from(source, self.port)
            except OSError:
                await trio.sleep(0.01)
                continue
            self.opened += 1
            ready.set()
            async with stream:
                try:
                    while await stream.receive_some(4096):
                        pass  # what the listener says (its hello) is ignored: we never answer
                except (trio.BrokenResourceError, OSError):
                    pass
            self.closed_on_us += 1
            await trio.sleep(0.01)  # (a real outsider would not wait; the test machine has other work)


async def fill_the_door(port: int, places: int) -> list[trio.SocketStream]:
    """``places`` idle connections to ``port`` (a server that lets that many wait at its door, then closes the oldest
    idle one to make way for a new one: checked here). The idle ones still open are returned, the newcomer last."""
    idle = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(places)]
    await trio.sleep(0.2)
    extra = await trio.open_tcp_stream("127.0.0.1", port)
    with trio.fail_after(5):
        assert await idle[0].receive_some(100) == b""  # closed at once, for the newcomer
    await idle[0].aclose()
    return [*idle[1:], extra]
