"""The lobby: a table where peers on different machines sit down before a game.

The host is only a meeting point.  It keeps the list of seats (who sits where,
who is a bot, who is ready), shows it to everyone, and once every seat is taken
and every person is ready it tells each seated peer where the others listen.
Then the lobby connections close, every peer forms the full mesh itself, and the
host is a peer like any other: it holds no key, deals nothing, and learns nothing
more than the others do.  A lying host can at worst seat people badly; it cannot
see or change a card, because everything after the lobby is signed and checked
by every peer.

The wire format is documented in protocol.md §3.3.  In short (length-prefixed
msgpack frames, 64 KiB limit):

* joiner → host ``join`` (name, the joiner's listen port, optionally the game
  and options it insists on), then ``ready`` / ``leave``;
* host → joiner ``welcome`` (your seat) or ``refused`` (code and reason), then
  ``table`` on every change and every :data:`HEARTBEAT` seconds, finally
  ``start`` (every seat's address) or ``closed``.

The code is split the h11 way: :class:`Table` (the host's seat book) and
:class:`JoinSession` (a joiner's view) are sans-IO state machines that only
turn frames into decisions; :class:`HostLobby` and :func:`join_table` move the
frames over trio streams.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import trio

from p2php import PROTOCOL_VERSION
from p2php.engine.contract import Game, OptionError
from p2php.engine.registry import get_game
from p2php.errors import P2phpError, RefusalCode
from p2php.net.admission import Admission, Ticket, host_of, on_this_machine
from p2php.net.framing import FrameDecoder, FrameError, encode_frame
from p2php.net.invite import InviteError, parse_locator
from p2php.net.ratelimit import TokenBucket
from p2php.net.transport import Listener, Stream
from p2php.text import NAME, lookalike_keys, quote, safe, seats_named

LOBBY_FRAME = 64 * 1024
"""Largest lobby frame body (bytes)."""
NAME_MAX = 24
"""Longest player name (characters)."""
SHOWN = 64
"""Characters of a name shown in a table view (a name cut by :func:`parse_table` keeps its cut note)."""
HELLO_TIMEOUT = 10.0
"""Seconds a new connection has to send its ``join``, and a joiner waits for the answer."""
HEARTBEAT = 10.0
"""The host re-sends the table this often, so a joiner can tell a quiet lobby from a dead host."""
HOST_SILENCE = 45.0
"""A joiner that hears nothing from the host for this long gives up."""
START_FLUSH = 5.0
"""Seconds the host waits for the ``start`` frames to leave before it starts its own peers."""
MAX_CONNECTIONS = 64
"""Connections a host serves at once before they join (a seated joiner no longer counts: the seats bound those).
Beyond it a newcomer takes the place of the oldest of the remote host holding the most, or is closed at once
(:mod:`p2php.net.admission`): an outsider holding every place would keep everyone out of the lobby."""

JOINER_FRAMES = (16, 0.5)
"""A seated joiner's frames: a burst of 16, then one every 0.5 s. Each one costs the host a line on screen and a
table frame to every joiner; a person saying ready, or not, never comes near it. Beyond it the joiner is dropped."""
OUTBOX_FRAMES = 64
"""Frames waiting for one joiner to read them; a joiner that lets more wait does not read the table: dropped."""
SEATS_PER_HOST = 4
"""Seats one remote host (an IP address, an IPv6 /64, or a relayed online joiner's peer id) may take at a table;
joiners on the host's own machine are not counted. One outsider that took every free seat under several names,
and never said ready, kept a table from ever starting (the host can also remove a joiner: :meth:`HostLobby.remove`).
Four, not fewer: a household joining an online table from home is one IP."""

HOST, BOT, HUMAN = "host", "bot", "human"
SEAT_KINDS = (HOST, BOT, HUMAN)

Address = tuple[str | None, int]
"""A seat's listener: (IP, port); IP None means "on the host's machine"."""


class LobbyError(P2phpError):
    """The rendezvous failed; the message says why, for a person to read."""


class Refusal(LobbyError):
    """The host refused a join; ``code`` (a :class:`~p2php.errors.RefusalCode`) says why."""

    def __init__(self, code: RefusalCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class LobbyClosed(LobbyError):
    """The table was closed before the game started (by the host, or the joiner left)."""


def clean_text(value: object, limit: int = 64) -> str:
    """A string from the network made safe to print: control characters replaced by ``?``, length bounded.

    Names travel to every terminal at the table; without this a joiner could
    send escape sequences that rewrite other people's screens.  This is the older,
    lossy form, kept for callers outside the lobby; the lobby itself uses
    :func:`p2php.text.safe`, which shows *what* was sent (``\x1b``, not ``?``) and
    says how much was cut.
    """
    return "".join(c if c.isprintable() else "?" for c in str(value))[:limit]


def check_name(name: object) -> str:
    """A valid player name, or Refusal(NAME): 1–24 printable characters, no outer spaces."""
    if not isinstance(name, str) or not name or name != name.strip():
        raise Refusal(RefusalCode.NAME, "a name must be a non-empty string without leading or trailing spaces")
    if len(name) > NAME_MAX:
        raise Refusal(RefusalCode.NAME, f"the name {quote(name, 40)} is longer than {NAME_MAX} characters")
    if not name.isprintable():
        raise Refusal(RefusalCode.NAME, "a name may contain only printable characters")
    return name


def _option_value(value: object) -> str:
    if isinstance(value, str | int | float | bool) or value is None:
        return safe(value, 60)
    return quote(value, 60)  # a list or map from a remote table: bounded, never printed whole


def format_options(options: Mapping[Any, Any]) -> str:
    """``k=v, …`` for people.  Escaped and bounded: a joiner prints the options a remote host sent,
    keys of any type included (sorted by their text, so mixed key types cannot make the sort raise)."""
    items = sorted(options.items(), key=lambda kv: (str(type(kv[0])), str(kv[0])))
    return ", ".join(f"{safe(k, NAME)}={_option_value(v)}" for k, v in items) or "none"


# ----------------------------------------------------------------------------- host side, sans-IO


@dataclass
class SeatState:
    """One seat in the host's book."""

    seat: int
    name: str = ""
    kind: str = ""  # "" while empty
    ready: bool = False
    ip: str | None = None  # None: a peer on the host's machine
    port: int = 0
    conn: int | None = None  # the lobby connection of a remote person
    source: str = ""  # where that connection comes from (a host_key); "" on the host's machine

    @property
    def empty(self) -> bool:
        return not self.kind


class Table:
    """The host's seat book (sans-IO): decides joins, readiness, leaving and the start.

    Every method that changes the table appends a line for people to
    :attr:`log`; the I/O layer drains it and re-sends :meth:`table_frame`.
    """

    def __init__(self, game: Game, options: Mapping[str, Any], players: int, host: str,
                 table_id: bytes | None = None, online: bool = False) -> None:
        """``online``: joiners come over libp2p and each says in its ``join`` where its seat is reached
        (``addr``, a seat locator, protocol.md §3.7) instead of the host reading an IP off the connection."""
        game.check_players(players)
        self.online = online
        self.opened_with = dict(options)  # what a seat's own options go back to when its player leaves
        self.game = game
        self.options = dict(options)
        self.players = players
        self.host = check_name(host)
        self.table_id = table_id if table_id is not None else os.urandom(8)
        self.seats = [SeatState(i) for i in range(players)]
        self.started = False
        self.closed = False
        self.log: list[str] = []
        self.removed: set[str] = set()  # sources of joiners the host removed: not seated again at this table

    # ---- queries

    def seated(self) -> list[SeatState]:
        return [s for s in self.seats if not s.empty]

    def free_seats(self) -> list[int]:
        return [s.seat for s in self.seats if s.empty]

    def by_conn(self, conn: int) -> SeatState | None:
        return next((s for s in self.seats if s.conn == conn and not s.empty), None)

    def can_start(self) -> bool:
        """Every seat taken and every person (bots are always ready) ready, and the options make a game."""
        return (not self.started and not self.closed and all(not s.empty and s.ready for s in self.seats)
                and self.problem() is None)

    def problem(self, options: Mapping[str, Any] | None = None) -> str | None:
        """Why these options (default: the table's) make no game yet (a seat still to bring its own deck), or None."""
        opts = self.options if options is None else options
        try:
            self.game.new_state(self.players, {k: v for k, v in opts.items() if k in self.game.options})
        except OptionError as err:
            return str(err)
        return None

    def table_frame(self) -> dict[str, Any]:
        return {
            "lobby": "table", "v": PROTOCOL_VERSION, "game": self.game.name, "options": dict(self.options),
            "players": self.players, "host": self.host,
            "seats": [{"seat": s.seat, "name": s.name or None, "kind": s.kind or None, "ready": s.ready}
                      for s in self.seats],
        }

    def summary(self) -> dict[str, Any] | None:
        """What discovery answers say about this table (None once it started or closed)."""
        if self.started or self.closed:
            return None
        return {"game": self.game.name, "options": dict(self.options), "players": self.players,
                "taken": len(self.seated()), "names": [s.name for s in self.seated()], "host": self.host,
                "id": self.table_id}

    def drain_log(self) -> list[str]:
        out, self.log = self.log, []
        return out

    # ---- changes

    def _take(self, name: str, kind: str, ip: str | None, port: int, conn: int | None, ready: bool) -> int:
        if self.started or self.closed:
            raise Refusal(RefusalCode.CLOSED, "the game at this table has already started" if self.started
                          else "the table is closed")
        free = self.free_seats()
        if not free:
            taken = ", ".join(s.name for s in self.seated())
            raise Refusal(RefusalCode.FULL, f"the table is full ({self.players}/{self.players}: {taken})")
        keys = lookalike_keys(name)
        alike = next((s.name for s in self.seated() if lookalike_keys(s.name) & keys), None)
        if alike is not None:  # "Аnn" with a Cyrillic "А" would read as Ann's seat on every screen
            taken = "is already taken" if alike.casefold() == name.casefold() else f"looks like {quote(alike, 40)}"
            raise Refusal(RefusalCode.NAME,
                          f"the name {quote(name, 40)} {taken} at this table; pick another with --name")
        seat = self.seats[free[0]]
        seat.name, seat.kind, seat.ip, seat.port, seat.conn = name, kind, ip, port, conn
        seat.ready = ready or kind == BOT
        return seat.seat

    def seat_local(self, name: str, kind: str, port: int, ready: bool = False, addr: str | None = None) -> int:
        """Seat a peer running in the host's process (the host's own seat, a bot); ``addr``: its locator online."""
        seat = self._take(check_name(name), kind, addr, port, None, ready)
        self.log.append(f"{name} sits at seat {seat}" + (" (bot)" if kind == BOT else ""))
        return seat

    def bot_name(self) -> str:
        """The first ``botN`` name not yet taken, nor drawn like a taken one (a host or joiner named "botl" would
        have every ``bot1`` refused: :meth:`_take` compares names by :func:`lookalike_keys`)."""
        taken = frozenset().union(*(lookalike_keys(s.name) for s in self.seated()))
        return next(f"bot{i}" for i in range(1, self.players + 2) if not lookalike_keys(f"bot{i}") & taken)

    def join(self, conn: int, frame: Mapping[str, Any], ip: str | None, source: str = "") -> int:
        """Seat a remote person from their ``join`` frame; the seat, or :class:`Refusal`.

        ``source``: where the connection comes from (:func:`~p2php.net.admission.host_key`; "" on the host's
        machine): at most :data:`SEATS_PER_HOST` seats each, and none for one the host removed.
        """
        if frame.get("lobby") != "join":
            raise Refusal(RefusalCode.MALFORMED, "this is a p2php table; expected a join request")
        version = frame.get("v")
        if version != PROTOCOL_VERSION:
            raise Refusal(RefusalCode.VERSION, f"protocol version mismatch: this table speaks p2php protocol "
                                     f"v{PROTOCOL_VERSION}, you speak v{safe(version, 12)}")
        port = frame.get("port")
        if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
            raise Refusal(RefusalCode.MALFORMED, "the join request has no valid listen port")
        name = check_name(frame.get("name"))
        wanted_game = frame.get("game")
        if wanted_game is not None and wanted_game != self.game.name:
            raise Refusal(RefusalCode.GAME, f"game mismatch: this table plays {self.game.name}, "
                                  f"you asked for {safe(wanted_game, 32)}")
        wanted = frame.get("options") or {}
        if not isinstance(wanted, dict):
            raise Refusal(RefusalCode.MALFORMED, "the join request's options are not a map")
        self._check_options(wanted)
        if self.online:
            ip = self._locator(frame.get("addr"))
        if source and source in self.removed:
            raise Refusal(RefusalCode.REFUSED, "the host removed you from this table")
        if source and sum(s.source == source for s in self.seated()) >= SEATS_PER_HOST:
            raise Refusal(RefusalCode.REFUSED, f"this table already seats {SEATS_PER_HOST} players from your "
                                               f"address")
        seat = self._take(name, HUMAN, ip, port, conn, False)
        self.seats[seat].source = source
        where = "this machine" if ip is None else ("the internet" if self.online else ip)
        self.log.append(f"{name} joined from {where} and sits at seat {seat} ({len(self.seated())}/{self.players})")
        return seat

    @staticmethod
    def _locator(raw: object) -> str:
        if not isinstance(raw, str):
            raise Refusal(RefusalCode.MALFORMED, "this is an online table: the join request must say where "
                                                 "your seat is reached (addr)")
        try:
            parse_locator(raw)
        except InviteError as err:
            raise Refusal(RefusalCode.MALFORMED, f"the join request's addr is not a seat locator: {err}") from None
        return raw

    def _check_options(self, wanted: Mapping[str, Any]) -> None:
        """Refuse a joiner who insists on an option value this table does not play."""
        mismatches = []
        known = ", ".join(sorted(self.game.options)) or "none"
        for key, raw in sorted(wanted.items()):
            value = self._parsed(key, raw, f"option mismatch: {self.game.name} has no option {quote(key, 32)} "
                                           f"(known: {known})", "option mismatch")
            if value != self.options.get(key):
                mismatches.append(f"you asked for {key}={safe(value, 64)}, this table plays "
                                  f"{key}={safe(self.options.get(key), 64)}")
        if mismatches:
            raise Refusal(RefusalCode.OPTIONS, "option mismatch: " + "; ".join(mismatches))

    def set_ready(self, seat: int, ready: bool = True) -> None:
        s = self.seats[seat]
        if s.empty or s.ready == ready:
            return
        s.ready = ready
        self.log.append(f"{s.name} is {'ready' if ready else 'no longer ready'}")

    def receive(self, conn: int, frame: Mapping[str, Any]) -> bool:
        """A frame from a seated joiner; False if the connection should end (leave, or nonsense)."""
        seat = self.by_conn(conn)
        if seat is None:
            return False
        kind = frame.get("lobby")
        if kind == "ready" and isinstance(frame.get("ready", True), bool):
            problem = self.problem()
            if frame.get("ready", True) and problem is not None and seat.seat in self._needy(problem):
                raise Refusal(RefusalCode.OPTIONS, f"this table cannot start with your seat as it is: "
                                                   f"{safe(problem, 160)} (bring your own deck with --deck FILE)")
            self.set_ready(seat.seat, bool(frame.get("ready", True)))
            return True
        if kind == "leave":
            self.leave(conn)
            return False
        if kind == "deck" and not seat.ready:
            self.set_seat_options(seat.seat, frame.get("options"))
            return True
        self.log.append(f"{seat.name} sent an unexpected lobby frame and is dropped")
        self.leave(conn)
        return False

    def _parsed(self, key: str, raw: object, unknown: str, context: str) -> object:
        """``raw`` parsed by the game's option ``key``; a :class:`Refusal` (``options``) saying ``unknown`` for
        an option the game lacks, or ``context: why`` for a value it refuses."""
        spec = self.game.options.get(key)
        if spec is None:
            raise Refusal(RefusalCode.OPTIONS, unknown)
        try:
            return spec.parse(key, raw)
        except OptionError as err:
            raise Refusal(RefusalCode.OPTIONS, f"{context}: {safe(err, 120)}") from None

    def _needy(self, problem: str) -> list[int]:
        """The seats a problem names (``seat N``), or every seat if it names none."""
        every = [s.seat for s in self.seats]
        return seats_named(problem, every) or every

    def set_seat_options(self, seat: int, raw: object) -> None:
        """A joiner's own deck: the options of its seat it sets (``Game.seat_options``), before it is ready.

        Every other option the deck implies must be what the table already plays (a starter table takes no
        60-card deck); the result must still make a game. :class:`Refusal` (``options``) says what does not fit.
        """
        if not (isinstance(raw, dict) and len(raw) <= 8 and all(
                isinstance(k, str) and isinstance(v, str) and len(k) <= 32 and len(v) <= 64 for k, v in raw.items())):
            raise Refusal(RefusalCode.MALFORMED, "the deck frame's options are not a short map of strings")
        mine = self.game.seat_options(seat)
        new = dict(self.options)
        for key, value in sorted(raw.items()):
            parsed = self._parsed(key, value, f"your deck sets option {quote(key, 32)}, which {self.game.name} "
                                              "does not have", "your deck")
            if key in mine:
                new[key] = parsed
            elif parsed != self.options.get(key):
                raise Refusal(RefusalCode.OPTIONS, f"your deck needs {key}={safe(value, 64)}, and this table "
                                                   f"plays {key}={self.options.get(key)} (the host sets it)")
        problem = self.problem(new)
        if problem is not None and seat in self._needy(problem):
            raise Refusal(RefusalCode.OPTIONS, f"your deck does not fit this table: {safe(problem, 160)}")
        if new != self.options:
            self.options = new
            shown = ", ".join(f"{k}={new[k]}" for k in sorted(raw) if k in mine)
            self.log.append(f"{self.seats[seat].name} brings their own deck ({safe(shown, 120)})")

    def remove(self, seat: int) -> int:
        """The host removes the remote person at ``seat`` (before the start): the seat is free again and that
        person's source may not sit down again at this table. Returns its lobby connection; :class:`LobbyError`
        for a seat with no remote person."""
        s = self.seats[seat] if 0 <= seat < self.players else None
        if s is None or s.empty or s.conn is None or self.started:
            raise LobbyError(f"seat {seat} has no joiner to remove")
        conn = s.conn
        if s.source:
            self.removed.add(s.source)
        self.leave(conn, "was removed by the host")
        return conn

    def leave(self, conn: int, why: str = "left") -> None:
        """Free the seat of ``conn`` (a closed connection, or a ``leave``); no-op once started."""
        seat = self.by_conn(conn)
        if seat is None or self.started:
            return
        self.log.append(f"{seat.name} {why}; seat {seat.seat} is free again")
        self.seats[seat.seat] = SeatState(seat.seat)
        for key in self.game.seat_options(seat.seat):  # its own deck leaves with it
            if key in self.opened_with:
                self.options[key] = self.opened_with[key]
            else:
                self.options.pop(key, None)

    def start(self) -> dict[str, Any]:
        """Mark the table started and return the ``start`` frame (every seat's address)."""
        assert self.can_start()
        self.started = True
        self.log.append("everyone is ready: the game starts")
        return {"lobby": "start", "v": PROTOCOL_VERSION, "addresses": [[s.ip, s.port] for s in self.seats]}

    def addresses(self) -> list[Address]:
        return [(s.ip, s.port) for s in self.seats]

    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def view(self) -> TableView:
        return parse_table(self.table_frame())


# ----------------------------------------------------------------------------- joiner side, sans-IO


@dataclass(frozen=True)
class SeatView:
    seat: int
    name: str | None
    kind: str | None
    ready: bool


@dataclass(frozen=True)
class TableView:
    """The table as a ``table`` frame shows it (names already made safe to print)."""

    game: str
    options: dict[str, Any]
    players: int
    host: str
    seats: tuple[SeatView, ...]

    @property
    def taken(self) -> int:
        return sum(1 for s in self.seats if s.kind)

    def names(self) -> list[str]:
        return [s.name or f"seat {s.seat}" for s in self.seats]


def parse_table(frame: Mapping[str, Any]) -> TableView:
    """Check a ``table`` frame's shape (it comes from the network) and build the view."""
    try:
        seats_raw = frame["seats"]
        players = frame["players"]
        options = frame["options"]
        if not (isinstance(players, int) and isinstance(seats_raw, list) and len(seats_raw) == players
                and isinstance(options, dict) and isinstance(frame["game"], str)):
            raise TypeError
        seats = []
        for i, s in enumerate(seats_raw):
            kind = s.get("kind")
            if s.get("seat") != i or kind not in (*SEAT_KINDS, None) or not isinstance(s.get("ready"), bool):
                raise TypeError
            name = s.get("name")
            seats.append(SeatView(i, safe(name, NAME_MAX) if name is not None else None, kind, s["ready"]))
        return TableView(safe(frame["game"], 32), dict(options), players,
                         safe(frame.get("host", ""), NAME_MAX), tuple(seats))
    except (KeyError, TypeError, AttributeError):
        raise LobbyError("the host sent a malformed table description") from None


def format_table(view: TableView, you: int | None = None) -> list[str]:
    """The table as people see it in the lobby: one line per seat.

    Game, host and seat names come from the host's frames; :func:`parse_table` already cleans them,
    and they are escaped again here, at print time, so that a view built any other way cannot draw
    on the terminal either.
    """
    ready = sum(1 for s in view.seats if s.kind and s.ready)
    lines = [f"┌ {safe(view.game, SHOWN)} table of {safe(view.host, SHOWN)} · {view.taken}/{view.players} seated"
             f" · {ready} ready",
             f"│ options: {format_options(view.options)}"]
    for s in view.seats:
        if not s.kind:
            lines.append(f"│ seat {s.seat}  (empty)")
            continue
        tag = {HOST: " (host)", BOT: " (bot)", HUMAN: ""}[s.kind]
        me = "  ← you" if s.seat == you else ""
        lines.append(f"│ seat {s.seat}  {safe(s.name, SHOWN)}{tag}  {'ready' if s.ready else 'not ready'}{me}")
    lines.append("└" + "─" * 40)
    return lines


class JoinSession:
    """A joiner's side of the lobby (sans-IO): the join frame out, the host's frames in.

    :meth:`receive` returns ``"welcome"``, ``"table"`` (the view changed),
    ``"same"`` (a heartbeat), or ``"start"``; it raises :class:`Refusal` or
    :class:`LobbyError` for a refusal, a closed table or a malformed frame.
    """

    def __init__(self, name: str, listen_port: int, game: str | None = None,
                 options: Mapping[str, Any] | None = None, version: int = PROTOCOL_VERSION,
                 addr: str | None = None) -> None:
        self.name = check_name(name)
        self.listen_port = listen_port
        self.addr = addr  # our seat locator, at an online table
        self.game = game
        self.options = dict(options or {})
        self.version = version
        self.seat: int | None = None
        self.view: TableView | None = None
        self.addresses: list[Address] | None = None

    def join_frame(self) -> dict[str, Any]:
        frame: dict[str, Any] = {"lobby": "join", "v": self.version, "name": self.name, "port": self.listen_port}
        if self.game is not None:
            frame["game"] = self.game
        if self.options:
            frame["options"] = self.options
        if self.addr is not None:
            frame["addr"] = self.addr
        return frame

    def receive(self, frame: Mapping[str, Any]) -> str:
        kind = frame.get("lobby")
        if kind == "refused":
            raise Refusal(RefusalCode.parse(frame.get("code")),
                          "the table refused us: " + safe(frame.get("reason"), 300))
        if kind == "closed":
            raise LobbyClosed("the host closed the table: " + safe(frame.get("reason"), 300))
        if frame.get("v") != self.version:
            raise Refusal(RefusalCode.VERSION, f"protocol version mismatch: the table speaks "
                                     f"v{safe(frame.get('v'), 12)}, we speak v{self.version}")
        if kind == "welcome" and self.seat is None:
            seat = frame.get("seat")
            if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
                raise LobbyError("the host sent a malformed welcome")
            self.seat = seat
            return "welcome"
        if self.seat is None:
            raise LobbyError("the host did not answer like a p2php table")
        if kind == "table":
            view = parse_table(frame)
            try:  # a table no game here can play, such as one of 2 900 seats (each a line for us at every change)
                get_game(view.game).check_players(view.players)
            except OptionError as err:
                raise LobbyError(f"the host describes a table this p2php cannot play: {safe(err, 120)}") from None
            if self.seat >= view.players or view.seats[self.seat].name != self.name:
                raise LobbyError("the host's table no longer shows us in our seat")
            if self.game is not None and view.game != self.game:
                raise LobbyError(f"game mismatch: the table now plays {view.game}")
            changed = view != self.view
            self.view = view
            return "table" if changed else "same"
        if kind == "start" and self.view is not None:
            raw = frame.get("addresses")
            if not isinstance(raw, list) or len(raw) != self.view.players:
                raise LobbyError("the host sent a malformed start")
            addresses: list[Address] = []
            for entry in raw:
                if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], int)
                        and (entry[0] is None or isinstance(entry[0], str)) and 0 < entry[1] < 65536):
                    raise LobbyError("the host sent a malformed seat address")
                addresses.append((entry[0], entry[1]))
            self.addresses = addresses
            return "start"
        raise LobbyError(f"the host sent an unexpected lobby frame ({safe(kind, 20)})")


