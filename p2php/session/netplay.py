"""``p2php host``, ``join`` and ``discover``: one table across machines.

The host opens a lobby (:mod:`p2php.lobby`) and answers discovery queries
(:mod:`p2php.discovery`); its own seat and any bot seats run as independent
peers in its process.  When every seat is taken and every person is ready, each
peer gets the others' addresses, forms the full mesh itself and plays exactly as
in a local demo — the host is then a peer like any other.  ``join`` without an
address first asks discovery and sits down at the only open table that fits.

Every failure a person can cause or meet (a bad name, a full table, another
protocol version, a mismatched option, an unreachable host or peer, Ctrl-C)
ends with one clear line on stderr and a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio

from p2php.bots import bot_seed, default_kind
from p2php.discovery import (
    BROADCAST,
    TableInfo,
    auto_pick_refusal,
    discover,
    format_tables,
    open_responder,
    parse_target,
    serve_discovery,
)
from p2php.engine.contract import OptionError
from p2php.engine.registry import get_game, parse_option_pairs
from p2php.errors import UsageError
from p2php.lobby import (
    BOT,
    HOST,
    HostLobby,
    JoinSession,
    LobbyClosed,
    LobbyError,
    Table,
    TableView,
    check_name,
    format_options,
    format_table,
    join_table,
)
from p2php.net.mesh import MeshError, listen, listener_port
from p2php.net.ports import LOBBY_PORT
from p2php.net.transport import Dial, Listener, tcp_dial
from p2php.session import transcript
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.modes import CRYPTO, SESSION_OPTIONS, crypto_mode, crypto_notice, parse_table_options
from p2php.session.owndecks import check_implied, read_deck_text, table_setup
from p2php.session.rematch import REMATCH_WAIT, Rematch, again_seed
from p2php.session.runner import Decider, PeerConfig, PeerResult, bot_decider, check_delay, run_peer, slowed
from p2php.terminal import Quit, TerminalUI, chat_hooks, link_line, number, read_line, summary_lines
from p2php.text import LINE, NAME, safe

T = TypeVar("T")

_NET_FAULTS = (OSError, trio.BrokenResourceError, trio.ClosedResourceError)


def run_trio(main: Callable[[], Awaitable[T]]) -> T:
    """``trio.run`` with a Ctrl-C or a lone error unwrapped from any exception group.

    Newer trio wraps everything leaving a nursery in an ExceptionGroup; the CLI
    must still see a plain KeyboardInterrupt (clean "interrupted" exit) and plain
    errors (clean messages) rather than print a group's traceback.

    Ctrl-C (and SIGTERM) is taken as a signal and cancels everything at once: trio's own
    KeyboardInterrupt may be held back until the main task wakes, which a table
    waiting for a timeout would delay by that whole timeout.
    """
    interrupted: list[bool] = []

    async def guarded() -> T:
        done: list[T] = []
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                # SIGTERM (``kill``, a shutdown) too: else the process died at once, the terminal's flow control
                # (``flow_control_off``) never given back.
                with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _ in signals:
                        interrupted.append(True)
                        nursery.cancel_scope.cancel()
                        return

            nursery.start_soon(watch)
            done.append(await main())
            nursery.cancel_scope.cancel()
        if interrupted or not done:
            raise KeyboardInterrupt
        return done[0]

    try:
        result: T = trio.run(guarded)
        return result
    except BaseExceptionGroup as group:
        first = _first_leaf(group)
        if isinstance(first, KeyboardInterrupt) or interrupted:
            raise KeyboardInterrupt from None
        raise first from None


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        interrupt = exc.subgroup(KeyboardInterrupt)
        exc = (interrupt or exc).exceptions[0]
    return exc


def _err(message: str) -> None:
    """One error line on stderr.  Escaped and bounded as a whole: messages quote the host, the lobby and
    other peers (refusal reasons, names, a refused hello), and none of that may draw on our terminal."""
    print(f"p2php: {safe(message, LINE)}", file=sys.stderr, flush=True)


def _say(line: str) -> None:
    """One line for the person on stdout, escaped and bounded like :func:`_err` (lobby news, table views)."""
    print(safe(line, LINE), flush=True)


def _local_ip(bind: str) -> str:
    """How this machine's own peers reach each other: the bound address, or loopback for a wildcard."""
    return "127.0.0.1" if bind in ("", "0.0.0.0", "::") else bind


