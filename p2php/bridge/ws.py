"""The bridge over a local WebSocket: the same JSON messages, one per text message.

wsproto does the WebSocket protocol (handshake, framing, masking, close and
ping) without any I/O, like h11 for HTTP and like this project's own
:class:`~p2php.session.lockstep.Lockstep`; this module is the small trio glue
that moves its bytes.  Each connection gets its own
:class:`~p2php.bridge.session.BridgeSession`, so one bridge can serve several
clients, each at its own table.

A WebSocket on 127.0.0.1 is reachable by every web page the user opens: a
browser always sends an ``Origin`` header, so a handshake carrying one is
refused unless that origin was allowed (``--allow-origin``).  Programs (which
send no ``Origin``) are accepted.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import math
import secrets
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from functools import partial
from typing import Any, Literal, NoReturn
from urllib.parse import parse_qs

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Event,
    Ping,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

from p2php.bridge.session import MAX_LINE, BridgeSession, dumps, paced
from p2php.errors import P2phpError
from p2php.net.admission import Admission, Ticket, host_of

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT = 10.0
"""Seconds a new connection has to complete the WebSocket handshake."""

MAX_WAITING = 64
"""Connections not yet let in (still in their WebSocket handshake or, for ``p2php web``, fetching a file) held at
once; a new one past it is closed at once. Any program on this machine may connect without the key: idle
connections held every file descriptor of the process, whose games could then neither redial nor save a
transcript."""


FRESH = 1.0
"""Seconds a new connection is not yet counted idle at the door: it has had no time to send its request."""


class WaitingRoom(Admission):
    """The places of connections not yet let in: when all are held, a newcomer takes the place of the oldest
    connection that has sent no request yet (:meth:`showed`) in the :data:`FRESH` seconds it had, or of the oldest
    of all.

    Not the lobby's rule (a host that holds as many places as any other is turned away): here every connection
    comes from this machine, the page's and any other program's alike, from 127.0.0.1 or from whichever loopback
    address it binds. A program holding every place, reopening each as it was closed, kept the page from ever
    loading or opening its socket (red-team rt10-web: 0 of 100 loads in 25 s, 64 idle sockets). Now it has to
    open connections faster than a page's request is read, a few microseconds, for as long as it wants to.

    A connection that has just arrived is not idle: its request is read a scheduling round after it takes its
    place. Counted idle, it was the only one at a door whose other places a program held with connections that
    each sent a whole request and then read nothing of the answer (shown, kept up to HANDSHAKE_TIMEOUT): that
    program's next newcomer took its place, 9 of 12 page loads in Chromium never got their socket (review
    rv10-web).
    """

    def __init__(self, places: int, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(places, places)
        self._shown: set[Ticket] = set()
        self._since: dict[Ticket, float] = {}
        self._clock = clock

    def enter(self, host: str, on_evict: Callable[[], None] | None = None) -> Ticket | None:
        ticket = super().enter(host, on_evict)
        if ticket is not None:
            self._since[ticket] = self._clock()
        return ticket

    def showed(self, ticket: Ticket) -> None:
        """``ticket``'s connection sent its request: it makes way only once no connection waits idle."""
        if self.held_by(ticket.host) and not ticket.evicted:
            self._shown.add(ticket)

    def leave(self, ticket: Ticket) -> None:
        self._shown.discard(ticket)
        self._since.pop(ticket, None)
        super().leave(ticket)

    def _victim(self, host: str) -> Ticket | None | Literal[False]:
        if len(self) < self.total:
            return None
        now = self._clock()
        held = [ticket for places in self._held.values() for ticket in places]
        idle = [ticket for ticket in held if ticket not in self._shown and now - self._since[ticket] >= FRESH]
        return min(idle or held, key=lambda ticket: ticket.number)


def waiting_room() -> WaitingRoom:
    """The places of connections not yet let in, :data:`MAX_WAITING` of them (:class:`WaitingRoom`)."""
    return WaitingRoom(MAX_WAITING)


_IO_ERRORS = (OSError, trio.BrokenResourceError, trio.ClosedResourceError, LocalProtocolError, RemoteProtocolError)


class WebSocketError(P2phpError):
    """The WebSocket handshake failed or was refused."""


