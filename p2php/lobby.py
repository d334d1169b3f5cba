"""A minimal rendezvous for peers on different machines (``p2php host`` / ``join``).

The host is only a meeting point: it hands out seats and, once the table is
full, tells every peer where the others listen.  Then the lobby connections
close, every peer forms the full mesh itself, and the host is a peer like any
other (it learns nothing more than they do).

Lobby frames (length-prefixed msgpack, like every p2php frame):

* joiner → host ``{"lobby": "join", "v": 1, "name": str, "port": int}``
* host → joiner ``{"lobby": "seat", "seat": i, "game": str, "options": {...}, "players": n}``
  or ``{"lobby": "refused", "reason": str}``
* host → joiner ``{"lobby": "start", "addresses": [[host or null, port], ...]}``
  (``null``: the peer runs on the host's machine; dial the host's address).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import trio

from p2php import PROTOCOL_VERSION
from p2php.net.framing import FrameDecoder, FrameError, encode_frame

LOBBY_TIMEOUT = 600.0


class LobbyError(Exception):
    """The rendezvous failed; the message says why, for a person to read."""


async def _read(stream: trio.SocketStream, decoder: FrameDecoder) -> dict[str, Any]:
    while (frame := decoder.next_frame()) is None:
        data = await stream.receive_some(65536)
        if not data:
            raise LobbyError("the other side closed the connection")
        decoder.receive_data(data)
    return frame


@dataclass
class Seated:
    seat: int
    name: str
    host: str | None
    port: int
    stream: trio.SocketStream | None = None


async def host_lobby(
    listener: trio.SocketListener,
    game: str,
    options: Mapping[str, Any],
    players: int,
    local: list[tuple[str, int]],
    announce: Any = print,
) -> list[tuple[str | None, int]]:
    """Seat remote joiners until ``players`` seats are taken; return every seat's address.

    ``local`` lists the peers running in this process (the host's own seat and
    its bots) as ``(name, listen port)``; they take the first seats.
    """
    seated = [Seated(i, name, None, port) for i, (name, port) in enumerate(local)]
    full = trio.Event()
    ready = trio.Event()
    addresses: list[tuple[str | None, int]] = []
    failures: list[str] = []
    if len(seated) >= players:
        full.set()

    async def handle(stream: trio.SocketStream) -> None:
        decoder = FrameDecoder(64 * 1024)
        try:
            with trio.fail_after(30):
                hello = await _read(stream, decoder)
            name = hello.get("name")
            port = hello.get("port")
            reason = None
            if hello.get("lobby") != "join" or not isinstance(name, str) or not isinstance(port, int):
                reason = "not a p2php join request"
            elif hello.get("v") != PROTOCOL_VERSION:
                reason = f"protocol version {hello.get('v')} (this table speaks {PROTOCOL_VERSION})"
            elif full.is_set():
                reason = "the table is full"
            elif any(s.name == name for s in seated):
                reason = f"the name {name!r} is taken at this table"
            if reason is not None:
                await stream.send_all(encode_frame({"lobby": "refused", "reason": reason}))
                await stream.aclose()
                return
            assert isinstance(name, str) and isinstance(port, int)
            peer_host = str(stream.socket.getpeername()[0])
            seat = Seated(len(seated), name, peer_host, port, stream)
            seated.append(seat)
            announce(f"{name} joined from {peer_host} and takes seat {seat.seat} ({len(seated)}/{players})")
            await stream.send_all(encode_frame(
                {"lobby": "seat", "seat": seat.seat, "game": game, "options": dict(options), "players": players}
            ))
            if len(seated) == players:
                full.set()
        except (FrameError, LobbyError, OSError, trio.BrokenResourceError, trio.TooSlowError) as err:
            announce(f"a join attempt failed: {err}")
            return
        # Keep the connection until everyone is seated, then tell this peer where the others are.
        await ready.wait()
        try:
            await stream.send_all(encode_frame({"lobby": "start", "addresses": [list(a) for a in addresses]}))
        except (OSError, trio.BrokenResourceError) as err:
            failures.append(f"{seat.name} (seat {seat.seat}) left before the start: {err}")

    async with trio.open_nursery() as handlers:
        async with trio.open_nursery() as server:
            server.start_soon(partial(trio.serve_listeners, handle, [listener], handler_nursery=handlers))
            await full.wait()
            server.cancel_scope.cancel()
        addresses.extend((s.host, s.port) for s in seated)
        ready.set()
    if failures:
        raise LobbyError("; ".join(failures))
    return addresses


async def join_lobby(host: str, port: int, name: str, listen_port: int) -> tuple[dict[str, Any], list[tuple[str, int]]]:
    """Sit down at a table; wait for it to fill; return (seat info, every seat's address)."""
    try:
        stream = await trio.open_tcp_stream(host, port)
    except OSError as err:
        raise LobbyError(f"cannot reach the table at {host}:{port}: {err.strerror or err}") from None
    decoder = FrameDecoder(64 * 1024)
    async with stream:
        await stream.send_all(encode_frame({"lobby": "join", "v": PROTOCOL_VERSION, "name": name, "port": listen_port}))
        with trio.fail_after(30):
            seat = await _read(stream, decoder)
        if seat.get("lobby") == "refused":
            raise LobbyError(f"the table refused us: {seat.get('reason')}")
        if seat.get("lobby") != "seat":
            raise LobbyError("the host did not answer like a p2php table")
        with trio.fail_after(LOBBY_TIMEOUT):
            start = await _read(stream, decoder)
    if start.get("lobby") != "start" or not isinstance(start.get("addresses"), list):
        raise LobbyError("the host did not start the game properly")
    addresses = [(a[0] if a[0] is not None else host, int(a[1])) for a in start["addresses"]]
    return seat, addresses
