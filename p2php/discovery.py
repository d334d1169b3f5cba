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

Nothing in an answer is authenticated, the table id included: anyone on the LAN
sees the broadcast query, can ask a table for its id and answer with that id from
its own address, and can answer one query with thousands of made-up tables.  So a
client lists every distinct (id, address, port) answer and never lets a later one
replace an earlier one from elsewhere (the same id from several places is listed
at each of them and marked, see :class:`Answers`), keeps at most
:data:`MAX_TABLES` of them per query (counting the rest), and
:func:`auto_pick_refusal` tells ``p2php join`` when it must not pick a table by
itself.

The encoding half is sans-IO (:func:`make_query`, :func:`parse_query`,
:func:`make_answer`, :func:`parse_answer`, :class:`Answers`);
:func:`serve_discovery` and :func:`discover` are the trio edges.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket as stdlib_socket
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack
import trio

from p2php import PROTOCOL_VERSION
from p2php.errors import UsageError
from p2php.net.admission import on_this_machine
from p2php.net.framing import FrameError, decode_frame_body
from p2php.net.ports import DISCOVERY_PORT
from p2php.text import LINE, quote, safe

QUERY_MIN = 512
"""Smallest query a host answers (bytes), padding included."""
ANSWER_MAX = 1024
"""Largest answer a host sends (bytes); the seat names are cut to fit."""
NONCE_SIZE = 8
BROADCAST = "255.255.255.255"
MAX_TABLES = 64
"""Most answers one :func:`discover` keeps, and :func:`format_tables` prints: a LAN party has a handful of tables,
and one forged datagram per made-up table must not cost unbounded memory or fill the terminal."""
_IGNORED_TRACKED = 4096
"""Distinct ignored answers remembered, so that one table's repeated answers count once (past this, each counts)."""

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
    contested: bool = False
    """The same table id also answered from another place: one of them may be impersonating the host."""

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
            "names": self.names, "version": self.version, "id": self.table_id.hex(), "contested": self.contested,
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


# ----------------------------------------------------------------------------- collecting answers


