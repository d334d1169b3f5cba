"""Running one peer over the network (trio): the I/O edge around :class:`Lockstep`.

:func:`run_peer` forms the mesh, performs the handshake, then loops: broadcast
what the lockstep machine produced, ask the local decider when it is this seat's
turn (concurrently, so a person thinking never stalls the network), otherwise
wait — with a timeout — for the next frame.  A silent peer is named when the
timeout expires; a peer that sends garbage is named at once.  Whatever happens,
the peer ends with a verdict and its full transcript.

Links that drop are not the end of the game: the higher seat of the pair dials
again, a restarted peer (``p2php resume``) forms its links anew, and both sides
then exchange ``sync`` requests and relay the signed messages the other missed.
The others wait up to ``resume_timeout`` for an absent seat before naming it.
Spectators may connect to a peer's listener and receive every public message.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import trio

from p2php.canonical import NotCanonical, encode
from p2php.engine.contract import Action, Decide, IllegalAction
from p2php.engine.registry import get_game
from p2php.errors import P2phpError
from p2php.net.mesh import (
    COMPACT,
    DEFLATE,
    WIRE_FEATURES,
    Frame,
    HandshakeError,
    Mesh,
    PeerError,
    Rejoined,
    SpectatorJoined,
    SpectatorLeft,
    open_mesh,
)
from p2php.net.transport import Dial, Listener, tcp_dial
from p2php.session import transcript
from p2php.session.chat import ChatDesk, ChatDropped, ChatLine, ChatRefused
from p2php.session.compact import FRAME, FULL, WANT, compact_frame
from p2php.session.handshake import HandshakeRefused, LocalSecrets, Table, check_hello, make_hello
from p2php.session.lockstep import Lockstep
from p2php.session.modes import parse_table_options
from p2php.session.rematch import Rematch
from p2php.session.resume import CANCEL_CLOSE_WAIT, SYNC_WAIT, ResumeWriter
from p2php.session.watchers import Watchers
from p2php.text import safe

log = logging.getLogger(__name__)

Decider = Callable[[Lockstep], Awaitable[Action]]
"""Chooses the local seat's action (a bot, or a person at a terminal)."""
Observer = Callable[[Lockstep, list[str]], None]
"""Called after progress with new log lines (for terminals and demos)."""


RELINK_TIMEOUT = 10.0
"""Seconds a move of a working link onto a better path may take before the old link simply stays."""

REJOIN_HOLD = 5.0
"""Longest wait (seconds; at most half the ``timeout``) of a peer rebuilt from its resume log before it makes a
message of its own: until every other seat not known gone — linked now or not — has said in its ``sync`` which of our
messages it holds and none says more than we hold (one seat's alone is not enough: it may lack what another holds,
or lie; a seat whose link is still down may be the one that holds them).
A log may lack what we sent (a disk that failed and could not even set the log aside, a disk that said it had
written what it had not): our own later messages, relayed back, then take their points, where a message made anew
would be a second version of one of them (the others would convict us of equivocation)."""


@dataclass
class PeerConfig:
    game: str
    options: Mapping[str, Any]
    players: int
    seat: int
    name: str = ""
    timeout: float = 30.0
    connect_timeout: float = 20.0
    resume_timeout: float = 60.0
    """How long the others wait for a seat whose link dropped before naming it."""
    secrets: LocalSecrets = field(default_factory=LocalSecrets)
    transcript_path: Path | None = None
    resume_path: Path | None = None
    """Where to keep the resume log (this peer's secrets and every message): ``p2php resume`` reads it."""
    private_decks: dict[str, list[int]] = field(default_factory=dict)
    """Secret deck lists this seat owns, by Shuffle purpose (e.g. a trading-card deck)."""
    spectators: bool = True
    """Let spectators connect to this peer's listener and watch the public game."""
    bot: str | None = None
    """The bot kind playing this seat, if any (recorded in the resume log)."""
    linger: float = 10.0
    """After our verdict, how long we keep serving catch-up until every other seat said it finished."""
    spectator_linger: float = 10.0
    """How long after a spectator's link broke before it got the end of the game we keep the table open for it once
    our game is done (it links again a moment later and replays the record): so a watcher never misses how a game
    ended, while one that left long before the end is not waited for."""
    connect: Dial = tcp_dial
    """How to reach another seat's listener (the transport; TCP unless a test or another transport says)."""
    leave: trio.Event | None = None
    """Set it to leave the table at any moment, not only in a decision (``LeaveTable``): a signed leave, so
    every peer ends at once naming this seat ``left`` and keeps the record."""
    on_link: Callable[[int, bool, float], None] | None = None
    """Told when another seat's link drops during the game (``up`` False, with the seconds it has to come
    back: ``resume_timeout``) and when it is back (``up`` True), so a person sees who is gone, and for how long."""
    relinks: trio.MemoryReceiveChannel[int] | None = None
    """Seats whose link the transport could carry better now (online: DCUtR punched a direct connection after
    a relayed link formed): the higher seat of the pair dials again, and the new link replaces the old one at
    both ends, as a returning seat's does (no drop is seen; a sync fills anything in flight)."""
    online: Mapping[str, Any] | None = None
    """At an online table, how this seat's libp2p node is run (``relay``, ``port``, ``advertise``), so that
    ``p2php resume`` brings it back under the same peer id (recorded in the resume log)."""
    chat: trio.MemoryReceiveChannel[str] | None = None
    """Lines our player says (``say``): each is signed and sent to every seat and our spectators (§3.8)."""
    on_chat: Callable[[ChatLine | ChatDropped], None] | None = None
    """Told every chat line shown at this table (ours too) and every chat frame dropped, naming its seat."""
    rematch: Rematch | None = None
    """Play the ended game ``rematch.table`` again at the same seats (§3.9): our hello carries the old seat key's
    vouch and only the old seats' vouched-for hellos are accepted. Give ``connect_timeout`` the time people have
    to agree (``REMATCH_WAIT``) and fresh ``secrets``."""
    compact: bool = True
    """Offer the compact wire form of messages on every link (§5.4); a link uses it only if both ends offer it."""
    deflate: bool = True
    """Offer compressed runs of frames on every link (§3.2, ``deflate``); used only if both ends offer it."""

    def __post_init__(self) -> None:
        """Every wait has a deadline: a timeout that is not a finite positive number (NaN, infinity, a negative or a
        text, from a command line or an embedding client) is a :class:`ValueError` here, not a wait that never
        ends or a crash in the middle of a game."""
        for name in ("timeout", "connect_timeout", "resume_timeout", "linger", "spectator_linger"):
            setattr(self, name, check_seconds(getattr(self, name), name, zero=name.endswith("linger")))


