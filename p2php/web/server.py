"""``p2php web``: one local port that serves the browser client's files and its WebSocket to the bridge.

h11 reads each connection's first request, sans-IO like the rest of p2php. ``GET /ws`` with an ``Upgrade:
websocket`` header becomes a bridge session (:class:`~p2php.bridge.session.BridgeSession`, the same JSON
messages as ``p2php bridge --ws``), handed to wsproto without re-reading the request; any other ``GET`` or
``HEAD`` is one of the packaged static files (``p2php/web/static``) or a 404. Nothing else is served: no
directory listing, no file outside the package, one request per connection.

*Who may connect.* A WebSocket on 127.0.0.1 can be opened by every page the user visits, so the upgrade is
accepted only from this server's own origin (``http://127.0.0.1:PORT`` or ``http://localhost:PORT``), and every
page carries a Content-Security-Policy that allows scripts, styles and connections to this origin alone. Any
program on the machine can reach the port too, though, and send any origin it likes (or none): so the upgrade
also needs the server's secret **key**, which ``p2php web`` puts in the address it prints (``#key=…``, a
fragment: browsers never send it in a request, so it appears in no log or ``Referer``), and the page sends it with
its upgrade (``/ws?key=…``). The browser ``p2php web`` starts is never given the key, which every user of the
machine would read in its command line (``ps``, ``/proc/PID/cmdline``): it is given a one-time launch address,
``/launch?once=TOKEN`` (:class:`Launch`), that this server answers once with a redirect to ``/#key=…`` and then
forgets, so the browser's command line holds nothing of use once it has loaded the page; a second use is refused,
in the browser and on the terminal, since it means someone else had the token too. Binding anything but loopback
lets whoever reaches the port and learns the address play your seat: the command warns.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from functools import cache, partial
from importlib import resources
from typing import Any

import h11
import trio
from wsproto.utilities import RemoteProtocolError

from p2php.bridge.ws import (
    HANDSHAKE_TIMEOUT,
    WaitingRoom,
    WebSocket,
    answer_handshake,
    carries,
    new_key,
    run_session,
    waiting_room,
)
from p2php.net.admission import Admission, host_of
from p2php.threads import in_thread, loop_limiter

__all__ = ["MAX_REQUEST", "Launch", "STATIC_TYPES", "help_file", "new_key", "serve", "static_file", "words_file"]

MAX_REQUEST = 16 * 1024
"""Bytes of request head a connection may send before it is dropped."""

STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
"""The only kinds of file served, by suffix."""


def static_file(target: str) -> tuple[bytes, str] | None:
    """The packaged file for a request target (``/`` is ``index.html``), with its content type; None if none.

    Only plain names of files directly in ``static`` with a known suffix: no ``..``, no subfolder, no query.
    """
    name = target.split("?", 1)[0].split("#", 1)[0].lstrip("/") or "index.html"
    suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    if "/" in name or "\\" in name or name.startswith(".") or suffix not in STATIC_TYPES:
        return None
    path = resources.files("p2php.web").joinpath("static", name)
    if not path.is_file():
        return None
    return path.read_bytes(), STATIC_TYPES[suffix]


_REASONS = {200: b"OK", 303: b"See Other", 404: b"Not Found", 405: b"Method Not Allowed", 410: b"Gone"}
log = logging.getLogger(__name__)


def words_file(target: str) -> bytes | None:
    """``/words/GAME.json``: the game's "中文 English" names as the terminal localizes them, per language.

    ``{"en": {"爆破咒 Bombarda": "Bombarda", "爆破咒": "Bombarda", …}, "zh": {"爆破咒 Bombarda": "爆破咒", …}}``: the
    page replaces the longest match first, so a person reads one language (empty maps for a game with one).
    """
    from p2php.engine.registry import game_names

    name = target.split("?", 1)[0].removeprefix("/words/").removesuffix(".json")
    if not target.startswith("/words/") or name not in game_names():
        return None
    return _words_json(name)


@cache
def _words_json(name: str) -> bytes:
    """Built once a game: any program on the machine (or a web page, with a no-cors GET) may ask as often as it likes,
    and each build took milliseconds of the event loop every table of this server shares."""
    import json

    from p2php.terminal import Localizer

    tables = {lang: Localizer(name, lang).table for lang in ("en", "zh")}
    return json.dumps(tables, ensure_ascii=False, sort_keys=True).encode()


def help_file(target: str) -> bytes | None:
    """``/help/GAME.json``: every card, character, skill (sheet, cell …) of the game with its text, per language.

    ``{"en": [entry, …], "zh": [entry, …]}``, entries as :mod:`p2php.gamehelp` builds them from the game's data
    (the same the terminal's ``? NAME`` prints); a game without help gives empty lists.
    """
    from p2php.engine.registry import game_names

    name = target.split("?", 1)[0].removeprefix("/help/").removesuffix(".json")
    if not target.startswith("/help/") or name not in game_names():
        return None
    return _help_json(name)


@cache
def _help_json(name: str) -> bytes:
    """Built once a game, as :func:`_words_json` (a Hogwarts build took ~10 ms of the shared event loop)."""
    import json

    from p2php.gamehelp import help_tables

    return json.dumps(help_tables(name), ensure_ascii=False, sort_keys=True).encode()


def _security_headers(port: int) -> list[tuple[bytes, bytes]]:
    own = f"127.0.0.1:{port} localhost:{port}"
    csp = (f"default-src 'self'; connect-src 'self' ws://{own.replace(' ', ' ws://')}; img-src 'self' data:; "
           "style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
    return [(b"content-security-policy", csp.encode()), (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store")]


async def _read_request(stream: trio.abc.Stream, conn: h11.Connection) -> h11.Request | None:
    size = 0
    while True:
        event = conn.next_event()
        if isinstance(event, h11.Request):
            return event
        if event is h11.NEED_DATA:
            data = await stream.receive_some(4096)
            size += len(data)
            if size > MAX_REQUEST:
                return None
            conn.receive_data(bytes(data))
            continue
        return None  # ConnectionClosed or anything unexpected


async def _respond(stream: trio.abc.Stream, conn: h11.Connection, status: int, body: bytes, content_type: str,
                   port: int, *, head: bool = False, extra: Sequence[tuple[bytes, bytes]] = ()) -> None:
    headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close"), *_security_headers(port), *extra]
    out = conn.send(h11.Response(status_code=status, headers=headers, reason=_REASONS.get(status, b"")))
    if not head:
        out = (out or b"") + (conn.send(h11.Data(data=body)) or b"")
    out = (out or b"") + (conn.send(h11.EndOfMessage()) or b"")
    await stream.send_all(out)


def _found(target: str) -> tuple[bytes, str] | None:
    """(In a worker thread.) The body and content type of a file request, or None: its file is read (and a game's
    words or help built, the first time) off the loop that plays every page's table -- a read on a slow disk (one
    spun down, a USB stick) held it: 0.5 s reads made a page load of 9 files hold it 4.5 s, 1.5 s at a time
    (red-team rt8-disk)."""
    words = words_file(target) or help_file(target)
    return (words, "application/json; charset=utf-8") if words is not None else static_file(target)


class Launch:
    """The one-time address the browser is started on: ``/launch?once=TOKEN`` hands the page its key once.

    A browser's command line is read by every user of the machine, so it must hold nothing that plays the seat
    for long: the first ``GET`` of this address is answered with a redirect to ``/#key=KEY`` (the key in a
    fragment, never sent back in a request or a ``Referer``) and the token is spent. A later use is refused (410)
    and ``warn`` is called, once: whoever came first may have been another user who read the token from that
    command line before the browser loaded it, so the person is told to stop the server and start it again (one
    line however often it is used again: whoever holds the spent token cannot flood the terminal with it). (A file only
    this user may read, as Jupyter's redirect file, is not opened by the snap or flatpak browsers of many Linux
    desktops, which cannot see /tmp, and is left behind when the process is killed.)
    """

    def __init__(self, key: str, warn: Callable[[], None] = lambda: None) -> None:
        self.key = key
        self.token = new_key()
        self.spent = False
        self.warned = False
        self.warn = warn

    def path(self) -> str:
        return f"/launch?once={self.token}"

    def answer(self, target: str) -> tuple[int, bytes, list[tuple[bytes, bytes]]] | None:
        """The status, body and extra headers for ``target`` (a ``GET /launch?…``), or None: not this token."""
        if not carries(target, "once", self.token):
            return None
        if self.spent:
            if not self.warned:
                self.warned = True
                self.warn()
            return 410, LAUNCH_SPENT, []
        self.spent = True
        return 303, b"", [(b"location", f"/#key={self.key}".encode())]


LAUNCH_SPENT = (b"This launch address was already used. Another program on this machine may have read it from the "
                b"browser's command line and taken the key: stop p2php web (Ctrl-C) and start it again, or open the "
                b"address it printed.\n")


FILE_THREADS = 2
"""Worker threads that read files for requests at once, in one loop (a disk that hangs keeps them; the requests
after wait for one, at most their :data:`~p2php.bridge.ws.HANDSHAKE_TIMEOUT`)."""

def _is_upgrade(request: h11.Request) -> bool:
    headers = {k.lower(): v.lower() for k, v in request.headers}
    return b"websocket" in headers.get(b"upgrade", b"") and b"upgrade" in headers.get(b"connection", b"")


async def _bridge(stream: trio.abc.Stream, request: h11.Request, trailing: bytes, origins: Sequence[str],
                  key: str, let_in: Callable[[], None]) -> None:
    ws = WebSocket.upgraded(stream, [(bytes(k), bytes(v)) for k, v in request.headers], request.target, trailing)
    if await answer_handshake(ws, origins, lambda origin: f"origin {origin[:80]} may not use this table", key):
        let_in()  # a page with the key: it no longer counts among the connections waiting at the door
        await run_session(ws)


async def serve_connection(stream: trio.abc.Stream, port: int, key: str, waiting: Admission | None = None,
                           launch: Launch | None = None) -> None:
    """One connection: a static file, or the bridge over a WebSocket at ``/ws`` for a page that holds ``key``.

    A bug or an input we did not foresee ends this connection only, never the server (and so every other
    page's game): it is logged and the connection closed. ``waiting``: the places of connections not yet let in
    (:data:`~p2php.bridge.ws.MAX_WAITING`), one held until a page shows the key or its file is served.
    """
    place = waiting.enter(host_of(stream)) if waiting is not None else None
    if waiting is not None and place is None:
        await trio.aclose_forcefully(stream)
        return

    def let_in() -> None:
        if waiting is not None and place is not None:
            waiting.leave(place)

    def showed() -> None:
        if isinstance(waiting, WaitingRoom) and place is not None:
            waiting.showed(place)

    try:
        with place.scope if place is not None else contextlib.nullcontext():
            await _serve_connection(stream, port, key, let_in, showed, launch)
    except Exception:
        log.exception("p2php web: a connection failed")
    finally:
        let_in()


async def _serve_connection(stream: trio.abc.Stream, port: int, key: str, let_in: Callable[[], None],
                            showed: Callable[[], None] = lambda: None, launch: Launch | None = None) -> None:
    origins = (f"http://127.0.0.1:{port}", f"http://localhost:{port}")
    async with stream:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_REQUEST)
        try:
            request = None
            with trio.move_on_after(HANDSHAKE_TIMEOUT):
                request = await _read_request(stream, conn)
            if request is None:
                return
            showed()  # a whole request: an idle connection makes way for a newcomer before this one does
            target = request.target.decode("latin-1")
            if request.method == b"GET" and target.split("?", 1)[0] == "/ws" and _is_upgrade(request):
                await _bridge(stream, request, bytes(conn.trailing_data[0]), origins, key, let_in)
                return
            with trio.move_on_after(HANDSHAKE_TIMEOUT):
                if request.method not in (b"GET", b"HEAD"):
                    await _respond(stream, conn, 405, b"only GET\n", "text/plain; charset=utf-8", port,
                                   extra=[(b"allow", b"GET, HEAD")])
                    return
                if launch is not None and target.split("?", 1)[0] == "/launch":
                    answer = launch.answer(target) if request.method == b"GET" else None
                    if answer is not None:
                        status, body, extra = answer
                        await _respond(stream, conn, status, body, "text/plain; charset=utf-8", port, extra=extra)
                        return
                files = loop_limiter("web_files", FILE_THREADS)  # (the loop's own pool; bounded: the scope above)
                found = await in_thread(_found, target, limiter=files)
                head = request.method == b"HEAD"
                if found is None:
                    await _respond(stream, conn, 404, b"not found\n", "text/plain; charset=utf-8", port, head=head)
                    return
                body, kind = found
                await _respond(stream, conn, 200, body, kind, port, head=head)
        except (h11.ProtocolError, RemoteProtocolError, OSError, trio.BrokenResourceError, trio.ClosedResourceError):
            return  # (wsproto's: an upgrade without its WebSocket headers, from anyone: not a bug of ours to log)


async def serve(host: str, port: int, *, key: str, launch: Launch | None = None,
                task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Serve the browser client on ``http://host:port/`` forever; ``task_status.started(port)`` gives the port.

    Only a page opened at ``http://host:port/#key=KEY`` plays: its WebSocket must carry ``key`` (a secret the
    caller makes, such as :func:`new_key`). Any program on this machine can reach a loopback port, and another
    user's must not play the seat, nor have the bridge write transcripts where it likes. ``launch``: the one-time
    address the browser is started on (:class:`Launch`), if any.
    """
    listeners = await trio.open_tcp_listeners(port, host=host)
    bound = listeners[0].socket.getsockname()[1]
    task_status.started(bound)
    await trio.serve_listeners(partial(serve_connection, port=bound, key=key,
                                       waiting=waiting_room(), launch=launch), listeners)