class WebSocket:
    """One open WebSocket over a trio stream (either side), exchanging text messages."""

    def __init__(self, stream: trio.abc.Stream, conn: WSConnection) -> None:
        self._stream = stream
        self._conn = conn
        self._pending: deque[Event] = deque()
        self._send_lock = trio.Lock()
        self.closed = False

    @classmethod
    def upgraded(cls, stream: trio.abc.Stream, headers: list[tuple[bytes, bytes]], target: bytes,
                 trailing: bytes = b"") -> WebSocket:
        """The server side of a handshake whose HTTP request another parser (h11) already read."""
        conn = WSConnection(ConnectionType.SERVER)
        conn.initiate_upgrade_connection(headers, target)
        if trailing:
            conn.receive_data(trailing)
        ws = cls(stream, conn)
        ws._pending.extend(conn.events())  # the handshake's Request event, for answer_handshake()
        return ws

    async def _next_event(self) -> Event | None:
        """The next wsproto event, reading from the network as needed; None at end of stream."""
        while not self._pending:
            try:
                data = await self._stream.receive_some(65536)
            except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            self._conn.receive_data(bytes(data) if data else None)
            self._pending.extend(self._conn.events())
            if not data and not self._pending:
                return None
        return self._pending.popleft()

    async def _send(self, event: Event) -> None:
        data = self._conn.send(event)
        async with self._send_lock:
            await self._stream.send_all(data)

    async def receive_text(self) -> str | None:
        """The next complete message as text, or None once the connection is closed."""
        parts: list[str] = []
        size = 0
        while not self.closed:
            try:
                event = await self._next_event()
                if event is None:
                    self.closed = True
                elif isinstance(event, TextMessage | BytesMessage):
                    chunk = event.data if isinstance(event.data, str) else event.data.decode("utf-8", "replace")
                    size += len(chunk)
                    if size > MAX_LINE:
                        await self.aclose(1009, "message too big")
                        return None
                    parts.append(chunk)
                    if event.message_finished:
                        return "".join(parts)
                elif isinstance(event, Ping):
                    await self._send(event.response())
                elif isinstance(event, CloseConnection):
                    if self._conn.state is ConnectionState.REMOTE_CLOSING:
                        await self._send(event.response())
                    self.closed = True
            except _IO_ERRORS:
                self.closed = True
        await trio.aclose_forcefully(self._stream)
        return None

    async def send_text(self, text: str) -> None:
        """Send one text message (raises an I/O error if the connection is gone)."""
        await self._send(TextMessage(data=text))

    async def aclose(self, code: int = 1000, reason: str = "") -> None:
        """Close politely if still open, then drop the stream."""
        if not self.closed and self._conn.state is ConnectionState.OPEN:
            with contextlib.suppress(*_IO_ERRORS), trio.move_on_after(1):
                await self._send(CloseConnection(code=code, reason=reason))
        self.closed = True
        await trio.aclose_forcefully(self._stream)


def _header(request: Request, name: bytes) -> str | None:
    """The value of one header of a WebSocket handshake request (None if absent)."""
    for key, value in request.extra_headers:
        if bytes(key).lower() == name:
            return bytes(value).decode("latin-1")
    return None


def new_key() -> str:
    """A fresh secret a client must show to open a session (:func:`has_key`): 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def has_key(target: str, key: str) -> bool:
    """Whether a handshake for ``target`` (``/ws?key=…``) carries ``key`` (:func:`carries`)."""
    return carries(target, "key", key)


def carries(target: str, field: str, secret: str) -> bool:
    """Whether ``target``'s query gives ``secret`` as its first ``field`` (compared in constant time). A query of
    more than 8 fields carries none: parse_qs raised, and any program or web page (a WebSocket to
    ``/ws?a&a&a&a&a&a&a&a&a``) had a 21-line traceback logged for each such request (red-team rt10-web)."""
    _, _, query = target.partition("?")
    try:
        given = parse_qs(query, max_num_fields=8).get(field, [""])[0] if query else ""
    except ValueError:
        return False
    return hmac.compare_digest(given.encode(), secret.encode())


NO_KEY = "this address lacks its key: use the address p2php printed (it ends with key=...)"


async def answer_handshake(ws: WebSocket, allowed_origins: Sequence[str],
                           refusal: Callable[[str], str], key: str | None = None) -> bool:
    """Read the client's handshake on ``ws`` and accept it, or refuse with 403: a browser origin not in
    ``allowed_origins`` (``"*"``: any) with ``refusal(origin)``, a handshake without ``key`` (when one is
    required: any program on the machine can reach a loopback port) with :data:`NO_KEY`. False (the stream
    dropped) if refused, broken or too slow."""
    try:
        with trio.fail_after(HANDSHAKE_TIMEOUT):
            event = await ws._next_event()
            if not isinstance(event, Request):
                raise WebSocketError("not a WebSocket handshake")
            origin = _header(event, b"origin")
            if key is not None and not has_key(event.target, key):
                await _refuse(ws, NO_KEY)
            if origin is not None and origin not in allowed_origins and "*" not in allowed_origins:
                await _refuse(ws, refusal(origin))
            await ws._send(AcceptConnection())
    except (WebSocketError, trio.TooSlowError, *_IO_ERRORS):
        await trio.aclose_forcefully(ws._stream)
        return False
    return True


async def _refuse(ws: WebSocket, reason: str) -> NoReturn:
    body = reason.encode()
    await ws._send(RejectConnection(status_code=403, has_body=True,
                                    headers=[(b"content-type", b"text/plain; charset=utf-8")]))
    await ws._send(RejectData(data=body, body_finished=True))
    raise WebSocketError(reason)


def _bridge_refusal(origin: str) -> str:
    return f"origin {origin} is not allowed (start the bridge with --allow-origin {origin})"


async def accept(stream: trio.abc.Stream, allowed_origins: Sequence[str] = (),
                 key: str | None = None) -> WebSocket | None:
    """Serve the handshake of an incoming connection (which must carry ``key``, if given); None if it was refused
    or broken."""
    ws = WebSocket(stream, WSConnection(ConnectionType.SERVER))
    return ws if await answer_handshake(ws, allowed_origins, _bridge_refusal, key) else None


async def connect(host: str, port: int, path: str = "/", origin: str | None = None) -> WebSocket:
    """Open a WebSocket to ``ws://host:port/path`` (a minimal client, for tests and Python scripts)."""
    stream = await trio.open_tcp_stream(host, port)
    conn = WSConnection(ConnectionType.CLIENT)
    ws = WebSocket(stream, conn)
    headers = [(b"origin", origin.encode())] if origin else []
    try:
        with trio.fail_after(HANDSHAKE_TIMEOUT):
            await ws._send(Request(host=f"{host}:{port}", target=path, extra_headers=headers))
            event = await ws._next_event()
            if isinstance(event, RejectConnection):
                body = b""
                while isinstance(more := await ws._next_event(), RejectData):
                    body += more.data
                    if more.body_finished:
                        break
                raise WebSocketError(f"refused ({event.status_code}): {body.decode('utf-8', 'replace')}")
            if not isinstance(event, AcceptConnection):
                raise WebSocketError("the server did not accept the WebSocket handshake")
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    return ws


