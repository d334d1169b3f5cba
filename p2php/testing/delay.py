"""A loopback network with internet latency: every link delays its bytes, one way, by a chosen time.

The kernel's ``netem`` is not available on every machine (nor to every user), so the delay is added in user
space, through the transport seam (:mod:`p2php.net.transport`): each end of a link hands what it sends to a
small pump task that writes it out once its one-way delay (plus optional jitter) has passed. Both ends of every
link are wrapped — the dialled stream and the accepted one — so both directions are delayed. Order is kept, as
on TCP: a chunk is never written before the one sent before it, whatever its jitter.

::

    async with delayed_loopback(delay=0.025, jitter=0.005) as net:
        results = await run_local_table("uno", 4, deciders, network=net)

The sender is never held up by the delay (its ``send_all`` returns once the bytes are queued), as on a real
network with an open window; the queue of one link is bounded by :data:`MAX_QUEUED` bytes, beyond which a sender
waits. Only tests and ``benchmarks/latency.py`` use this.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import trio

from p2php.net.mesh import listen, listener_port
from p2php.net.transport import Listener, Stream, remote_address, tcp_dial

__all__ = ["MAX_QUEUED", "DelayedLoopback", "DelayedStream", "LinkDelay", "delayed_loopback"]

MAX_QUEUED = 4 * 1024 * 1024
"""Bytes one end of a link may have waiting for their delay before ``send_all`` blocks."""


@dataclass
class LinkDelay:
    """One-way delay of every chunk: ``delay`` seconds plus a uniform ``0 .. jitter`` (seeded, reproducible)."""

    delay: float
    jitter: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.delay < 0 or self.jitter < 0:
            raise ValueError(f"a link delay needs delay >= 0 and jitter >= 0, got {self.delay} and {self.jitter}")
        self._rng = random.Random(self.seed)  # test harness only: not game randomness

    def sample(self) -> float:
        return self.delay + (self._rng.uniform(0.0, self.jitter) if self.jitter else 0.0)


_EOF = b""  # queued by send_eof: the pump half-closes the link after the bytes before it


class DelayedStream(trio.abc.HalfCloseableStream):
    """One end of a link whose outgoing bytes arrive ``delay`` later (receiving is not touched)."""

    def __init__(self, inner: Stream, delay: LinkDelay, nursery: trio.Nursery) -> None:
        self.inner = inner
        self.delay = delay
        self._send, self._queue = trio.open_memory_channel[tuple[float, bytes]](float("inf"))
        self._queued = 0
        self._room = trio.Event()
        self._last = 0.0
        self._closed = False
        self._scope = trio.CancelScope()
        self.remote = remote_address(inner)[0]  # what remote_address() reports for this end (per-host limits)
        nursery.start_soon(self._pump)

    async def _pump(self) -> None:
        with self._scope:
            async for due, data in self._queue:
                await trio.sleep_until(due)
                try:
                    if data is _EOF:
                        await self.inner.send_eof()
                        continue
                    await self.inner.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return  # the link is gone; the reader sees it on its side
                finally:
                    self._queued -= len(data)
                    self._room.set()

    def _enqueue(self, data: bytes) -> None:
        due = max(self._last, trio.current_time() + self.delay.sample())
        self._last = due
        self._queued += len(data)
        self._send.send_nowait((due, data))

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._closed:
            raise trio.ClosedResourceError("this link is closed")
        while self._queued > MAX_QUEUED:
            self._room = trio.Event()
            await self._room.wait()
        if data:
            self._enqueue(bytes(data))
        await trio.lowlevel.checkpoint()

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def send_eof(self) -> None:
        if not self._closed:
            self._enqueue(_EOF)
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        return bytes(await self.inner.receive_some(max_bytes))  # bytes: trio's type, and trio-typing's (libp2p's)

    async def aclose(self) -> None:
        self._closed = True
        self._scope.cancel()
        self._send.close()
        await self.inner.aclose()


class _DelayedListener(trio.abc.Listener[trio.abc.HalfCloseableStream]):
    def __init__(self, inner: Listener, net: DelayedLoopback) -> None:
        self.inner, self.net = inner, net

    async def accept(self) -> trio.abc.HalfCloseableStream:
        return self.net.wrap(await self.inner.accept())

    async def aclose(self) -> None:
        await self.inner.aclose()


class DelayedLoopback:
    """A :class:`~p2php.session.local_net.LocalNetwork`: TCP on 127.0.0.1 with every link delayed both ways."""

    def __init__(self, nursery: trio.Nursery, delay: float, jitter: float = 0.0, seed: int = 0) -> None:
        self.nursery = nursery
        self.delay, self.jitter, self.seed = delay, jitter, seed
        self.links = 0
        LinkDelay(delay, jitter)  # refuse a negative delay here, not in a pump

    def wrap(self, stream: Stream) -> DelayedStream:
        self.links += 1
        return DelayedStream(stream, LinkDelay(self.delay, self.jitter, self.seed * 1_000_003 + self.links),
                             self.nursery)

    async def open_listener(self) -> Listener:
        return _DelayedListener(await listen("127.0.0.1", 0), self)

    def address_of(self, listener: Listener) -> tuple[str, int]:
        assert isinstance(listener, _DelayedListener)
        return "127.0.0.1", listener_port(listener.inner)

    async def dial(self, host: str, port: int) -> Stream:
        return self.wrap(await tcp_dial(host, port))


@asynccontextmanager
async def delayed_loopback(delay: float, jitter: float = 0.0, seed: int = 0) -> AsyncIterator[DelayedLoopback]:
    """A :class:`DelayedLoopback` whose pumps live as long as the ``async with`` block."""
    async with trio.open_nursery() as nursery:
        yield DelayedLoopback(nursery, delay, jitter, seed)
        nursery.cancel_scope.cancel()