def check_seconds(value: object, what: str = "a timeout", *, zero: bool = False) -> float:
    """``value`` as seconds: a finite number, above 0 (or 0 itself with ``zero``); else :class:`ValueError`."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or (
            value < 0 if zero else value <= 0):
        least = "0 or more" if zero else "above 0"
        raise ValueError(f"{what} must be a finite number of seconds {least}, not {value!r:.20}")
    return float(value)


@dataclass
class PeerResult:
    lockstep: Lockstep
    seconds: float
    setup_seconds: float
    bytes_sent: int
    bytes_received: int
    frames_sent: int
    left: bool = False  # our player left (the decider raised LeaveTable): the table was told and ended
    frame_bytes: dict[str, int] = field(default_factory=dict)  # encoded bytes queued per frame kind (Mesh)


class LeaveTable(P2phpError):
    """Raised by a decider whose player leaves the table.

    The runner then sends a signed ``abort`` naming its own seat with code ``left`` (``Lockstep.leave``): every
    other peer ends the game at once naming the leaver and keeps the record, and this peer finishes the audit
    round before :func:`run_peer` returns (``PeerResult.left``).
    """


def bot_decider(bot: Any) -> Decider:
    async def decide(ls: Lockstep) -> Action:
        assert ls.seat is not None
        action: Action = bot.choose(ls.state, ls.seat, ls.knowledge(), ls.legal_actions())
        return action

    return decide


MAX_BOT_DELAY = 60.0
"""Longest bot delay (seconds): a slower bot would run into the other seats' timeouts."""


def check_delay(delay: float) -> float:
    """A bot delay as given, or :class:`ValueError` saying what a delay is."""
    if isinstance(delay, bool) or not isinstance(delay, int | float) or not 0 <= delay <= MAX_BOT_DELAY:
        raise ValueError(f"a bot delay is a number of seconds from 0 to {MAX_BOT_DELAY:g}, not {delay!r:.20}")
    return float(delay)


def slowed(decide: Decider, delay: float) -> Decider:
    """``decide``, answering ``delay`` seconds after it was asked (bot speed, so people can follow the play).

    Wall-clock time only here, at the edge: the bot and the engine never see it.
    """
    if check_delay(delay) == 0:
        return decide

    async def slow(ls: Lockstep) -> Action:
        await trio.sleep(delay)
        return await decide(ls)

    return slow


def _hello_checker(cfg: PeerConfig, options: dict[str, Any],
                   known: tuple[dict[str, Any], ...] | None) -> Callable[[int, dict[str, Any]], None]:
    """Whether a hello may stand for its seat (a :class:`HandshakeError` if not). It only judges: the table is
    built from the hellos the *proven* links presented (:meth:`Mesh.hello_of`), never from one a check saw on a
    connection that then failed its proof — an outsider sent a made-up hello for a seat already linked, it was
    kept though refused, and that seat signed under another session: every seat convicted an honest one."""
    game = get_game(cfg.game)

    def accept_hello(seat: int, their: dict[str, Any]) -> None:
        if known is not None:
            # Rejoining a running game: the seat must come back with exactly its old hello.
            if their != known[seat]:
                raise HandshakeError(f"seat {seat} came back with a different hello", seat)
            return
        try:
            check_hello(their, seat=seat, players=cfg.players, game=game.name, options=options)
            if cfg.rematch is not None:
                cfg.rematch.check(seat, their)
        except HandshakeRefused as err:
            raise HandshakeError(str(err), seat) from None

    return accept_hello


async def run_peer(
    cfg: PeerConfig,
    addresses: Mapping[int, tuple[str, int]],
    listener: Listener | None,
    decide: Decider,
    observe: Observer | None = None,
    restored: Lockstep | None = None,
) -> PeerResult:
    """Play one seat to the end (or to a named fault) and return what happened.

    ``restored`` is a lockstep rebuilt from a resume log (see
    :mod:`p2php.session.resume`): the peer then rejoins the running game.
    """
    start = time.perf_counter()
    game = get_game(cfg.game)
    options = parse_table_options(game, dict(cfg.options))
    if restored is not None:
        hello = dict(restored.table.hellos[cfg.seat])
        known: tuple[dict[str, Any], ...] | None = restored.table.hellos
    else:
        extra = None if cfg.rematch is None else {"rematch": cfg.rematch.vouch(cfg.secrets)}
        hello = make_hello(cfg.secrets, cfg.seat, cfg.players, game.name, options, cfg.name or f"seat{cfg.seat}",
                           extra)
        known = None
    accept_hello = _hello_checker(cfg, options, known)
    mesh = await open_mesh(
        cfg.seat, dict(addresses), listener, hello, accept_hello, connect_timeout=cfg.connect_timeout,
        sign=cfg.secrets.identity.sign, connect=cfg.connect, retry_refusals=cfg.rematch is not None,
        features=tuple(f for f in WIRE_FEATURES if (cfg.compact or f != COMPACT) and (cfg.deflate or f != DEFLATE)),
        partial=restored is not None, partial_wait=min(cfg.connect_timeout, cfg.timeout / 4),
        partial_alone=restored is not None and not restored.finished,
    )
    if restored is not None:
        ls = restored
    else:
        table = Table(game.name, options, tuple(hello if s == cfg.seat else mesh.hello_of(s)
                                                for s in range(cfg.players)))
        decks = cfg.private_decks if cfg.rematch is None else game.private_decks_again(cfg.private_decks, options,
                                                                                       cfg.seat)
        ls = Lockstep(game, table, cfg.seat, cfg.secrets, decks)
    runner = _Runner(cfg, ls, mesh, addresses, hello, _hello_checker(cfg, options, ls.table.hellos),
                     decide, observe, start)
    await runner.run(listener, rejoining=restored is not None)
    if cfg.transcript_path is not None:
        try:
            await transcript.save_async(ls, cfg.transcript_path)  # (off the loop: a slow disk must not hold it)
        except OSError as err:  # the game is over and its record is in the result: say it, lose nothing more
            log.warning("cannot save the transcript to %s: %s", safe(str(cfg.transcript_path), 200),
                        safe(err.strerror or str(err), 100))
    return PeerResult(ls, time.perf_counter() - start, runner.setup_seconds, runner.sent, runner.received,
                      runner.frames_sent, runner.left, dict(runner.mesh.frame_bytes))