def is_own_address(address: str) -> bool:
    """Whether ``address`` is this machine's: loopback, or the address it would send to itself from.

    Connecting a UDP socket sends nothing; it only picks a route and a source
    address, and for one of this machine's own addresses that source is the
    address itself (the local route; RFC 6724's "prefer same address").  Unlike
    a test ``bind()``, this is not fooled by ``ip_nonlocal_bind``.
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if ip.is_loopback:
        return True
    if ip.version != 4:
        return False
    with stdlib_socket.socket(stdlib_socket.AF_INET, stdlib_socket.SOCK_DGRAM) as sock:
        try:
            sock.connect((address, 9))
            return bool(sock.getsockname()[0] == address)
        except OSError:
            return False


class Tables(list[TableInfo]):
    """What :func:`discover` found: the tables, plus how many more answers it ignored past :data:`MAX_TABLES`.

    A list, so that every caller of :func:`discover` keeps working; ``ignored``
    tells a listing (and ``p2php join``) that the table looked for may be missing.
    """

    def __init__(self, tables: Iterable[TableInfo] = (), ignored: int = 0) -> None:
        super().__init__(tables)
        self.ignored = ignored


class Answers:
    """The answers to one query, kept as :func:`discover` receives them (sans-IO).

    Answers are the same table only if they carry the same id from the same
    place: the same address and port, or the same port at two of this machine's
    own addresses (a local host heard on loopback and on the LAN, listed under
    the LAN address).  The same id from another place is *not* merged: the id is
    no secret (any table tells it to whoever asks), so keeping the first answer
    per id let whoever answered first (an impersonator on the LAN) hide the real
    host.  Every such answer is kept and all of them are marked ``contested``.

    At most ``limit`` answers are kept; later new ones are counted in
    ``ignored`` (and still mark a kept answer with their id as contested, so a
    flood cannot hide that the id was claimed twice).
    """

    def __init__(self, limit: int = MAX_TABLES, is_local: Callable[[str], bool] = is_own_address) -> None:
        self.limit = limit
        self.ignored = 0
        self._is_local = is_local
        self._by_id: dict[bytes, list[TableInfo]] = {}
        self._count = 0
        self._ignored_seen: set[tuple[bytes, str, int]] = set()
        self._local: dict[str, bool] = {}  # kept answers' addresses: one look-up each, not one per datagram

    def _kept_is_local(self, address: str) -> bool:
        known = self._local.get(address)
        if known is None:
            known = self._local[address] = self._is_local(address)
        return known

    def add(self, info: TableInfo) -> None:
        """Keep one parsed answer (a repeat of a kept one is dropped; past the limit, a new one is counted)."""
        group = self._by_id.setdefault(info.table_id, [])
        local: bool | None = None  # whether the answer came from this machine, asked at most once

        def same_place(old: TableInfo) -> bool:
            nonlocal local
            if old.port != info.port:
                return False
            if old.address == info.address:
                return True
            if local is None:
                local = self._is_local(info.address)
            return local and self._kept_is_local(old.address)

        for i, old in enumerate(group):
            if same_place(old):
                if on_this_machine(old.address) and not on_this_machine(info.address):
                    group[i] = replace(info, contested=old.contested)  # list a local table under its LAN address
                return
        contested = bool(info.table_id) and bool(group)  # an answer without an id claims no identity
        if contested:
            group[:] = [replace(old, contested=True) for old in group]
        if self._count >= self.limit:
            if not group:
                del self._by_id[info.table_id]
            key = (info.table_id, info.address, info.port)
            if key not in self._ignored_seen:
                self.ignored += 1
                if len(self._ignored_seen) < _IGNORED_TRACKED:
                    self._ignored_seen.add(key)
            return
        group.append(replace(info, contested=contested))
        self._count += 1

    def tables(self) -> Tables:
        """The kept tables, sorted for listing."""
        kept = [t for group in self._by_id.values() for t in group]
        return Tables(sorted(kept, key=lambda t: (t.game, t.address, t.port)), self.ignored)


def _ask_the_host(how: str) -> str:
    return f"{how}; ask the host for its address and run: p2php join ADDRESS --name NAME"


def auto_pick_refusal(found: Sequence[TableInfo], fits: Sequence[TableInfo]) -> str | None:
    """Why ``p2php join`` must not sit by itself at the one table that ``fits`` shows (None: it may, or not one).

    ``found`` is what :func:`discover` returned, ``fits`` the tables of it that
    suit the joiner.  Sitting down unasked is only sound if the listing is the
    whole truth: not if that table's id answered from several places (one of
    them is not the host; it does not matter which of them fit), nor if answers
    were ignored past :data:`MAX_TABLES` (the real table may be among them).
    None as well when ``fits`` is empty or holds several tables: ``join`` already
    refuses those with its own message.  One line, for the error message.
    """
    if not fits or len({t.table_id for t in fits}) > 1 or (len(fits) > 1 and not fits[0].table_id):
        return None
    pick = fits[0]
    if pick.contested:
        places = [f"{safe(t.address, 64)}:{t.port}" for t in found if t.table_id == pick.table_id]
        shown = ", ".join(places[:4]) + (f" and {len(places) - 4} more" if len(places) > 4 else "")
        return _ask_the_host(f"not joining by itself: the same table id answered from several addresses "
                             f"({shown}): someone may be impersonating the host")
    ignored = found.ignored if isinstance(found, Tables) else 0
    if ignored:
        return _ask_the_host(f"not joining by itself: more than {MAX_TABLES} tables answered ({ignored} more "
                             "ignored): someone may be flooding the network")
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
    targets: Iterable[tuple[str, int]], timeout: float = 2.0, repeats: int = 3, limit: int = MAX_TABLES
) -> Tables:
    """Send a query to every target (a few times: UDP may drop one) and collect answers for ``timeout`` s.

    A table answering on several paths of this machine (say loopback and the
    LAN address) is listed once, under its LAN address; the same table id from
    other places is listed at each and marked (see :class:`Answers`).  At most
    ``limit`` answers are kept, the rest counted in the result's ``ignored``.
    """
    nonce = os.urandom(NONCE_SIZE)
    query = make_query(nonce)
    targets = list(targets)
    found = Answers(limit)
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
                if info is not None:
                    found.add(info)

        with trio.move_on_after(timeout):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(send_queries)
                nursery.start_soon(collect)
    return found.tables()


def format_tables(tables: Sequence[TableInfo]) -> list[str]:
    """The human listing printed by ``p2php discover``: at most :data:`MAX_TABLES` tables, warnings last.

    The warnings come last so that they are what stays on the screen; a
    contested table gets no "join with" line, since its address is the question.
    """
    ignored = tables.ignored if isinstance(tables, Tables) else 0
    if not tables and not ignored:
        return ["No open tables found. (Is a host running `p2php host` on this network? "
                f"Firewalls must let UDP port {DISCOVERY_PORT} through.)"]
    shown = 64  # parse_answer cut names to 32 already: room for its cut note
    lines = []
    for t in tables[:MAX_TABLES]:
        # Everything but the numbers is what some datagram said: escaped again here, at print time, so
        # that a TableInfo made any other way than by parse_answer cannot draw on the terminal either.
        items = sorted(t.options.items(), key=lambda kv: (str(type(kv[0])), str(kv[0])))
        opts = " ".join(f"{safe(k, shown)}={safe(v, 64) if isinstance(v, str | int | float | bool) else quote(v)}"
                        for k, v in items)
        seats = f"{t.taken}/{t.players} seated, {t.free} free"
        note = "" if t.compatible else f"  [protocol v{safe(t.version, 12)}: incompatible]"
        note += "  [same table id as another answer: see the warning below]" if t.contested else ""
        where = f"{safe(t.address, 64)}:{t.port}"
        lines.append(f"{where}  {safe(t.game, shown)}  {seats}  host {safe(t.host, shown)}{note}")
        if t.names:
            lines.append(f"    at the table: {', '.join(safe(n, shown) for n in t.names[:16])}"
                         + (f" … (+{len(t.names) - 16} more)" if len(t.names) > 16 else ""))
        lines.append(f"    options: {opts or 'none'}")
        if t.contested:
            lines.append("    ask the host for its address before joining")
        elif t.free and t.compatible:
            lines.append(f"    join with: p2php join {where} --name NAME")
    if len(tables) > MAX_TABLES:
        lines.append(f"… and {len(tables) - MAX_TABLES} more tables not shown")
    if any(t.contested for t in tables):
        lines.append("warning: the same table id answered from several addresses: someone may be impersonating "
                     "the host; ask the host for its address")
    if ignored:
        lines.append(f"warning: {ignored} more answers ignored (at most {MAX_TABLES} are kept): someone may be "
                     "flooding the network; ask the host for its address")
    # One datagram's options map holds ~1000 entries: printed whole, its line ran to 10 000 characters (64 of them
    # a listing). Every line is bounded like any other printed line (escaping again changes nothing).
    return [safe(line, LINE) for line in lines]
