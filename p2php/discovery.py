# mypy: disable-error-code="import-untyped"
"""Finding open tables on the LAN: one UDP query, one unicast answer per table.

Why UDP broadcast (and not multicast or mDNS):

* **No new dependency.**  mDNS (python-zeroconf) would add a package and share
  port 5353 with the system's own responder (avahi, Bonjour), whose behaviour
  differs per OS; a game lobby needs none of DNS-SD's generality.
* **Works on any IPv4 LAN as it is.**  A limited broadcast (255.255.255.255)
  reaches every host of the local segment without group membership; multicast
  depends on IGMP snooping and is often dropped or rate-limited by home Wi-Fi
  access points.  Like multicast, broadcast never crosses a router, which is
  exactly the reach a LAN party wants.
* **Query/answer, not periodic announcements.**  Nothing is sent while nobody
  looks, an answer arrives at once (no waiting for the next announcement), and
  each answer describes the table *now* (seats taken, free).
* **Testable on loopback.**  The same query can be sent to any unicast address
  (``p2php discover --to 127.0.0.1``) and the host can bind its responder to
  127.0.0.1, so tests never emit a packet off the machine.

Datagrams are single msgpack maps (no length prefix: a datagram is delimited),
decoded by the same defensive decoder as every frame (see protocol.md §3.4):

* query  ``{"p2php": "discover", "v": 1, "nonce": bin(8), "pad": bin}``, at least
  :data:`QUERY_MIN` bytes long so that an answer is never more than about twice
  the size of the query that caused it (a spoofed query gains an attacker little);
* answer ``{"p2php": "table", "v": 1, "nonce": <the query's>, "id": bin(8),
  "game": str, "options": map, "players": int, "taken": int, "names": [str…],
  "host": str, "port": int}``, at most :data:`ANSWER_MAX` bytes.

Several hosts on one machine can answer on the same UDP port: the responder
sets ``SO_REUSEADDR``/``SO_REUSEPORT`` so every one of them receives broadcast
queries (unicast queries reach only one of them — give each a ``--discovery-port``
when that matters).

The encoding half is sans-IO (:func:`make_query`, :func:`parse_query`,
:func:`make_answer`, :func:`parse_answer`); :func:`serve_discovery` and
:func:`discover` are the trio edges.
"""

from __future__ import annotations

import contextlib
import os
import socket as stdlib_socket
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack
import trio

from p2php import PROTOCOL_VERSION
from p2php.errors import UsageError
from p2php.net.framing import FrameError, decode_frame_body
from p2php.net.ports import DISCOVERY_PORT
from p2php.text import quote, safe

QUERY_MIN = 512
"""Smallest query a host answers (bytes), padding included."""
ANSWER_MAX = 1024
"""Largest answer a host sends (bytes); the seat names are cut to fit."""
NONCE_SIZE = 8
BROADCAST = "255.255.255.255"

Summary = Mapping[str, Any]
"""What a host says about its table: game, options, players, taken, names, host, port, id."""


@dataclass(frozen=True)
class TableInfo:
    """One open table as ``p2php discover`` lists it."""

    address: str
    port: int
    game: str
    options: dict[str, Any]
    players: int
    taken: int
    host: str
    names: list[str] = field(default_factory=list)
    table_id: bytes = b""
    version: int = PROTOCOL_VERSION

    @property
    def free(self) -> int:
        return max(0, self.players - self.taken)

    @property
    def compatible(self) -> bool:
        return self.version == PROTOCOL_VERSION

    def as_json(self) -> dict[str, Any]:
        """A plain dict for ``p2php discover --json`` (and scripts driving it)."""
        return {
            "address": f"{self.address}:{self.port}", "game": self.game, "options": self.options,
            "players": self.players, "taken": self.taken, "free": self.free, "host": self.host,
            "names": self.names, "version": self.version, "id": self.table_id.hex(),
        }


# ----------------------------------------------------------------------------- sans-IO encoding


def _pack(obj: dict[str, Any]) -> bytes:
    data: bytes = msgpack.packb(obj, use_bin_type=True)
    return data


def _unpack(data: bytes) -> dict[str, Any] | None:
    """Decode a datagram defensively; anything malformed is simply not ours (None)."""
    if not data or len(data) > 4 * ANSWER_MAX:
        return None
    try:
        return decode_frame_body(data)
    except FrameError:
        return None