MAX_OWN_REFUSALS = 8
"""Actions of our own decider refused for one decision before this peer leaves the table: a player (or a client
embedding the peer) is asked again after a refusal; a decider that answers nothing else would ask for ever."""

MAX_SYNC_BYTES = 32 * 1024 * 1024
"""Bytes of relays sent in answer to ``sync`` requests of one seat, all its connections together (a whole game is
a few MB, and a seat that comes back holds most of it): a seat that linked again and again, each time saying it
held nothing, was sent the whole record again each time (1.8 MB for 150 relinks of a 22-message game; 12.9 MB a
time for a UNO game)."""


class RunningClock:
    """Seconds during which this peer's own event loop ran on time: the clock deadlines are kept on.

    A deadline that passes while our own process was starved (a loaded machine, a
    laptop waking from sleep, a long garbage collection) says nothing about the seat
    we wait for: its message may be sitting unread in our socket.  So the time our
    loop was stalled is not counted: :meth:`run` sleeps :data:`TICK` seconds at a
    time, and whatever it oversleeps beyond :data:`SLACK` is a stall.  A stall still
    in progress (the loop has just woken, the tick task has not run yet) is left out
    too, so the runner cannot name anyone in the instant after waking.
    Sans-IO apart from :meth:`run`: ``wall`` is injectable for tests.
    """

    TICK = 0.1
    SLACK = 0.25

    def __init__(self, wall: Callable[[], float] = trio.current_time) -> None:
        self._wall = wall
        self.stalled = 0.0
        """Seconds left out so far."""
        self._last = wall()  # when the tick task last ran

    def now(self) -> float:
        wall = self._wall()
        in_progress = max(0.0, wall - self._last - self.TICK - self.SLACK)
        return wall - self.stalled - in_progress

    def tick(self) -> None:
        """The tick task ran: count how late it was."""
        wall = self._wall()
        self.stalled += max(0.0, wall - self._last - self.TICK - self.SLACK)
        self._last = wall

    async def run(self) -> None:
        while True:
            await trio.sleep(self.TICK)
            self.tick()


def _is_game_point(beat: Any) -> bool:
    """Whether a heartbeat's progress is a game point ``[tick, phase]`` (the seat still plays), not ``None`` (in its
    audit) nor anything a peer may have sent instead."""
    return (isinstance(beat, list) and len(beat) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in beat))


class Deadlines:
    """When each awaited message became due, and so when its seat is late (sans-IO: ``now`` is given).

    Every awaited message has its own deadline, counted from the moment it became
    due — not from the last event, so harmless traffic (heartbeats, syncs,
    spectators joining) can never postpone it.  A seat whose link is down gets
    ``resume_timeout`` from the drop instead, whether that is earlier or later: it
    cannot be thinking where we cannot hear it, and the person at the table was told
    it has that long to come back (``on_link``), even where people get a longer
    ``timeout`` to think.
    """

    def __init__(self, timeout: float, resume_timeout: float) -> None:
        self.timeout = timeout
        self.resume_timeout = resume_timeout
        self.due: dict[tuple[int, Any], float] = {}

    def update(self, awaited: dict[int, Any], now: float) -> None:
        """``awaited``: seat -> what it owes (a point, or "audit"); new entries start their clock."""
        keys = {(seat, what) for seat, what in awaited.items()}
        self.due = {k: t for k, t in self.due.items() if k in keys}
        for key in keys:
            self.due.setdefault(key, now)

    def deadline(self, seat: int, since: float, down: dict[int, float]) -> float:
        if seat in down:
            return down[seat] + self.resume_timeout
        return since + self.timeout

    def next_deadline(self, down: dict[int, float]) -> float | None:
        return min((self.deadline(seat, since, down) for (seat, _), since in self.due.items()), default=None)

    def expired(self, now: float, down: dict[int, float]) -> list[int]:
        return sorted({seat for (seat, _), since in self.due.items() if self.deadline(seat, since, down) <= now})

    def behind(self, seat: int, beat: Any) -> bool:
        """Whether ``seat``'s last heartbeat says it has not reached the point it owes us a message for.

        Such a seat is waiting for someone else (a pass it did not get, say): it is
        given one more timeout, in which its own deadline names the real culprit.
        """
        owed = [what for (s, what), _ in self.due.items() if s == seat and isinstance(what, tuple)]
        return bool(owed) and _is_game_point(beat) and tuple(beat) < owed[0]

    def grace(self, seat: int, now: float) -> None:
        for key in [k for k in self.due if k[0] == seat]:
            self.due[key] = now


