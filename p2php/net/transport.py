"""What carries a seat's bytes: the seam between the mesh and the network.

The mesh, the lockstep runner and the spectator see ordered byte streams (``trio.abc.Stream``)
and a listener that accepts them (``trio.abc.Listener``); they never open a socket themselves
but call a :data:`Dial` function.  Today's default is direct TCP (:func:`tcp_dial`,
:func:`p2php.net.mesh.listen`); a test passes an in-memory network
(:class:`p2php.testing.network.MemoryNetwork`, where trio's ``MockClock`` can jump over every
timeout), and internet play can pass another transport without touching the session.
Framing, link authentication and every limit stay above this seam, whatever carries the bytes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

__all__ = ["Dial", "Listener", "Stream", "remote_address", "tcp_dial"]

Stream = trio.abc.HalfCloseableStream
"""A link: ordered bytes both ways, and an end of sending (``send_eof``) when we close."""
Listener = trio.abc.Listener[trio.abc.HalfCloseableStream]
Dial = Callable[[str, int], Awaitable[trio.abc.HalfCloseableStream]]
"""``await dial(host, port)``: a connected stream, or ``OSError`` (the mesh retries with backoff)."""


async def tcp_dial(host: str, port: int) -> trio.abc.HalfCloseableStream:
    """A TCP connection (the default transport)."""
    return await trio.open_tcp_stream(host, port)


def remote_address(stream: trio.abc.Stream) -> tuple[str, str]:
    """``(host, "host:port")`` of the other end, for per-host limits and messages."""
    if isinstance(stream, trio.SocketStream):
        try:
            host, port = stream.socket.getpeername()[:2]
        except OSError:
            return "?", "unknown address"
        return str(host), f"{host}:{port}"
    remote = getattr(stream, "remote", None)  # an in-memory link names its dialer; a libp2p one, its peer id
    if remote is None:
        return "?", "unknown address"
    source = getattr(stream, "source", None)  # a direct libp2p connection's IP: limits count it, not its peer id
    return str(source or remote), str(remote)