def _named(text: str, names: list[str]) -> str:
    """``seat 2`` → ``seat 2 (ann)`` in a message, so people know who is meant."""
    def sub(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        return f"seat {seat} ({safe(names[seat], NAME)})" if 0 <= seat < len(names) else m.group(0)

    return re.sub(r"\bseat (\d+)\b", sub, text)


def mesh_failure(err: MeshError, names: list[str], addresses: Mapping[int, tuple[str, int]]) -> str:
    """A mesh formation failure in words, naming the seats (and people) that could not be reached."""
    if err.missing:
        who = ", ".join(f"seat {s} ({safe(names[s], NAME)} at {safe(addresses[s][0], 64)}:{addresses[s][1]})"
                        if s in addresses and s < len(names) else f"seat {s}" for s in err.missing)
        return f"the game could not start: no connection with {who}. Details: {_named(safe(err, 300), names)}"
    return f"the game could not start: {_named(safe(err, 300), names)}"


def _summary(table: Table, port: int) -> dict[str, Any] | None:
    """The discovery answer's content: the table's summary plus where its lobby listens."""
    summary = table.summary()
    return None if summary is None else {**summary, "port": port}


def _check_name(name: str) -> str:
    try:
        return check_name(name)
    except LobbyError as err:
        raise UsageError(f"--name: {err}") from None


def _ui(args: argparse.Namespace) -> TerminalUI:
    return TerminalUI(lang=getattr(args, "lang", None))


@dataclass
class Place:
    """Where one of this process's seats listens, and with which secrets and dial it plays."""

    listener: Listener
    port: int
    addr: str | None = None  # what others dial instead of our IP (an online seat's locator)
    secrets: LocalSecrets = field(default_factory=LocalSecrets)
    dial: Dial = tcp_dial
    links: Callable[[dict[int, str]], dict[int, str]] | None = None  # seat -> how our link to it is carried
    online: Mapping[str, Any] | None = None  # how this seat's libp2p node runs (for p2php resume)
    watch_links: WatchLinks | None = None  # online: tell how each link is carried as it changes; move links


WatchLinks = Callable[[Mapping[int, str], Callable[[int, str], None], Callable[[int], None]], Awaitable[None]]
"""``OnlineSeat.watch_links(seats' locators, tell(seat, how), relink(seat))``: runs until cancelled."""


def _watch_links(nursery: trio.Nursery, scope: trio.CancelScope, place: Place, others: Mapping[int, str],
                 tell: Callable[[int, str], None]) -> trio.MemoryReceiveChannel[int] | None:
    """Start ``place.watch_links`` (online) under ``scope``: the runner's ``relinks`` channel, or None."""
    if place.watch_links is None:
        return None
    send, receive = trio.open_memory_channel[int](8)
    watch = place.watch_links

    async def run() -> None:
        with scope:
            await watch(others, tell, send.send_nowait)

    nursery.start_soon(run)
    return receive


class Places(Protocol):
    """How a table's seats are reached: the LAN's TCP (:class:`LanPlaces`) or libp2p (``online_play``)."""

    online: bool

    async def open_lobby(self, args: argparse.Namespace) -> Listener | None:
        """The host's lobby listener (None: it could not open, and said why)."""

    async def open_seat(self) -> Place: ...

    def how_to_join(self, table: Table, lobby: Listener) -> list[str]: ...


class LanPlaces:
    """Seats on the LAN: TCP listeners on ``--bind``; the lobby on ``--port``."""

    online = False

    def __init__(self, bind: str) -> None:
        self.bind = bind

    async def open_lobby(self, args: argparse.Namespace) -> Listener | None:
        try:
            return await listen(args.bind, args.port)
        except OSError as err:
            _err(f"cannot open the table on {args.bind}:{args.port}: {err.strerror or err}")
            return None

    async def open_seat(self) -> Place:
        listener = await listen(self.bind, 0)
        return Place(listener, listener_port(listener))

    def how_to_join(self, table: Table, lobby: Listener) -> list[str]:
        return [f"Others join with:  p2php join <this machine's address>:{listener_port(lobby)} --name NAME"]


def _report(result: PeerResult, lang: str | None) -> int:
    for line in summary_lines(result.lockstep, lang):
        print(line)
    verdict = result.lockstep.verdict
    return 0 if verdict is not None and verdict.clean else 1


def _rematch_fields(previous: Mapping[int, Lockstep] | None, seat: int) -> dict[str, Any]:
    """A seat's :class:`PeerConfig` fields for the rematch of its ended game (none for a first game)."""
    if previous is None:
        return {}
    return {"rematch": Rematch.of(previous[seat])}


async def _play_seats(
    args: argparse.Namespace,
    game: str,
    options: Mapping[str, Any],
    players: int,
    names: list[str],
    addresses: dict[int, tuple[str, int]],
    places: dict[int, Place],
    human: int | None,
    ui: TerminalUI,
    own_decks: Mapping[int, dict[str, list[int]]] | None = None,
    previous: Mapping[int, Lockstep] | None = None,
    game_no: int = 0,
) -> int:
    """Run this process's seats to the end; the exit status (0 clean, 1 unclean, 3 network or file).

    The shown seat is this person's own (the host's, or the joiner's): only it
    keeps a resume log (``--resume-log``) and saves its transcript (``--transcript``).
    Afterwards a person at a LAN table is asked whether to play again: a rematch at the same seats and
    addresses in a fresh session (``previous``: every local seat's ended game, protocol.md §3.9).
    """
    results: dict[int, PeerResult] = {}
    errors: list[str] = []
    quit_game = False
    shown = min(places)
    resume_log = getattr(args, "resume_log", None)

    bot_kind = args.bot or default_kind(get_game(game))
    try:
        delay = check_delay(getattr(args, "bot_delay", 0.0) or 0.0)
    except ValueError as err:
        raise UsageError(f"--bot-delay: {err}") from None
    chat = chat_hooks(ui, names) if human is not None else {}  # the person's lines after ">", and the table's

    async def seat_task(seat: int, cancel: trio.CancelScope, nursery: trio.Nursery) -> None:
        nonlocal quit_game
        own = seat == shown
        place = places[seat]
        watching = trio.CancelScope()
        relinks = _watch_links(nursery, watching, place, {s: a for s, (a, _) in addresses.items() if s != seat},
                               (lambda s, how: ui.link_carried(s, safe(names[s], NAME), how)) if own
                               else (lambda s, how: None))
        cfg = PeerConfig(game, options, players, seat, names[seat], timeout=args.timeout,
                         connect_timeout=args.connect_timeout if previous is None else REMATCH_WAIT,
                         secrets=place.secrets, connect=place.dial,
                         online=place.online, relinks=relinks,
                         on_link=(lambda s, up, wait: _say(link_line(safe(names[s], NAME), s, up, wait)))
                         if own else None,
                         bot=None if seat == human else bot_kind,
                         resume_path=Path(resume_log) if own and resume_log and previous is None else None,
                         private_decks=dict((own_decks or {}).get(seat, {})),
                         **(chat if seat == human else {}),
                         **_rematch_fields(previous, seat))
        decide: Decider = (ui.decide if seat == human else slowed(
            bot_decider(get_game(game).make_bot(
                bot_kind, bot_seed(None if args.seed is None else again_seed(args.seed, game_no), seat))), delay))
        # Our own entry is never dialed; in the resume log it says where `p2php resume` listens again.
        mine = {**addresses, seat: (place.addr or args.bind, place.port)}
        try:
            results[seat] = await run_peer(cfg, mine, place.listener, decide,
                                           ui.observe if own else None)
        except Exception as exc:  # possibly an ExceptionGroup from the runner's nursery: judge its first leaf
            err = _first_leaf(exc)
            if isinstance(err, Quit):
                quit_game = True
            elif isinstance(err, MeshError):
                errors.append(mesh_failure(err, names, addresses))
            elif isinstance(err, _NET_FAULTS):
                errors.append(f"network error at seat {seat} ({safe(names[seat], NAME)}): {safe(err, 300)}")
            else:
                raise
            cancel.cancel()
        finally:
            watching.cancel()
            await place.listener.aclose()

    async with trio.open_nursery() as nursery:
        for seat in sorted(places):
            nursery.start_soon(seat_task, seat, nursery.cancel_scope, nursery)
    if quit_game or (shown in results and results[shown].left):
        print("\nYou left the table; the others were told at once. Bye!")
        return 0
    if errors:
        _err(errors[0])
        return 3
    if shown not in results:
        _err("the game ended without a result")
        return 3
    code = _report(results[shown], getattr(args, "lang", None))
    links = places[shown].links
    if links is not None:
        carried = links({s: a for s, (a, _) in addresses.items() if s != shown})
        _say("links: " + ", ".join(f"seat {s} ({safe(names[s], NAME)}) {carried.get(s, 'not connected')}"
                                   for s in sorted(addresses) if s != shown))
    path = getattr(args, "transcript", None)
    if path:
        try:
            await transcript.save_async(results[shown].lockstep, path)
        except OSError as err:
            _err(f"cannot save the transcript to {path}: {err.strerror or err}")
            return 3
        _say(f"transcript saved: {path} — check it with: p2php verify {path}")
    if human is None or set(results) != set(places) or any(p.online is not None for p in places.values()):
        return code  # no person to ask, a seat without a result, or an online table (no rematch there yet)
    answer = await read_line("Play again at this table? [y/N] ", ui.ask)
    if answer is None or answer.strip().lower() not in ("y", "yes"):
        return code
    _say(f"Rematch: waiting up to {REMATCH_WAIT:.0f} s for every seat to agree (a fresh session: new keys, "
         "new deals)…")
    again: dict[int, Place] = {}
    try:
        for seat, place in places.items():
            again[seat] = Place(await listen(args.bind, place.port), place.port, place.addr)
    except OSError as err:
        for place in again.values():
            await place.listener.aclose()
        _err(f"cannot listen again for the rematch: {err.strerror or err}")
        return 3
    return await _play_seats(args, game, options, players, names, addresses, again, human, _ui(args), own_decks,
                             {s: r.lockstep for s, r in results.items()}, game_no + 1)


# ----------------------------------------------------------------------------- host


async def host_game(args: argparse.Namespace, places: Places | None = None) -> int:
    """``p2php host``: the lobby, then this process's seats play; ``places``: how seats are reached (LAN by
    default; :func:`p2php.session.online_play.host_online` passes libp2p's)."""
    places = places or LanPlaces(args.bind)
    game = get_game(args.game)
    game.check_players(args.players)
    if args.bots < 0 or args.bots + 1 > args.players:
        raise UsageError(f"{args.bots} bots and the host need {args.bots + 1} seats; the table has {args.players}")
    # The host sits at seat 0.
    options, own_decks = table_setup(game, args.players, parse_option_pairs(args.option),
                                     [(0, getattr(args, "deck", None))], joiners=range(1 + args.bots, args.players))
    name = _check_name(args.name)
    ready = bool(args.ready or args.auto)
    lobby_listener = await places.open_lobby(args)
    if lobby_listener is None:
        return 3
    table = Table(game, options, args.players, name, online=places.online)
    ours: dict[int, Place] = {}  # the seats this process plays: the host's own and its bots
    own = await places.open_seat()
    ours[table.seat_local(name, HOST, own.port, ready=ready, addr=own.addr)] = own
    for _ in range(args.bots):
        bot = await places.open_seat()
        ours[table.seat_local(table.bot_name(), BOT, bot.port, ready=True, addr=bot.addr)] = bot
    table.drain_log()

    responder = None
    if args.discovery_port and not places.online:
        try:
            responder = await open_responder(args.bind, args.discovery_port)
        except OSError as err:
            _say(f"(discovery is off: cannot use UDP port {args.discovery_port}: {err.strerror or err})")

    _say(f"Table open: {game.name} for {args.players} players, options {format_options(options)}.")
    _say(crypto_notice(options))
    for line in places.how_to_join(table, lobby_listener):
        _say(line + ("   (or find it with: p2php discover)" if responder is not None else ""))

    def show(t: Table) -> None:
        for line in format_table(t.view(), 0):
            _say(line)

    lobby = HostLobby(table, lobby_listener, announce=_say, show=show)

    async def keyboard() -> None:
        """The host's lobby commands, until the host is ready (nothing reads stdin after that)."""
        while not table.seats[0].ready and not table.started and not table.closed:
            line = await read_line("Press Enter when ready (b: fill the empty seats with bots, k N: remove the joiner "
                                   "at seat N, q: close): ")
            if line is None:
                lobby.close("the host's input ended")
                _err("input ended before the host was ready (use --ready to host without a keyboard)")
                return
            command = line.strip().lower()
            if command in ("q", "quit", "exit"):
                lobby.close("the host closed the table")
                return
            if command in ("b", "bot", "bots"):
                for _ in table.free_seats():
                    bot = await places.open_seat()
                    try:
                        ours[lobby.add_bot(bot.port, bot.addr)] = bot
                    except LobbyError:  # a joiner took the seat meanwhile
                        await bot.listener.aclose()
                continue
            if command == "":
                lobby.set_host_ready(0)
                continue
            seat = number(command[1:].strip()) if command.startswith("k") else None
            if seat is not None:
                try:
                    _say(f"  removed {lobby.remove(seat)}: that address may not sit down again")
                except LobbyError as err:
                    _say(f"  {err}")
                continue
            _say("  type Enter (ready), b (fill empty seats with bots), k N (remove the joiner at seat N) or q "
                 "(close the table)")

    closed: LobbyClosed | None = None
    addresses_raw: list[tuple[str | None, int]] = []
    try:
        async with trio.open_nursery() as nursery:
            if responder is not None:
                nursery.start_soon(serve_discovery, responder, partial(_summary, table, listener_port(lobby_listener)))
            if not ready:
                nursery.start_soon(keyboard)
            try:
                addresses_raw = await lobby.run()
            except LobbyClosed as err:
                closed = err
            nursery.cancel_scope.cancel()
    finally:
        await lobby_listener.aclose()
        if responder is not None:
            responder.close()
    if closed is not None:
        for place in ours.values():
            await place.listener.aclose()
        print(f"The table is closed: {safe(closed, 300)}")
        return 0 if table.closed and closed.args[0] == "the host closed the table" else 3
    local = _local_ip(args.bind)
    addresses = {s: (ip or local, p) for s, (ip, p) in enumerate(addresses_raw)}
    names = table.names()
    _say(f"Forming the mesh: {', '.join(f'{safe(n, NAME)} (seat {s})' for s, n in enumerate(names))}")
    return await _play_seats(args, game.name, table.options, args.players, names, addresses, ours,
                             None if args.auto else 0, _ui(args), own_decks)


# ----------------------------------------------------------------------------- join


def _discovery_targets(to: list[str], port: int) -> list[tuple[str, int]]:
    """The ``--to`` addresses, or the LAN broadcast (and this machine) on ``port``."""
    if to:
        return [parse_target(t, port) for t in to]
    return [(BROADCAST, port), ("127.0.0.1", port)]


def table_fits(table: TableInfo, game: str | None, wanted: Mapping[str, str]) -> bool:
    """Whether ``p2php join`` may sit at a discovered table: a free seat, our protocol, the game and options asked."""
    if not table.free or not table.compatible or (game is not None and table.game != game):
        return False
    try:
        specs = {**get_game(table.game).options, **SESSION_OPTIONS}
    except OptionError:
        return False  # a game this p2php does not know
    for key, raw in wanted.items():
        spec = specs.get(key)
        if spec is None:
            return False
        try:
            if spec.parse(key, raw) != (crypto_mode(table.options) if key == CRYPTO else table.options.get(key)):
                return False
        except OptionError:
            return False
    return True


def _table_line(t: TableInfo) -> str:
    """One discovered table on one line; every field but the numbers is what a datagram said: escaped."""
    note = "" if t.compatible else f"   [protocol v{t.version}: incompatible]"
    note += "   [same table id as another answer]" if t.contested else ""
    return safe(f"  {safe(t.game, NAME):<8} host {safe(t.host, NAME):<12} {t.taken}/{t.players} seated, "
                f"{t.free} free   {safe(t.address, 64)}:{t.port}   options {format_options(t.options)}{note}", LINE)


async def find_table(args: argparse.Namespace, wanted: Mapping[str, str]) -> tuple[str, int] | int:
    """``p2php join`` without an address: the one open table that fits, or an exit status (3 none, 2 several).

    Exit 2 too when that one table cannot be told from an impersonator, or the listing was cut
    (:func:`p2php.discovery.auto_pick_refusal`): the person must ask the host for its address.
    """
    targets = _discovery_targets(args.to, args.discovery_port)
    where = ", ".join(f"{h}:{p}" for h, p in targets) if args.to else f"the LAN (UDP port {args.discovery_port})"
    _say(f"Looking for open tables on {where}…")
    found = await discover(targets, timeout=args.discover_timeout)
    fits = [t for t in found if table_fits(t, args.game, wanted)]
    asked = " ".join(([f"--game {args.game}"] if args.game else [])
                     + [f"--option {k}={v}" for k, v in wanted.items()])
    refusal = auto_pick_refusal(found, fits)  # one table that fits, but its id answered from several places…
    if refusal is not None:
        _err(refusal)
        return 2
    if len(fits) == 1:
        t = fits[0]
        _say(f"Found {safe(t.host, NAME)}'s {safe(t.game, NAME)} table at {safe(t.address, 64)}:{t.port} "
             f"({t.taken}/{t.players} seated).")
        return t.address, t.port
    if not fits:
        if not found:
            hint = "there" if args.to else f"(and do firewalls let UDP port {args.discovery_port} through)"
            _err(f"no open table found on {where}. Is a host running `p2php host` {hint}? "
                 "You can also join by address: p2php join HOST[:PORT]")
        else:
            _err(f"found {len(found)} open table(s), but none with a free seat for this p2php"
                 + (f" matching {asked}" if asked else "") + ":")
            for t in found:
                print(_table_line(t), file=sys.stderr)
        return 3
    _err(f"{len(fits)} open tables" + (f" match {asked}" if asked else " found")
         + "; pick one and run: p2php join ADDRESS --name NAME")
    for t in fits:
        print(_table_line(t), file=sys.stderr)
    return 2


async def join_game(args: argparse.Namespace) -> int:
    """``p2php join``: by address or by discovery (an invite code: :func:`p2php.session.online_play.join_online`)."""
    if args.address is not None and args.to:
        raise UsageError("--to is for finding a table: give either an ADDRESS or --to, not both")
    if args.address is not None:
        try:
            host, port = parse_target(args.address, LOBBY_PORT)
        except ValueError as err:
            raise UsageError(f"{err} (e.g. 192.168.1.20:{LOBBY_PORT})") from None
    name = _check_name(args.name)
    wanted = wanted_options(args)
    if args.address is None:
        found = await find_table(args, wanted)
        if isinstance(found, int):
            return found
        host, port = found
    listener = await listen(args.bind, 0)
    return await sit_down(args, Place(listener, listener_port(listener)), name, wanted, host, port)


def wanted_options(args: argparse.Namespace) -> dict[str, str]:
    """The ``--option`` pairs a joiner insists on; those of ``--game`` are checked here, before any connection."""
    wanted = parse_option_pairs(args.option)
    if args.game is not None:  # refuse locally what could never match
        wanted_game = get_game(args.game)
        for key, raw in wanted.items():
            specs = {**wanted_game.options, **SESSION_OPTIONS}
            if key in specs:
                specs[key].parse(key, raw)
    return wanted


async def sit_down(args: argparse.Namespace, place: Place, name: str, wanted: Mapping[str, str], host: str,
                   port: int, connect: Callable[[], Awaitable[Any]] | None = None) -> int:
    """Take a seat at the table at ``host:port`` (or through ``connect``), then play it; the exit status."""
    listener = place.listener
    session = JoinSession(name, place.port, game=args.game, options=wanted, addr=place.addr)

    own_decks: dict[int, dict[str, list[int]]] = {}

    def on_table(view: TableView, seat: int) -> None:
        try:
            parse_table_options(get_game(view.game), view.options)
        except OptionError as err:
            raise LobbyError(f"the table plays {safe(view.game, NAME)} {format_options(view.options)}, "
                             f"which this p2php cannot play: {safe(err, 200)}") from None
        for line in format_table(view, seat):
            _say(line)

    def own_deck(view: TableView, seat: int) -> dict[str, str]:
        """Our deck's options for our seat (the host sets them at the table), read once we know the seat."""
        try:
            return get_game(view.game).read_private_deck(read_deck_text(args.deck), seat, view.options)[1]
        except OptionError as err:
            raise LobbyError(str(err)) from None

    async def ask_ready() -> bool:
        line = await read_line("Press Enter when ready (q to leave): ")
        return line is not None and line.strip().lower() not in ("q", "quit", "exit")

    _say(f"Joining the table at {host if connect else f'{host}:{port}'} as {name}…")
    try:
        joined = await join_table(host, port, session, ready=bool(args.ready or args.auto), ask_ready=ask_ready,
                                  on_table=on_table, connect=connect,
                                  own_deck=own_deck if getattr(args, "deck", None) else None)
    except LobbyClosed as err:
        await listener.aclose()
        if str(err) == "you left the table":
            print("You left the table. Bye!")
            return 0
        _err(str(err))
        return 3
    except LobbyError as err:
        await listener.aclose()
        _err(str(err))
        return 3
    view = joined.view
    if getattr(args, "deck", None):  # the table the game starts with must carry our deck's options
        try:
            own_decks[joined.seat] = check_implied(get_game(view.game), args.deck, joined.seat, view.options)
        except OptionError as err:
            await listener.aclose()
            _err(f"the host's table does not carry your deck: {err}")
            return 3
    names = view.names()
    _say(f"The game starts: you are seat {joined.seat} of {view.players} ({safe(view.game, NAME)}, "
         f"{format_options(view.options)}). Forming the mesh…")
    addresses = dict(enumerate(joined.addresses))
    return await _play_seats(args, view.game, view.options, view.players, names, addresses,
                             {joined.seat: place}, None if args.auto else joined.seat, _ui(args), own_decks)


# ----------------------------------------------------------------------------- discover


async def discover_tables(args: argparse.Namespace) -> int:
    """``p2php discover``: list the open tables (broadcast, or only the ``--to`` addresses)."""
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    tables: list[TableInfo] = await discover(_discovery_targets(args.to, args.port), timeout=args.timeout)
    if args.json:
        print(json.dumps([t.as_json() for t in tables]))
    else:
        for line in format_tables(tables):
            print(line)
    return 0