def make_query(nonce: bytes, version: int = PROTOCOL_VERSION) -> bytes:
    """A discovery query, padded to :data:`QUERY_MIN` bytes."""
    base = {"p2php": "discover", "v": version, "nonce": nonce, "pad": b""}
    pad = max(0, QUERY_MIN - len(_pack(base)))  # the pad's own header only grows, so this is enough
    return _pack({**base, "pad": bytes(pad)})


def parse_query(data: bytes) -> bytes | None:
    """The nonce of a well-formed, big-enough query (any version: answers say ours), else None."""
    if len(data) < QUERY_MIN:
        return None
    query = _unpack(data)
    if query is None or query.get("p2php") != "discover":
        return None
    nonce = query.get("nonce")
    if not isinstance(nonce, bytes) or len(nonce) != NONCE_SIZE:
        return None
    return nonce


def make_answer(nonce: bytes, summary: Summary) -> bytes | None:
    """The answer to a query: the table's summary, seat names dropped from the end to fit (None: cannot fit)."""
    names = [str(n) for n in summary.get("names", [])]
    while True:
        answer = {
            "p2php": "table", "v": PROTOCOL_VERSION, "nonce": nonce, "id": bytes(summary.get("id", b"")),
            "game": str(summary["game"]), "options": dict(summary["options"]),
            "players": int(summary["players"]), "taken": int(summary["taken"]), "names": names,
            "host": str(summary["host"]), "port": int(summary["port"]),
        }
        data = _pack(answer)
        if len(data) <= ANSWER_MAX:
            return data
        if not names:
            return None  # options too big to describe: stay silent rather than break the size promise
        names = names[:-1]


def _text(value: object, limit: int = 64) -> str:
    """A remote string made safe to print: control characters escaped, bounded length (see :func:`p2php.text.safe`)."""
    return safe(value, limit)


def parse_answer(data: bytes, nonce: bytes, source: str) -> TableInfo | None:
    """A :class:`TableInfo` from an answer to *our* query (matching nonce), else None."""
    answer = _unpack(data)
    if answer is None or answer.get("p2php") != "table" or answer.get("nonce") != nonce:
        return None
    try:
        version = answer["v"]
        options = answer["options"]
        players, taken, port = answer["players"], answer["taken"], answer["port"]
        if not (isinstance(version, int) and isinstance(options, dict) and isinstance(players, int)
                and isinstance(taken, int) and isinstance(port, int) and 0 < port < 65536):
            return None
        names = answer.get("names", [])
        table_id = answer.get("id", b"")
        return TableInfo(
            address=source, port=port, game=_text(answer["game"], 32),
            options={_text(k, 32): v if isinstance(v, int | bool) else _text(v) for k, v in options.items()},
            players=players, taken=taken, host=_text(answer["host"], 32),
            names=[_text(n, 32) for n in names] if isinstance(names, list) else [],
            table_id=table_id if isinstance(table_id, bytes) else b"", version=version,
        )
    except KeyError:
        return None


# ----------------------------------------------------------------------------- trio edges


def parse_target(text: str, default_port: int = DISCOVERY_PORT) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT`` or ``[V6]:PORT`` to an address pair (UsageError, a ValueError, if malformed)."""
    host, port = text, default_port
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest:
            if not rest.startswith(":") or not rest[1:].isdigit():
                raise UsageError(f"expected [ADDRESS]:PORT, got {text!r}")
            port = int(rest[1:])
    elif text.count(":") == 1:
        host, _, raw = text.partition(":")
        if not raw.isdigit():
            raise UsageError(f"expected HOST:PORT, got {text!r}")
        port = int(raw)
    if not host or not 0 < port < 65536:
        raise UsageError(f"expected HOST or HOST:PORT, got {text!r}")
    return host, port


async def open_responder(bind: str, port: int) -> trio.socket.SocketType:
    """The host's UDP socket, shared with other hosts on this machine (see the module docstring)."""
    sock = trio.socket.socket(stdlib_socket.AF_INET, stdlib_socket.SOCK_DGRAM)
    try:
        sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_REUSEADDR, 1)
        if hasattr(stdlib_socket, "SO_REUSEPORT"):
            with contextlib.suppress(OSError):
                sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_REUSEPORT, 1)
        await sock.bind((bind, port))
    except BaseException:
        sock.close()
        raise
    return sock


