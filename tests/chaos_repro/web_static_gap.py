"""(b) ``p2php web`` reads its static files in the server's trio loop, which also plays every page's table
(``p2php/web/server.py`` ``static_file``: ``is_file()`` and ``read_bytes()`` in ``_serve_connection``).

A slow-disk shim: a read of a file of the package's ``static`` folder takes SLOW seconds (a file not in the page
cache on a disk that spun down, a USB stick, a network home: seconds). A ticker task (every 10 ms) beside the server;
one page load (its 9 files, as a browser asks them, 6 at a time) -- which any web page the user visits can also
cause, with no-cors GETs to 127.0.0.1:PORT (the default port is 8080). Reports the loop's longest gap and its total
time held.

    .venv/bin/python tests/chaos_repro/web_static_gap.py [SLOW]
"""
from __future__ import annotations

import pathlib
import sys
import time
from functools import partial

import trio

from p2php.web.server import new_key, serve

SLOW = float(sys.argv[1]) if len(sys.argv) > 1 else 0.5
STATIC = str(pathlib.Path(__import__("p2php.web", fromlist=["x"]).__file__).parent / "static")
real = pathlib.Path.read_bytes


def slow_read_bytes(self: pathlib.Path) -> bytes:
    if str(self).startswith(STATIC):
        time.sleep(SLOW)
    return real(self)


pathlib.Path.read_bytes = slow_read_bytes  # type: ignore[method-assign]
FILES = ["/", "/app.js", "/help.js", "/hogwarts.js", "/online.js", "/style.css", "/table-life.css",
         "/table-life.js", "/tcg.js"]


async def get(port: int, path: str) -> int:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := await stream.receive_some(65536):
            data += chunk
    return int(data.split(b" ", 2)[1])


async def main() -> None:
    gaps: list[float] = []

    async def ticker() -> None:
        last = time.monotonic()
        while True:
            await trio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last - 0.01)
            last = now

    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, key=new_key()))
        nursery.start_soon(ticker)
        await trio.sleep(0.1)
        gaps.clear()
        began = time.monotonic()
        statuses: list[int] = []
        limit = trio.CapacityLimiter(6)

        async def one(path: str) -> None:
            async with limit:
                statuses.append(await get(port, path))

        async with trio.open_nursery() as page:
            for path in FILES:
                page.start_soon(one, path)
        took = time.monotonic() - began
        nursery.cancel_scope.cancel()
    print(f"SLOW {SLOW} s a read: {len(FILES)} files ({sorted(set(statuses))}) in {took:.2f} s; the loop's longest gap "
          f"{max(gaps) * 1000:.0f} ms, gaps over 100 ms: {sum(g for g in gaps if g > 0.1):.2f} s in all")


trio.run(main)