class _Runner:
    """The event loop of one peer (kept in one place so the rules stay visible)."""

    def __init__(self, cfg: PeerConfig, ls: Lockstep, mesh: Mesh, addresses: Mapping[int, tuple[str, int]],
                 hello: dict[str, Any], check: Callable[[int, dict[str, Any]], None], decide: Decider,
                 observe: Observer | None, start: float) -> None:
        self.cfg = cfg
        self.ls = ls
        self.mesh = mesh
        self.addresses = addresses
        self.hello = hello
        self.check = check
        self.decide = decide
        self.observe = observe
        self.start = start
        self.setup_seconds = 0.0
        self.frames_sent = 0
        self.sent = 0
        self.received = 0
        self.down: dict[int, float] = {}
        self.redialing: set[int] = set()  # seats a redial of ours is dialling now
        self.watchers = Watchers(mesh, cfg.spectator_linger,  # our waits: a spectator bounds its own by them (§3.5)
                                 {"timeout": cfg.timeout, "resume_timeout": cfg.resume_timeout, "linger": cfg.linger})
        self.deciding = False
        self.held_decision: tuple[int, int, int] | None = None  # (tick, phase, our last number) a decider asked
        # during the rejoin hold was asked at: its answer is for that point only
        self.held_action: Action | None = None  # its answer, made (signed) once the hold ends if still at that point
        self.held_leave = False  # our player left during the rejoin hold: its abort is made once the hold ends
        self.decider_scope: trio.CancelScope | None = None  # the decider running now
        self.decider_run = 0  # its number: an answer of an earlier, cancelled one is dropped
        self.own_refused: tuple[Any, int] = (None, 0)  # (decision point, our decider's actions refused there)
        self.left = False  # our player left the table (LeaveTable from the decider)
        self.deadlines = Deadlines(cfg.timeout, cfg.resume_timeout)
        self.clock = RunningClock()  # deadlines count only the time our own loop ran on time
        self.heard: set[int] = set()  # seats that sent us anything since the mesh formed
        self.formed_at = self.clock.now()
        self.synced: set[int] = set()  # seats whose sync we answered on their current connection
        self.sync_sent: dict[int, int] = {}  # bytes of relays sent in answer to each seat's syncs, all its links
        self.asked: set[int] = set()  # seats we sent our own sync to on their current connection
        self.fins: set[int] = set()  # seats that told us they finished
        self.fin_sent = False
        self.own_duty: tuple[tuple[int, int] | None, float] = (None, 0.0)  # what we owe now, and since when
        self.graced: set[tuple[int, Any]] = set()  # (seat, point) given one more timeout: "behind", or rejoined
        self.sync_now: list[int] = []  # seats to send our sync to at once (a seat held up in our audit)
        self.back_by: dict[int, float] = {}  # finished: seat -> until when (clock) we serve it, fixed at its first drop
        self.formed_wall = trio.current_time()  # our mesh formed (the rejoin hold counts from here, §3.5)
        self.log = None if cfg.resume_path is None else ResumeWriter(cfg, ls, addresses)  # (packed here; its
        # worker thread makes the file, and a resume's whole log, off the game's loop: §3.5)
        self.hold_until: float | None = None  # rebuilt from a log: make nothing of ours until then (REJOIN_HOLD)
        self.hold_from = 0.0
        self.held_mine: dict[int, int] = {}  # rejoining: seat -> the highest number of ours its sync says it holds
        self.handed: dict[int, int] = {}  # seat -> the highest number of ours it holds or we relayed to it (its sync)
        self.chat = ChatDesk(ls.table, ls.seat, self.sign)
        if ls.seat is not None:  # on links that agreed to it (§5.4)
            mesh.compactor = partial(compact_frame, players=ls.players, previous=partial(ls.held_copy, ls.seat))

    @property
    def sign(self) -> Callable[[bytes], bytes]:
        return self.cfg.secrets.identity.sign

    async def run(self, listener: Listener | None, rejoining: bool) -> None:
        try:
            await self._run(listener, rejoining)
            if self.log is not None:
                await self.log.aclose()
        except BaseException:
            # Cancelled (the app gave the game up, a Ctrl-C; in the end's close too) or failed: the log's last
            # records, still in memory or in a worker's write the process ends with, are written and fsynced all the
            # same, a bounded wait shielded from the cancel (before, they were left: red-team rt6-faults, 4 of 5
            # records of a slow disk)
            if self.log is not None:
                with trio.CancelScope(shield=True):
                    await self.log.aclose(CANCEL_CLOSE_WAIT)
            raise

    async def _run(self, listener: Listener | None, rejoining: bool) -> None:
        ls, mesh = self.ls, self.mesh
        merged_in, merged = trio.open_memory_channel(256)
        async with mesh, trio.open_nursery() as nursery:
            nursery.start_soon(self._pump, merged_in.clone())
            nursery.start_soon(self.clock.run)
            if self.log is not None:
                nursery.start_soon(self.log.run)
            if self.cfg.leave is not None:
                nursery.start_soon(self._watch_leave, self.cfg.leave, merged_in.clone())
            if self.cfg.relinks is not None:
                nursery.start_soon(self._relink, self.cfg.relinks)
            if self.cfg.chat is not None:
                nursery.start_soon(self._watch_chat, self.cfg.chat, merged_in.clone())
            if listener is not None:
                nursery.start_soon(partial(mesh.serve_rejoins, listener, self.hello, self.check,
                                           spectators=self.cfg.spectators, sign=self.sign))
            if rejoining:
                # From our mesh's forming, as the others' wait for us runs: not after our new log's fsync too (a
                # disk that took 3 s over it, with a seat away, had the seat waiting for our move name us silent;
                # review rv6-hold).
                spent = max(0.0, trio.current_time() - self.formed_wall)
                self.hold_from = self.clock.now()
                self.hold_until = self.hold_from + max(0.0, min(REJOIN_HOLD, self.cfg.timeout / 2) - spent)
                ls.rejoin_hold = True  # a fault found on receipt meanwhile waits for the hold's end (§3.5)
                self.watchers.resumed(trio.current_time())
                for seat in mesh.seats:
                    await self._sync(seat)
            linger_until: float | None = None
            seats_done = False
            while True:
                holding = self._holding()
                if not holding and self.held_action is not None:
                    action, self.held_action = self.held_action, None
                    if self.held_decision == self._decision_key() and ls.awaiting_me():
                        self._act(action)
                    self.held_decision = None
                if not holding and self.held_leave:
                    self.held_leave = False
                    if not ls.finished:
                        ls.leave()
                if not holding:
                    await self._flush()
                mesh.set_progress(None if ls.auditing else [ls.tick, ls.phase])
                if ls.finished:
                    now = trio.current_time()
                    if linger_until is None:
                        linger_until = now + self.cfg.linger
                    await self._send_fin()
                    linger_until = max(linger_until, self._coming_back(now))
                    seats_done = self.fins >= set(mesh.seats) - self._gone() or now >= linger_until
                    if seats_done and not self.watchers.coming_back(now):
                        self.watchers.ended()
                        break
                # The player decides during the hold too (a person thinks meanwhile, a bot's answer waits): only
                # its message waits. The hold and the formation's wait come out of the time the seat waiting for our
                # move gives us (its timeout from our link's return): a person who took 4 s of a 10 s timeout was
                # named silent when a third seat was away and the hold ran its full 5 s (review rv6-hold).
                if self.deciding and self.held_decision is not None and self.held_decision != self._decision_key():
                    # Asked in the hold at a point our own message, handed back, has answered since: ask again now,
                    # not after the player's answer to it (a bot slowed to 6 s of a 10 s timeout, asked twice, was
                    # named silent; review rv6-faults)
                    if self.decider_scope is not None:
                        self.decider_scope.cancel()
                    self.decider_run += 1
                    self.deciding = False
                    self.held_decision = None
                if ls.awaiting_me() and not self.deciding and self.held_action is None and not self.held_leave:
                    self.deciding = True
                    self.held_decision = self._decision_key() if holding else None
                    self.decider_run += 1
                    # Its scope is made here, not in its task: trio may run our next step first (a frame waiting), and
                    # a withdrawal then cancelled the previous decider's scope; the stale one asked all the same, beside
                    # the owed one, and took its answer (rv7-stale, tests/test_resume_hold_late_decider.py)
                    self.decider_scope = trio.CancelScope()
                    nursery.start_soon(self._run_decider, merged_in.clone(), self.decider_run, self.decider_scope)
                if holding:
                    assert self.hold_until is not None
                    wait = self.hold_until - self.clock.now()
                elif linger_until is None:
                    wait = self._wait()
                elif seats_done:  # only a spectator is waited for
                    wait = self.watchers.wait_until() - trio.current_time()
                else:
                    wait = linger_until - trio.current_time()
                self._time_own_duty()
                with trio.move_on_after(max(wait, 0.0)) as scope:
                    event = await merged.receive()
                if scope.cancelled_caught:
                    if not ls.finished and not holding:
                        self._expire()
                    sync_now, self.sync_now = self.sync_now, []
                    for seat in sync_now:
                        await self._sync(seat)
                    continue
                self._time_own_duty()  # (before what came is taken in: an abort stops the clock)
                await self._handle(event, nursery)
            self.sent = sum(mesh.bytes_sent.values())
            self.received = sum(mesh.bytes_received.values())
            nursery.cancel_scope.cancel()

    async def _pump(self, out: trio.MemorySendChannel[Any]) -> None:
        async with out:
            async for event in self.mesh.receive():
                await out.send(event)

    @staticmethod
    async def _watch_leave(leave: trio.Event, out: trio.MemorySendChannel[Any]) -> None:
        async with out:
            await leave.wait()
            await out.send(("leave", None))

    @staticmethod
    async def _watch_chat(lines: trio.MemoryReceiveChannel[str], out: trio.MemorySendChannel[Any]) -> None:
        async with out:
            async for line in lines:
                await out.send(("say", line))

    async def _run_decider(self, out: trio.MemorySendChannel[Any], run: int, scope: trio.CancelScope) -> None:
        async with out:
            if scope.cancel_called:
                return  # withdrawn before its task first ran: nothing is asked
            with scope:
                try:
                    action = await self.decide(self.ls)
                except LeaveTable:
                    await out.send(("leave", None))
                    return
                await out.send(("act", action, run))

    def _decision_key(self) -> tuple[int, int, int]:
        """Where we are, with the last number of ours we hold: a decision asked during the rejoin hold is answered at
        the same key, or our own message for it came back relayed meanwhile (§3.5) and the answer is dropped."""
        return self.ls.tick, self.ls.phase, self.ls.known_seq(self.ls.seat)  # type: ignore[arg-type]

    def _holding(self) -> bool:
        """Rebuilt from a log: whether our own messages still wait for the others to hand ours back (REJOIN_HOLD).
        The wait is ours, as a stalled loop's is (RunningClock): no deadline of another seat runs on it."""
        if self.hold_until is None:
            return False
        now, mine = self.clock.now(), self.ls.known_seq(self.ls.seat)  # type: ignore[arg-type]
        # Every seat's sync, not the first one in: a seat that lacks our last messages (it never got them, or a
        # cheater says so) would end the wait while another holds them, and our new message would equivocate. Nor
        # only the seats linked now: a seat whose link is down (it came back slower than our formation's wait, or
        # dropped again) may be the one that holds them (red-team rt6-hold: seat 2's sync ended the hold while
        # seat 0, still dialling in, held our last move; seat 0 named us equivocation). Only a seat known gone is
        # not waited for. The wait stays bounded (hold_until) and is our own stall, so no seat's deadline runs on it.
        awaited = set(self.mesh.seats) - self._gone()
        told = (awaited <= self.held_mine.keys() and all(n <= mine for n in self.held_mine.values()))
        if now < self.hold_until and not told and not self.ls.finished:
            return True
        self.clock.stalled += max(0.0, min(now, self.hold_until) - self.hold_from)
        self.hold_until = None
        self.ls.end_rejoin_hold()  # (before anything of ours is made: a fault found in the hold makes our abort now)
        return False

    def _awaited(self) -> dict[int, Any]:
        """Seat -> the message it owes us now (our own seat excluded: others time us)."""
        ls = self.ls
        if ls.auditing:
            owed: dict[int, Any] = {s: "audit" for s in ls.audit_required() if s != ls.seat}
            if not owed and ls.open_disputes():
                owed[-1] = "evidence"  # a dispute waits for its evidence until the audit deadline
            return owed
        return {s: (ls.tick, ls.phase) for s in ls.waiting_for() if s != ls.seat}

    def _down(self) -> dict[int, float]:
        """Seats whose link is down, and since when.

        A seat that has sent nothing at all since our mesh formed (not one heartbeat)
        counts as down since then: its own mesh may still be forming (a link of its
        we cannot see), so it cannot have started, and it is given ``resume_timeout``
        and named unreachable, not silent, if it never comes.
        """
        quiet = {s: self.formed_at for s in self.mesh.seats if s not in self.heard and s not in self.mesh.beats}
        return {**quiet, **self.down}

    def _time_own_duty(self) -> None:
        """Whether the message we owe now is overdue by our own clock (others time us): if another seat's abort says
        we went silent, our verdict agrees only then (``ls.late_here``, read by the audit); else it is that seat's
        word alone. Frozen once the table stops, at what it was when the abort came."""
        ls = self.ls
        if ls.fault is not None or ls.auditing:
            return
        owed = (ls.tick, ls.phase) if ls.seat in ls.waiting_for() else None
        now = self.clock.now()
        if owed != self.own_duty[0]:
            self.own_duty = (owed, now)
        ls.late_here = owed is not None and now - self.own_duty[1] >= self.cfg.timeout

    def _grace_once(self, seat: int, why: Any, now: float) -> bool:
        """One more ``timeout`` from ``now`` for what ``seat`` owes, once per ``why`` (a point, with its reason):
        whether it was given."""
        if (seat, why) in self.graced:
            return False
        self.graced.add((seat, why))
        self.deadlines.update(self._awaited(), now)
        self.deadlines.grace(seat, now)
        return True

    def _held_up_audit(self, seat: int, now: float, down: dict[int, float]) -> bool:
        """Whether ``seat``'s audit is given until ``timeout`` after the last down seat's ``resume_timeout`` (once).

        In our audit, ``seat`` still plays by its heartbeat while another seat's link is down: it may be waiting
        for that seat's last message, which reached us (not it) before the drop (a killed process), and it gives
        that seat ``resume_timeout`` from the drop, as we do. Its audit comes when that runs out; named at our
        ``timeout`` instead, an honest seat was convicted ``refused_audit`` (chaos soak). A seat that does not
        audit by then is named as before.
        """
        if (not self.ls.auditing or seat in down or (seat, "held_up") in self.graced
                or not _is_game_point(self.mesh.beats.get(seat))):
            return False
        drops = [t for s, t in down.items() if s >= 0 and s != seat]
        if not drops:
            return False
        until = max(drops) + self.cfg.resume_timeout
        if until <= now:
            return False
        self.graced.add((seat, "held_up"))
        self.deadlines.update(self._awaited(), now)
        self.deadlines.grace(seat, until)  # due from then: late a timeout after it
        return True

    def _sync_held_up(self, seat: int, now: float, down: dict[int, float]) -> bool:
        """Whether ``seat``, late with its audit while its heartbeat says it still plays, is sent our ``sync`` and
        given one more ``timeout`` (once).

        It may wait for a message we hold and it never got: a cheater that sent its last message to us only and cut
        its link to that seat, keeping ours up, left no link down here, so :meth:`_held_up_audit` gave nothing, and
        the honest seat, waiting ``resume_timeout`` for the cheater, was named ``refused_audit``
        (review rt5; tests/chaos_repro/repro_withhold_keep_link.py). Our sync shows it we hold more; it asks, and we
        relay what it lacks."""
        if (not self.ls.auditing or seat in down or (seat, "held_up_sync") in self.graced
                or not _is_game_point(self.mesh.beats.get(seat))):
            return False
        self.graced.add((seat, "held_up_sync"))
        self.synced.discard(seat)  # its sync back is answered on this connection once more
        self.asked.discard(seat)
        self.sync_now.append(seat)
        self.deadlines.update(self._awaited(), now)
        self.deadlines.grace(seat, now)  # (a longer grace of _held_up_audit, called next, replaces it)
        return True

    def _wait(self) -> float:
        """Seconds until the first awaited message is late (a long time if none is awaited)."""
        now = self.clock.now()
        self.deadlines.update(self._awaited(), now)
        first = self.deadlines.next_deadline(self._down())
        return 3600.0 if first is None else first - now

    def _act(self, action: Action) -> None:
        """Send our decider's ``action``; one the rules refuse, or too large to send, is logged and the decider asked
        again (the main loop restarts it), and after :data:`MAX_OWN_REFUSALS` for one decision we leave the table.
        Raised, the refusal ended this peer with no verdict and no transcript, and the others named us silent or
        unreachable (an embedder's float for a slot number, say, or a field of 70 000 values)."""
        ls = self.ls
        try:
            ls.act(action)  # (which refuses one past the action bound: check_action_size)
        except (IllegalAction, NotCanonical) as err:
            point = (ls.tick, ls.phase)
            refused = self.own_refused[1] + 1 if self.own_refused[0] == point else 1
            self.own_refused = (point, refused)
            log.warning("seat %s: our own action was refused (%s); %s", ls.seat, safe(str(err), 200),
                        "leaving the table" if refused >= MAX_OWN_REFUSALS else "asking again")
            if refused >= MAX_OWN_REFUSALS and not self.left:
                self.left = True
                ls.leave()

    def _expire(self) -> None:
        """Name the seats whose own deadline passed; a seat whose link is down is unreachable, not silent."""
        now = self.clock.now()
        self.deadlines.update(self._awaited(), now)
        down = self._down()
        late = self.deadlines.expired(now, down)
        behind = set()
        for seat in list(late):
            if seat >= 0 and self.deadlines.behind(seat, self.mesh.beats.get(seat)):
                if self._grace_once(seat, (self.ls.tick, self.ls.phase), now):  # once per owed message
                    late.remove(seat)
                    continue
                behind.add(seat)
            elif seat >= 0 and (self._sync_held_up(seat, now, down) | self._held_up_audit(seat, now, down)):
                late.remove(seat)
        if late:
            self.ls.timeout([s for s in late if s >= 0], frozenset(s for s in late if s in down),
                            frozenset(behind))

    async def _handle(self, event: Any, nursery: trio.Nursery) -> None:
        ls = self.ls
        if isinstance(event, tuple) and event[0] == "act":
            if event[2] != self.decider_run:
                return  # a decider cancelled since (asked at a point answered meanwhile): a newer one runs
            self.deciding = False
            if self.held_decision is not None:  # asked during the hold: for that point only
                if self.held_decision != self._decision_key() or not ls.awaiting_me():
                    self.held_decision = None  # our own message for it came back: asked again if we still owe one
                elif self.hold_until is not None:
                    self.held_action = event[1]  # made once the hold ends (the main loop)
                else:
                    self.held_decision = None
                    self._act(event[1])
            elif ls.awaiting_me():
                self._act(event[1])
        elif isinstance(event, tuple) and event[0] == "leave":
            if self.left or ls.finished:
                return
            self.left = True
            if self.hold_until is not None:
                # Our abort is a message of our own, numbered after the last our log holds: made in the hold, it took
                # the number of a move the log lost that the others hold, and they named us equivocation (rv6-faults)
                self.held_leave = True
                return
            ls.leave()
        elif isinstance(event, tuple) and event[0] == "say":
            await self._say(event[1])
        elif isinstance(event, Frame):
            self.heard.add(event.seat)
            frame = event.frame
            if "chat" in frame:
                self._heard_chat(event.seat, frame["chat"])
            elif "sync" in frame:
                ours = -1 if ls.seat is None else self._sync_entries(frame["sync"]).get(ls.seat, -1)
                if self.hold_until is not None and ls.seat is not None:
                    self.held_mine[event.seat] = ours
                await self._answer_sync(event.seat, frame["sync"])
                if ls.seat is not None:  # (what our answer relayed of ours, or it says it holds)
                    self.handed[event.seat] = max(ours, ls.known_seq(ls.seat))
                if self._holds_more(frame["sync"]) and event.seat not in self.asked:
                    # It holds messages we lack (a link of ours was replaced while our mesh was still
                    # forming, say, so we never saw it drop): ask for them in turn.
                    await self._sync(event.seat)
            elif "relay" in frame:
                mine = -1 if ls.seat is None else ls.known_seq(ls.seat)
                ls.relayed_by(event.seat, frame["relay"])
                if ls.seat is not None and ls.known_seq(ls.seat) > mine:
                    await self._hand_on_mine()
            elif "fin" in frame:
                self.fins.add(event.seat)
            elif len(frame) == 1 and FRAME in frame:
                ls.receive_compact(event.seat, frame[FRAME])
            elif len(frame) == 1 and WANT in frame:
                answer = ls.answer_want(event.seat, frame[WANT])
                if answer is not None:
                    await self.mesh.send(event.seat, {FULL: answer})
            elif len(frame) == 1 and FULL in frame:
                ls.receive(event.seat, frame[FULL])  # a full form we asked for: judged as a direct message
            else:
                ls.receive(event.seat, frame)
        elif isinstance(event, PeerError):
            self.synced.discard(event.seat)
            self.asked.discard(event.seat)
            if event.seat not in self.down:
                self.down[event.seat] = self.clock.now()
                self._tell_link(event.seat, up=False)
                if event.seat < ls.seat and not (ls.finished and event.seat in self.fins):  # type: ignore[operator]
                    # The higher seat of a pair dials (as when the mesh formed).
                    nursery.start_soon(self._redial, event.seat)
        elif isinstance(event, Rejoined):
            if self.down.pop(event.seat, None) is not None:
                self._tell_link(event.seat, up=True)
                # Back in time (it was told it had resume_timeout): what it owes gets a fresh timeout from now, or
                # a move that fell due before the drop made it late the moment its link came back. Once a point,
                # so relinking cannot postpone a deadline for good.
                self._grace_once(event.seat, ("rejoined", ls.tick, ls.phase), self.clock.now())
            self.synced.discard(event.seat)
            self.asked.discard(event.seat)
            await self._sync(event.seat)
            if self.fin_sent:
                await self.mesh.send(event.seat, {"fin": 1})
        elif isinstance(event, SpectatorJoined):
            self.watchers.joined(event.spectator, ls)
        elif isinstance(event, SpectatorLeft):
            self.watchers.left(event, trio.current_time())

    async def _say(self, text: str) -> None:
        """Our player's chat line: signed, sent to every seat and spectator, and shown here too."""
        try:
            chat = self.chat.compose(text, trio.current_time())
        except ChatRefused as err:
            self._tell_chat(ChatDropped(-1 if self.ls.seat is None else self.ls.seat, str(err)))
            return
        await self.mesh.broadcast({"chat": chat})
        self.watchers.chat(chat)
        self._tell_chat(ChatLine(chat["from"], chat["text"]))

    def _heard_chat(self, seat: int, chat: Any) -> None:
        """Another seat's chat frame: shown if good, one notice naming the seat if not (never a fault)."""
        got = self.chat.receive(seat, chat, trio.current_time())
        if isinstance(got, ChatLine):
            self.watchers.chat(chat)
        if got is not None:
            self._tell_chat(got)

    def _tell_chat(self, note: ChatLine | ChatDropped) -> None:
        if self.cfg.on_chat is not None:
            self.cfg.on_chat(note)

    def _tell_link(self, seat: int, up: bool) -> None:
        """Tell ``cfg.on_link`` a link changed while the game runs (the links closing at its end are no news)."""
        if self.cfg.on_link is not None and not self.ls.finished:
            self.cfg.on_link(seat, up, 0.0 if up else self.cfg.resume_timeout)

    async def _redial(self, seat: int) -> None:
        """Dial ``seat`` again until ``resume_timeout``; if that fails it stays down and its deadline
        names it unreachable (the new link, if one comes, arrives as a ``Rejoined`` event).

        One at a time a seat: a lower seat that dialled us itself and dropped again, over and over, started a
        redial of its each time, all dialling it at once until their ``resume_timeout``. A drop that comes while
        one runs is served by it, or by the next one once it gave up (each drop gets its ``resume_timeout``).
        """
        if seat in self.redialing:
            return
        self.redialing.add(seat)
        try:
            while True:
                episode = self.down.get(seat)
                done = await self.mesh.redial(seat, self.addresses[seat], self.hello, self.check,
                                              self.cfg.resume_timeout, sign=self.sign)
                if done or self.ls.finished or self.down.get(seat) in (None, episode):
                    return
        finally:
            self.redialing.discard(seat)

    async def _relink(self, seats: trio.MemoryReceiveChannel[int]) -> None:
        """Move a link that is up onto a better path (``PeerConfig.relinks``); a lower seat waits to be dialled."""
        async for seat in seats:
            if seat < self.ls.seat and seat not in self.down and not self.ls.finished:  # type: ignore[operator]
                await self.mesh.redial(seat, self.addresses[seat], self.hello, self.check, RELINK_TIMEOUT,
                                       sign=self.sign)

    async def _sync(self, seat: int) -> None:
        """Tell ``seat`` which messages we hold; it relays what we lack."""
        self.asked.add(seat)
        have = [[s, self.ls.sync_seq(s)] for s in range(self.ls.players)]
        await self.mesh.send(seat, {"sync": have})

    def _sync_entries(self, have: Any) -> dict[int, int]:
        """A peer's ``sync``: author -> the highest number it holds (each author's first well-formed entry)."""
        entries: dict[int, int] = {}
        for item in have[: self.ls.players] if isinstance(have, list) else ():
            if (isinstance(item, list) and len(item) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in item)
                    and 0 <= item[0] < self.ls.players):
                entries.setdefault(item[0], item[1])
        return entries

    def _holds_more(self, have: Any) -> bool:
        """Whether a peer's ``sync`` says it holds a message we do not (of any author)."""
        return any(seq > self.ls.known_seq(author) for author, seq in self._sync_entries(have).items())

    async def _answer_sync(self, seat: int, have: Any) -> None:
        """Relay what ``seat`` lacks: once per connection, each author once, within the seat's byte budget (all its
        connections together: :data:`MAX_SYNC_BYTES`)."""
        if seat in self.synced or not isinstance(have, list):
            return
        self.synced.add(seat)
        asked = self._sync_entries(have)
        for author, seq in sorted(asked.items()):
            if not await self._relay(seat, self.ls.messages_after(author, seq, to=seat)):
                return

    async def _relay(self, seat: int, wires: Iterable[Any]) -> bool:
        """Relay ``wires`` to ``seat`` while its byte budget (:data:`MAX_SYNC_BYTES`) lasts; False once it ran out."""
        for wire in wires:
            frame = {"relay": wire}
            size = len(encode(frame))
            if self.sync_sent.get(seat, 0) + size > MAX_SYNC_BYTES:
                return False
            self.sync_sent[seat] = self.sync_sent.get(seat, 0) + size
            await self.mesh.send(seat, frame)
        return True

    async def _hand_on_mine(self) -> None:
        """Messages of our own that came back relayed (rebuilt from a log that lacked them: §3.5, the rejoin hold)
        go on to every linked seat whose ``sync`` said it lacks them: we answered that sync before we held them
        (once per connection), and no other seat relays to it on a link that never dropped. Before, a seat that had
        missed our last message (our machine died between two sends) waited for it in vain while we waited for its
        next one, and named us ``silent`` (red-team rt6-hold). Within the seat's sync budget
        (:data:`MAX_SYNC_BYTES`)."""
        seat = self.ls.seat
        assert seat is not None
        mine = self.ls.known_seq(seat)
        for other, has in sorted(self.handed.items()):
            if has >= mine or other in self.down or other not in self.mesh.seats:
                continue  # (a seat whose link is down syncs again when it is back)
            self.handed[other] = mine
            await self._relay(other, self.ls.messages_after(seat, has, to=other))

    def _coming_back(self, now: float) -> float:
        """Until when (``trio`` time) a seat whose link dropped before it said it finished may still come back: its
        drop plus ``resume_timeout``, as it was told. After our verdict we keep serving it that long, not only
        ``linger``: it may be a process that died in the audit, resuming from its log, and it needs our audit to end
        its own game (before: it came back after our ``linger`` to nobody, and ended with no verdict nor transcript
        though the game was clean everywhere else; chaos soak seed 105)."""
        v = self.ls.verdict
        left = {v.culprit} if v is not None and v.culprit is not None and v.code == "left" else set()
        gone, clock = self._gone() | self.fins | left, self.clock.now()  # (a seat that left is not coming back)
        # Once a seat: the first drop we see after our verdict fixes how long we serve it. A seat that rejoins and
        # drops again gets no more (before: a cheater that never sent fin and dropped its link every few seconds,
        # its runner redialling, held an honest finished peer for good; review rt5).
        back = [self.back_by.setdefault(s, t + self.cfg.resume_timeout) - clock
                for s, t in self.down.items() if s not in gone]
        return now + max(back, default=0.0)

    def _gone(self) -> set[int]:
        """Seats our verdict names as silent or unreachable: nobody to linger for."""
        v, fault = self.ls.verdict, self.ls.fault
        gone = set(v.seats) if v is not None else set()
        if v is not None and v.culprit is not None and v.code in ("silent", "unreachable", "refused_audit"):
            gone.add(v.culprit)
        if fault is not None and fault.silent and fault.culprit is not None:
            gone.add(fault.culprit)
        return gone

    async def _send_fin(self) -> None:
        """Tell everyone we finished (after our audit), so they know they may stop serving us."""
        if not self.fin_sent:
            self.fin_sent = True
            await self.mesh.broadcast({"fin": 1})

    async def _flush(self) -> None:
        ls = self.ls
        out = ls.poll()
        if self.log is not None:
            # Write ahead: a message reaches the log, and the disk, before the network, so a peer that
            # dies in between (or whose machine does) comes back knowing what it sent (and relays it on sync).
            # An fsync takes milliseconds, and runs in a worker thread; a slow disk's is waited for at most
            # SYNC_WAIT of our timeout, and then runs on while we send (else the others named us silent).
            if out:
                began = self.clock.now()
                await self.log.sync(self.cfg.timeout * SYNC_WAIT)
                # But we read nothing meanwhile: that wait is ours, as a stalled loop's is (RunningClock), so no
                # deadline of another seat runs on it (its message may be waiting for us, in time, unread).
                self.clock.stalled += max(0.0, self.clock.now() - began)
            else:
                self.log.flush()
        for msg in out:
            for wire, seats in ls.deliveries(msg, self.mesh.seats):  # a pass's points: to the next passer (§6.4)
                await self.mesh.broadcast(wire, seats)
            self.frames_sent += 1
        wants, ls.compact.wants = ls.compact.wants, []
        for seat, seq in wants:  # compact frames we could not rebuild: their full forms decide (§5.4)
            if seat in self.mesh.seats:
                await self.mesh.send(seat, {WANT: seq})
        forwarded, ls.forward = ls.forward, []
        for wire in forwarded:  # aborts, audits and equivocation proofs reach every peer (ending.py)
            await self.mesh.broadcast({"relay": wire})
            self.frames_sent += 1
        self.watchers.relay(ls)
        if self.observe is not None:
            self.observe(ls, [])
        if not self.setup_seconds and isinstance(ls.step, Decide) and ls.state.setup_done():
            self.setup_seconds = time.perf_counter() - self.start  # keys, shuffles, deals: all ready
        if self.log is not None:
            self.log.flush()