async def serve_discovery(sock: trio.socket.SocketType, summary: Callable[[], Summary | None]) -> None:
    """Answer every well-formed query with ``summary()`` (None: the table is closed, stay silent).

    Runs until cancelled.  A malformed or undersized datagram is ignored without
    an answer, so the responder cannot be used to reflect traffic at a larger size.
    """
    while True:
        try:
            data, source = await sock.recvfrom(4 * ANSWER_MAX)
        except OSError:
            continue  # e.g. an ICMP error for an earlier answer; keep serving
        nonce = parse_query(data)
        current = summary()
        if nonce is None or current is None:
            continue
        answer = make_answer(nonce, current)
        if answer is not None:
            with contextlib.suppress(OSError):
                await sock.sendto(answer, source)


async def discover(
    targets: Iterable[tuple[str, int]], timeout: float = 2.0, repeats: int = 3
) -> list[TableInfo]:
    """Send a query to every target (a few times: UDP may drop one) and collect answers for ``timeout`` s.

    A table answering on several paths (say loopback and the LAN address) is
    listed once, under its first non-loopback address.
    """
    nonce = os.urandom(NONCE_SIZE)
    query = make_query(nonce)
    targets = list(targets)
    found: dict[bytes | tuple[str, int], TableInfo] = {}
    sock = trio.socket.socket(stdlib_socket.AF_INET, stdlib_socket.SOCK_DGRAM)
    with sock:
        sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_BROADCAST, 1)
        await sock.bind(("0.0.0.0", 0))

        async def send_queries() -> None:
            for _ in range(max(1, repeats)):
                for target in targets:
                    with contextlib.suppress(OSError):  # e.g. no route for a broadcast: other targets still go
                        await sock.sendto(query, target)
                await trio.sleep(timeout / max(1, repeats))

        async def collect() -> None:
            while True:
                try:
                    data, source = await sock.recvfrom(4 * ANSWER_MAX)
                except OSError:
                    continue
                info = parse_answer(data, nonce, str(source[0]))
                if info is None:
                    continue
                key: bytes | tuple[str, int] = info.table_id or (info.address, info.port)
                old = found.get(key)
                if old is None or (old.address.startswith("127.") and not info.address.startswith("127.")):
                    found[key] = info

        with trio.move_on_after(timeout):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(send_queries)
                nursery.start_soon(collect)
    return sorted(found.values(), key=lambda t: (t.game, t.address, t.port))


def format_tables(tables: list[TableInfo]) -> list[str]:
    """The human listing printed by ``p2php discover``."""
    if not tables:
        return ["No open tables found. (Is a host running `p2php host` on this network? "
                f"Firewalls must let UDP port {DISCOVERY_PORT} through.)"]
    shown = 64  # parse_answer cut names to 32 already: room for its cut note
    lines = []
    for t in tables:
        # Everything but the numbers is what some datagram said: escaped again here, at print time, so
        # that a TableInfo made any other way than by parse_answer cannot draw on the terminal either.
        items = sorted(t.options.items(), key=lambda kv: (str(type(kv[0])), str(kv[0])))
        opts = " ".join(f"{safe(k, shown)}={safe(v, 64) if isinstance(v, str | int | float | bool) else quote(v)}"
                        for k, v in items)
        seats = f"{t.taken}/{t.players} seated, {t.free} free"
        note = "" if t.compatible else f"  [protocol v{safe(t.version, 12)}: incompatible]"
        where = f"{safe(t.address, 64)}:{t.port}"
        lines.append(f"{where}  {safe(t.game, shown)}  {seats}  host {safe(t.host, shown)}{note}")
        if t.names:
            lines.append(f"    at the table: {', '.join(safe(n, shown) for n in t.names[:16])}"
                         + (f" … (+{len(t.names) - 16} more)" if len(t.names) > 16 else ""))
        lines.append(f"    options: {opts or 'none'}")
        if t.free and t.compatible:
            lines.append(f"    join with: p2php join {where} --name NAME")
    return lines