# ----------------------------------------------------------------------------- trio edges


async def _read(stream: Stream, decoder: FrameDecoder, who: str = "the other side") -> dict[str, Any]:
    while (frame := decoder.next_frame()) is None:
        data = await stream.receive_some(65536)
        if not data:
            raise LobbyError(f"{who} closed the connection")
        decoder.receive_data(data)
    return frame


def _peer_ip(stream: Stream) -> str | None:
    """The joiner's IP as the host sees it; None for loopback (the joiner is on the host's machine)."""
    if not isinstance(stream, trio.SocketStream):
        return None  # an online joiner says where it is reached (Table.online)
    try:
        ip = str(stream.socket.getpeername()[0])
    except OSError:
        return None
    return None if on_this_machine(ip) else ip


_NET_ERRORS = (FrameError, LobbyError, OSError, trio.BrokenResourceError, trio.ClosedResourceError,
               trio.TooSlowError)


class HostLobby:
    """Runs a :class:`Table` over TCP: one task per joiner, a heartbeat, the start.

    ``announce(line)`` gets a line for every change (someone joined, is ready,
    left …) and ``show(table)`` is called after each change so the host can draw
    the table.  :meth:`set_host_ready`, :meth:`add_bots` and :meth:`close` are
    for the host's own keyboard.
    """

    def __init__(self, table: Table, listener: Listener,
                 announce: Callable[[str], None] = print,
                 show: Callable[[Table], None] | None = None) -> None:
        self.table = table
        self.listener = listener
        self.announce = announce
        self.show = show
        self._outboxes: dict[int, trio.MemorySendChannel[dict[str, Any]]] = {}
        self._writers = 0
        self._flushed = trio.Event()
        self._over = trio.Event()
        self._next_conn = 0
        self._newcomers = Admission(MAX_CONNECTIONS, MAX_CONNECTIONS)  # connections not joined yet
        self._dropped: dict[int, str] = {}  # joiners we end, and why (their seat's log line)
        self._joiners: dict[int, trio.CancelScope] = {}  # each seated joiner's connection, to end it
        self.close_reason: str | None = None

    # ---- changes from the host's keyboard

    def set_host_ready(self, seat: int = 0) -> None:
        self.table.set_ready(seat)
        self.changed()

    def remove(self, seat: int) -> str:
        """The host removes the joiner at ``seat`` (who squats it, or is not who was expected): it is told so and
        its connection ended, its seat is free, and its address may not sit down again. Its name, or
        :class:`LobbyError` for a seat with no joiner."""
        name = self.table.seats[seat].name if 0 <= seat < self.table.players else ""
        self._refuse_seated(self.table.remove(seat), RefusalCode.REFUSED, "the host removed you from this table")
        self.changed()
        return name

    def add_bot(self, port: int, addr: str | None = None) -> int:
        seat = self.table.seat_local(self.table.bot_name(), BOT, port, ready=True, addr=addr)
        self.changed()
        return seat

    def close(self, reason: str) -> None:
        """Close the table before the start; every joiner gets ``closed``."""
        if self.table.started or self.table.closed:
            return
        self.table.closed = True
        self.close_reason = reason
        self._send_all({"lobby": "closed", "v": PROTOCOL_VERSION, "reason": reason}, last=True)
        self._over.set()

    # ---- the I/O

    def _send_all(self, frame: dict[str, Any], last: bool = False) -> None:
        for conn, outbox in self._outboxes.items():
            if not last and outbox.statistics().current_buffer_used >= OUTBOX_FRAMES:
                self._drop(conn, "does not read the table")  # (the last frame, start or closed, always goes)
                continue
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                outbox.send_nowait(frame)
                if last:
                    outbox.close()

    def _refuse_seated(self, conn: int, code: RefusalCode, reason: str) -> None:
        """Tell a seated joiner it is refused (its writer's last frame), then end its connection."""
        outbox = self._outboxes.get(conn)
        if outbox is not None:
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                outbox.send_nowait({"lobby": "refused", "v": PROTOCOL_VERSION, "code": code, "reason": reason})
                outbox.close()  # the writer sends it, then ends this connection

    def _drop(self, conn: int, why: str) -> None:
        """End a seated joiner's connection; its seat is freed with ``why`` as it ends."""
        self._dropped.setdefault(conn, why)
        scope = self._joiners.get(conn)
        if scope is not None:
            scope.cancel()  # (its writer may be stuck on a joiner that reads nothing)

    def changed(self) -> None:
        """Tell everyone about a change; start the game if the table is complete."""
        for line in self.table.drain_log():
            self.announce(line)
        if self.table.started or self.table.closed:
            return
        self._send_all(self.table.table_frame())
        if self.show is not None:
            self.show(self.table)
        if self.table.can_start():
            start = self.table.start()
            for line in self.table.drain_log():
                self.announce(line)
            self._send_all(start, last=True)
            self._over.set()

    async def run(self) -> list[Address]:
        """Serve the lobby until the game starts (the addresses) or the host closes it (LobbyClosed)."""
        async with trio.open_nursery() as nursery:
            handlers = nursery
            nursery.start_soon(partial(trio.serve_listeners, self._handle, [self.listener],
                                       handler_nursery=handlers))
            nursery.start_soon(self._heartbeat)
            self.changed()  # a table of local seats only may start at once
            await self._over.wait()
            with trio.move_on_after(START_FLUSH):
                if self._writers:
                    await self._flushed.wait()
            nursery.cancel_scope.cancel()
        if self.table.closed:
            raise LobbyClosed(self.close_reason or "the table was closed")
        return self.table.addresses()

    async def _heartbeat(self) -> None:
        while True:
            await trio.sleep(HEARTBEAT)
            if not self.table.started and not self.table.closed:
                self._send_all(self.table.table_frame())

    async def _handle(self, stream: Stream) -> None:
        place = self._newcomers.enter(host_of(stream))
        if place is None:
            await trio.aclose_forcefully(stream)
            return
        try:
            await self._serve(stream, place)
        finally:
            self._newcomers.leave(place)

    async def _serve(self, stream: Stream, place: Ticket) -> None:
        conn = self._next_conn
        self._next_conn += 1
        ip = _peer_ip(stream)
        source = "" if on_this_machine(place.host) else place.host  # (the seat limit is for other machines)
        where = ip or ("a remote peer" if self.table.online else "this machine")
        decoder = FrameDecoder(LOBBY_FRAME)
        async with stream:
            try:
                with place.scope, trio.fail_after(HELLO_TIMEOUT):
                    hello = await _read(stream, decoder)
            except _NET_ERRORS as err:
                self.announce(f"a connection from {where} ended before joining: {err or 'timed out'}")
                return
            if place.scope.cancelled_caught:
                self.announce(f"a connection from {where} ended before joining: its place went to another host's")
                return
            try:
                seat = self.table.join(conn, hello, ip, source)
            except Refusal as refusal:
                who = safe(hello.get("name"), NAME_MAX) if isinstance(hello.get("name"), str) else where
                self.announce(f"refused {who} ({where}): {refusal.reason}")
                with contextlib.suppress(*_NET_ERRORS), trio.move_on_after(HELLO_TIMEOUT):
                    await stream.send_all(encode_frame(
                        {"lobby": "refused", "v": PROTOCOL_VERSION, "code": refusal.code, "reason": refusal.reason}))
                return
            self._newcomers.leave(place)  # seated: the table's seats bound the joined connections
            outbox, inbox = trio.open_memory_channel[dict[str, Any]](math.inf)
            self._outboxes[conn] = outbox
            outbox.send_nowait({"lobby": "welcome", "v": PROTOCOL_VERSION, "seat": seat})
            self._writers += 1
            try:
                async with trio.open_nursery() as nursery:
                    self._joiners[conn] = nursery.cancel_scope
                    nursery.start_soon(self._write, stream, inbox, nursery.cancel_scope, seat)
                    nursery.start_soon(self._read_joiner, conn, stream, decoder, nursery.cancel_scope)
                    self.changed()
            finally:
                self._outboxes.pop(conn, None)
                self._joiners.pop(conn, None)
                self._writers -= 1
                if self._writers == 0 and self._over.is_set():
                    self._flushed.set()
                why = self._dropped.pop(conn, "lost the connection")
                if not self.table.started and not self.table.closed and self.table.by_conn(conn):
                    self.table.leave(conn, why)
                    self.changed()

    async def _write(self, stream: Stream, inbox: trio.MemoryReceiveChannel[dict[str, Any]],
                     scope: trio.CancelScope, seat: int) -> None:
        name = self.table.seats[seat].name
        try:
            async for frame in inbox:
                await stream.send_all(encode_frame(frame, LOBBY_FRAME))
            if self._over.is_set():
                await stream.send_eof()  # the last frame (start or closed) is out
                if not isinstance(stream, trio.SocketStream):
                    # Over libp2p, let the joiner hang up once it has read it (the reader ends then, or
                    # run()'s START_FLUSH does): a stream closed under run()'s cancellation is reset, and a
                    # reset drops what the other end has not read yet. A TCP close keeps it.
                    return
        except _NET_ERRORS as err:
            if self.table.started:
                self.announce(f"could not tell {name} (seat {seat}) that the game starts: {err}")
        scope.cancel()  # after start/closed (or a dead connection) this joiner's lobby is over

    async def _read_joiner(self, conn: int, stream: Stream, decoder: FrameDecoder,
                           scope: trio.CancelScope) -> None:
        bucket = TokenBucket(*JOINER_FRAMES, trio.current_time())
        try:
            while True:
                frame = await _read(stream, decoder)
                if not bucket.take(trio.current_time()):
                    self._drop(conn, "sent lobby frames too fast")
                    break
                try:
                    keep = self.table.receive(conn, frame)
                except Refusal as refusal:  # a deck that does not fit: say why (the writer's last frame)
                    seat = self.table.by_conn(conn)
                    self.announce(f"refused {seat.name if seat else 'a joiner'}'s deck: {refusal.reason}")
                    self.table.leave(conn, "brought a deck that does not fit")
                    self._refuse_seated(conn, refusal.code, refusal.reason)
                    self.changed()
                    return
                self.changed()
                if not keep:
                    break
                await trio.lowlevel.checkpoint()  # the writers send that change before this joiner's next frame
        except _NET_ERRORS:
            pass
        if not self.table.started and not self.table.closed:
            scope.cancel()