async def _lines(ws: WebSocket) -> AsyncIterator[str]:
    while (text := await ws.receive_text()) is not None:
        for line in text.split("\n"):  # not splitlines(): JSON strings may hold U+2028, U+0085 ... raw
            yield line


async def _writer(ws: WebSocket, events: trio.MemoryReceiveChannel[dict[str, Any]]) -> None:
    async for obj in events:
        try:
            await ws.send_text(dumps(obj))
        except _IO_ERRORS:
            return


async def run_session(ws: WebSocket) -> None:
    """A bridge session over an accepted WebSocket, until the client quits or disconnects; then close it."""
    tx, rx = trio.open_memory_channel[dict[str, Any]](math.inf)

    def emit(obj: dict[str, Any]) -> None:
        with contextlib.suppress(trio.ClosedResourceError):
            tx.send_nowait(obj)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_writer, ws, rx)
        with tx:
            await BridgeSession(emit).run(paced(_lines(ws), lambda: rx.statistics().current_buffer_used))
    await ws.aclose()


async def serve_connection(stream: trio.abc.Stream, allowed_origins: Sequence[str] = (),
                           key: str | None = None, waiting: Admission | None = None) -> None:
    """One client: handshake, then a bridge session until it quits or disconnects.

    A bug or an input we did not foresee ends this client's session only, never the server (every other
    client's table): it is logged and the connection closed. ``waiting``: the places of connections not yet let
    in (:data:`MAX_WAITING`), one held while the handshake runs.
    """
    place = waiting.enter(host_of(stream)) if waiting is not None else None
    async with stream:  # closed however we leave, cancellation included
        if waiting is not None and place is None:
            return  # too many connections not yet let in
        try:
            with place.scope if place is not None else contextlib.nullcontext():
                ws = await accept(stream, allowed_origins, key)
            if waiting is not None and place is not None:
                waiting.leave(place)  # let in (or refused): it waits no more
            if ws is None:
                return
            await run_session(ws)
        except Exception:
            log.exception("p2php bridge: a client's session failed")
        finally:
            if waiting is not None and place is not None:
                waiting.leave(place)


async def serve(
    host: str, port: int, allowed_origins: Sequence[str] = (), *, key: str | None = None,
    task_status: Any = trio.TASK_STATUS_IGNORED,
) -> None:
    """Accept bridge clients on ``ws://host:port/`` forever (with ``key``: only those whose address carries
    ``?key=KEY``); ``task_status.started(port)`` gives the bound port."""
    listeners = await trio.open_tcp_listeners(port, host=host)
    bound = listeners[0].socket.getsockname()[1]
    task_status.started(bound)
    await trio.serve_listeners(partial(serve_connection, allowed_origins=tuple(allowed_origins), key=key,
                                       waiting=waiting_room()), listeners)


async def serve_forever(host: str, port: int, allowed_origins: Sequence[str] = ()) -> None:
    """``p2php bridge --ws``: serve, and announce the URL as the first line on stdout (for scripts using port 0).

    The URL carries a fresh key (``?key=…``) every client must show: any program on this machine, another user's
    too, can reach a loopback port and send any origin it likes.
    """
    key = new_key()
    async with trio.open_nursery() as nursery:
        bound = await nursery.start(partial(serve, host, port, allowed_origins, key=key))
        shown = f"[{host}]" if ":" in host else host
        url = f"ws://{shown}:{bound}/?key={key}"
        print(json.dumps({"event": "listening", "url": url}), flush=True)
        print(f"p2php bridge: listening on {url} (Ctrl-C to stop)", file=sys.stderr, flush=True)
