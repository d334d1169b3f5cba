"""The bridge over a pipe: one JSON command per stdin line, one JSON event per stdout line.

Standard input is read by a worker thread (``readline`` cannot be awaited
portably, and trio's ``FdStream`` would switch the shared descriptor to
non-blocking mode behind the parent's back); standard output is written by one
writer task from a queue, so game events and command replies never interleave
inside a line and a slow reader never stalls the peer's network loop.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import AsyncIterator
from typing import IO, Any

import trio

from p2php.bridge.session import MAX_LINE, BridgeSession, dumps, paced
from p2php.threads import in_thread


async def read_lines(stream: IO[bytes]) -> AsyncIterator[str]:
    """Lines of ``stream`` as text until end of file; an overlong line comes out truncated (and is refused)."""
    while True:
        raw: bytes = await in_thread(stream.readline, MAX_LINE + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            rest = raw
            while rest and not rest.endswith(b"\n"):
                rest = await in_thread(stream.readline, MAX_LINE)
        yield raw.decode("utf-8", errors="replace")


async def write_lines(events: trio.MemoryReceiveChannel[dict[str, Any]], stream: IO[bytes]) -> None:
    """Write each queued event as one JSON line and flush it; once that fails (the reader is gone, or stdout is a
    file on a full disk), drop every later event quietly: nobody to tell. Dropped, not left queued: the bridge stops
    reading commands while :data:`~p2php.bridge.session.MAX_UNREAD` events wait (:func:`paced`), so a client still
    sending moves was read no more, for good, and named ``silent`` (red-team rt9-small: stdout on /dev/full,
    1001 of 3001 commands read, the quit and the end of input never)."""

    def write(data: bytes) -> None:
        stream.write(data)
        stream.flush()

    async for obj in events:
        line = (dumps(obj) + "\n").encode("utf-8")  # dumps writes anything as UTF-8 (or an error event)
        try:
            await in_thread(write, line)
        except (OSError, ValueError):  # the client closed its end of the pipe (a closed file raises ValueError)
            break
    async for _ in events:  # (the commands are still read and answered: the answers go nowhere)
        pass


async def serve_stdio(stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
    """Serve one client on ``stdin``/``stdout`` (the process's own by default) until it quits."""
    tx, rx = trio.open_memory_channel[dict[str, Any]](math.inf)

    def emit(obj: dict[str, Any]) -> None:
        with contextlib.suppress(trio.ClosedResourceError):
            tx.send_nowait(obj)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(write_lines, rx, stdout or sys.stdout.buffer)
        with tx:
            await BridgeSession(emit).run(paced(read_lines(stdin or sys.stdin.buffer),
                                                lambda: rx.statistics().current_buffer_used))