@dataclass
class Joined:
    """What a joiner knows when the game starts."""

    seat: int
    view: TableView
    addresses: list[tuple[str, int]] = field(default_factory=list)


async def join_table(
    host: str,
    port: int,
    session: JoinSession,
    *,
    ready: bool = True,
    ask_ready: Callable[[], Awaitable[bool]] | None = None,
    on_table: Callable[[TableView, int], None] | None = None,
    silence: float = HOST_SILENCE,
    connect: Callable[[], Awaitable[Stream]] | None = None,
    own_deck: Callable[[TableView, int], dict[str, str]] | None = None,
) -> Joined:
    """Sit down at the table at ``host:port`` and wait for the start.

    ``ready``: say so at once; otherwise ``ask_ready()`` is awaited once seated
    (True: ready, False: leave the table).  ``on_table(view, seat)`` is called
    whenever the table changes.  ``connect()``: how to reach the host instead of TCP to ``host:port`` (an
    online table's libp2p stream; ``host`` then only names it in messages).  Raises :class:`LobbyError` (and
    its subclasses) with a message for people.  ``own_deck(view, seat)``: the options of our seat our own deck
    sets (``Game.seat_options``), sent in a ``deck`` frame once the table is first seen, before we say ready.
    """
    try:
        stream = await (connect() if connect is not None else trio.open_tcp_stream(host, port))
    except OSError as err:
        raise LobbyError(f"cannot reach the table at {host}:{port}: {err.strerror or err}") from None
    where = host if connect is not None else f"{host}:{port}"
    decoder = FrameDecoder(LOBBY_FRAME)
    left = False
    error: BaseException | None = None
    async with stream:
        try:
            await stream.send_all(encode_frame(session.join_frame(), LOBBY_FRAME))
            with trio.fail_after(min(HELLO_TIMEOUT, silence)):
                session.receive(await _read(stream, decoder, "the host"))
        except trio.TooSlowError:
            raise LobbyError(f"the host at {where} did not answer the join") from None
        except (FrameError, OSError, trio.BrokenResourceError) as err:
            raise LobbyError(f"the connection to the table at {where} failed: {err}") from None

        deck_sent = trio.Event()
        if own_deck is None:
            deck_sent.set()

        async def say_ready() -> None:
            # Errors stay inside: the reading loop below notices a broken connection by itself.
            nonlocal left
            await deck_sent.wait()  # a table that starts before our deck is set would be another table
            with contextlib.suppress(*_NET_ERRORS):
                if not ready and ask_ready is not None and not await ask_ready():
                    left = True
                    await stream.send_all(encode_frame({"lobby": "leave"}))
                    nursery.cancel_scope.cancel()
                    return
                await stream.send_all(encode_frame({"lobby": "ready", "ready": True}))

        # Errors are carried out of the nursery by hand so that they are never wrapped in an
        # ExceptionGroup (whatever trio's strict_exception_groups default is).
        async with trio.open_nursery() as nursery:
            nursery.start_soon(say_ready)
            try:
                while True:
                    with trio.move_on_after(silence) as scope:
                        frame = await _read(stream, decoder, "the host")
                    if scope.cancelled_caught:
                        raise LobbyError(f"the host at {where} went silent for {silence:.0f} s")
                    what = session.receive(frame)
                    if what == "table" and own_deck is not None and not deck_sent.is_set():
                        assert session.seat is not None and session.view is not None
                        options = own_deck(session.view, session.seat)
                        await stream.send_all(encode_frame({"lobby": "deck", "options": options}, LOBBY_FRAME))
                        deck_sent.set()
                    if what == "table" and on_table is not None and session.view is not None:
                        assert session.seat is not None
                        on_table(session.view, session.seat)
                    if what == "start":
                        break
            except LobbyError as err:
                error = err
            except (FrameError, OSError, trio.BrokenResourceError) as err:
                error = LobbyError(f"the connection to the table at {where} failed: {err}")
            nursery.cancel_scope.cancel()
    if left:
        raise LobbyClosed("you left the table")
    if error is not None:
        raise error
    assert session.seat is not None and session.view is not None and session.addresses is not None
    addresses = [(ip if ip is not None else host, p) for ip, p in session.addresses]
    return Joined(session.seat, session.view, addresses)
