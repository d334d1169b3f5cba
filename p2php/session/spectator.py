"""Watching a running table: a spectator sees exactly what the public sees, live.

A spectator connects to any peer's listener with a hello claiming seat ``-1`` and
``"spectator": true``.  The peer first sends the table (every signed hello), then
relays every signed message as it processes it.  The spectator checks all of it
itself — signatures, chains, the engine replay and, at the end, the audit — with a
:class:`~p2php.session.lockstep.Lockstep` that has no seat and no secret, so it
cannot learn a hidden card even from a peer that wanted to tell it one (it would
need that peer's keys, which only ever travel sealed to their recipient).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from p2php import PROTOCOL_VERSION
from p2php.engine.registry import get_game
from p2php.errors import P2phpError
from p2php.net.framing import FrameDecoder, FrameError, encode_frame
from p2php.net.mesh import DEAD_AFTER, SPECTATOR, LinkSetup
from p2php.session.chat import ChatDesk, ChatDropped, ChatLine
from p2php.session.handshake import Table, check_hello
from p2php.session.lockstep import Lockstep
from p2php.session.modes import parse_table_options
from p2php.text import safe


class WatchError(P2phpError):
    """Watching failed; the message says why, for a person to read. ``held``: the record a link that ended in the
    audit held (its verdict, should no later link show the end: see :func:`keep_watching`); ``final``: the watched
    seat held us in its audit past what its announced waits allow, so watching again is not worth it."""

    def __init__(self, message: str, held: Lockstep | None = None, final: bool = False) -> None:
        super().__init__(message)
        self.held = held
        self.final = final


async def _read(stream: trio.abc.ReceiveStream, decoder: FrameDecoder) -> dict[str, Any] | None:
    while (frame := decoder.next_frame()) is None:
        data = await stream.receive_some(65536)
        if not data:
            return None
        decoder.receive_data(data)
    return frame


async def watch(host: str, port: int, name: str = "spectator",
                observe: Callable[[Lockstep], None] | None = None, dead_after: float = DEAD_AFTER,
                connect: Callable[[], Awaitable[trio.abc.Stream]] | None = None,
                on_chat: Callable[[ChatLine | ChatDropped], None] | None = None) -> Lockstep:
    """Watch the table of the peer at ``host:port`` until the game (and its audit) ends (else :class:`WatchError`;
    a peer that hangs up mid-game is one: it may be resuming, see :func:`keep_watching`).

    However long the game, the link lives while frames come: the peer sends a heartbeat every 2 s, so a link that
    brings nothing for ``dead_after`` seconds is dead (a :class:`WatchError`), not a table where nobody moves.
    ``connect()``: how to reach the peer instead of TCP (an online table's libp2p stream; ``host`` names it).
    ``on_chat``: told the seats' chat lines the peer relays, each checked against its author's key (§3.8).
    """
    try:
        stream = await (connect() if connect is not None else trio.open_tcp_stream(host, port))
    except (OSError, trio.BrokenResourceError) as err:  # (a libp2p stream may be reset while it opens)
        where = host if connect is not None else f"{host}:{port}"
        raise WatchError(f"cannot reach a peer at {where}: {getattr(err, 'strerror', None) or err}") from None
    decoder = FrameDecoder()
    ls: Lockstep | None = None
    desk: ChatDesk | None = None
    async with stream:
        try:
            with trio.fail_after(10):
                ours = {"seat": SPECTATOR, "spectator": True, "name": name, "hello": PROTOCOL_VERSION}
                await stream.send_all(encode_frame(ours))
                theirs = await _read(stream, decoder)
                if theirs is None:
                    raise WatchError("the peer closed the connection")
                # The mesh's own handshake step; we hold no key and prove nothing (sign=None),
                # the peer proves it holds its hello's key.
                setup = LinkSetup(ours, theirs, dialer=True, sign=None)
                await stream.send_all(encode_frame(setup.challenge()))
                await stream.send_all(encode_frame(setup.proof(await _read(stream, decoder))))
                if not setup.proven(await _read(stream, decoder)) or setup.macs is None:
                    raise WatchError("the peer did not prove it holds the key of its hello")
                _, receive_mac = setup.macs
                await stream.send_all(encode_frame({"mesh": "ok"}))
                verdict = await _read(stream, decoder)
            if verdict != {"mesh": "ok"}:
                reason = verdict.get("reason") if isinstance(verdict, dict) else "connection closed"
                raise WatchError(f"the peer refused us: {safe(str(reason), 200)}")
            decoder.authenticate(receive_mac)  # everything after the verdicts carries the link tag
            table_by = trio.current_time() + TABLE_WAIT
            last_relay = trio.current_time()
            done = False  # the peer said it left with its verdict ({"watch": "end"}): it is not coming back
            waits = dict(UNANNOUNCED_WAITS)  # the watched seat's, as its table says
            audit_since: float | None = None  # when our record reached the audit on this link
            watched = -1  # the watched seat's number, once its table is shown
            while True:
                if ls is None and trio.current_time() > table_by:
                    raise WatchError("the peer did not show its table in time")
                if ls is not None and ls.auditing and not ls.finished:
                    now = trio.current_time()
                    audit_since = now if audit_since is None else audit_since
                    if now - audit_since > audit_wait(waits):
                        raise WatchError(_held_past(audit_wait(waits), waits), held=ls, final=True)
                elif ls is not None and not ls.finished and trio.current_time() - last_relay > (
                        bound := stand_wait(waits, owes := watched in ls.waiting_for())):
                    raise WatchError(_stood_still(bound, waits, ls, owes), final=True)
                try:
                    with trio.fail_after(dead_after):
                        frame = await _read(stream, decoder)
                except trio.TooSlowError:
                    raise WatchError(f"the peer sent nothing for {dead_after:g} s, not even a heartbeat",
                                     held=_in_reveals(ls)) from None
                if frame is None:
                    break
                if "hb" in frame and ls is not None and _ahead(frame.get("at"), ls) \
                        and trio.current_time() - last_relay > RELAY_LAG:
                    raise WatchError(f"the peer's game went on, but it relayed nothing for {RELAY_LAG:g} s")
                if frame.get("watch") == "table":
                    if ls is not None:
                        raise WatchError("the peer showed the table twice")
                    ls, waits = _table(frame)
                    desk = ChatDesk(ls.table, None, None)
                    if theirs not in ls.table.hellos:  # the proven key must be one of the table's
                        raise WatchError("the peer's own hello is not one of the table it shows")
                    watched = ls.table.hellos.index(theirs)
                elif frame.get("watch") == "end" and ls is not None:
                    done = True  # (whatever follows is not read: the peer hangs up)
                    break
                elif "chat" in frame and desk is not None:
                    note = desk.receive(None, frame["chat"], trio.current_time())
                    if note is not None and on_chat is not None:
                        on_chat(note)
                elif "relay" in frame and ls is not None:
                    held = _held(ls)
                    ls.receive_relayed(frame["relay"])
                    if _held(ls) > held:  # a message new to us (not a copy, not garbage): the peer is relaying
                        last_relay = trio.current_time()
                    ls.poll()
                    if observe is not None:
                        observe(ls)
                    if ls.finished:
                        break
        except FrameError as err:
            raise WatchError(f"the peer sent a bad frame: {err}", held=_in_reveals(ls)) from None
        except (trio.BrokenResourceError, OSError) as err:  # (a reset, in the reveals, is an end like any other)
            raise WatchError(f"the connection broke: {err}", held=_in_reveals(ls)) from None
        except trio.TooSlowError:
            raise WatchError("the peer did not answer in time") from None
    if ls is None:
        raise WatchError("the peer never showed the table")
    if not ls.finished:
        if not ls.auditing:  # mid-game: it crashed, or resumes; naming the seats we wait for would blame honest ones
            raise WatchError(f"the peer hung up before the game ended (step {ls.tick})")
        if ls.fault is None and not done:  # the game ended and the peer hung up in the reveals: it died, may resume
            raise WatchError(f"the watched seat left before the record's end (step {ls.tick})", held=ls)
        ls.timeout()  # an abort came, or the peer left with its verdict, reveals missing: close with what we hold
    return ls


def _in_reveals(ls: Lockstep | None) -> Lockstep | None:
    """``ls`` if its game ended and its audit is still open (a link ending now held it: see :func:`keep_watching`;
    a link reset or gone silent in the reveals dropped it, and a spectator whose seat was not seen again ended with
    no verdict, where an end of stream left it one), else None."""
    return ls if ls is not None and ls.auditing and not ls.finished else None


def _ahead(at: Any, ls: Lockstep) -> bool:
    """Whether a heartbeat's ``at`` (the watched peer's point, ``[tick, phase]``; None in its audit) is past ours: a
    peer in its audit is past a game we still play (it relayed the game's end before its audit began; one whose
    heartbeats said None, relaying nothing more, held a spectator mid-game for good)."""
    if at is None:
        return not ls.auditing and not ls.finished
    return (isinstance(at, list) and len(at) == 2 and all(type(x) is int for x in at)
            and (at[0], at[1]) > (ls.tick, ls.phase))


def _held(ls: Lockstep) -> int:
    """How many messages we hold, all seats together (each seat's highest number)."""
    return sum(ls.known_seq(seat) for seat in range(ls.players))


RELAY_LAG = 30.0
"""Seconds a watched peer whose heartbeats say its game is past ours may send no relay before we stop watching it
(a reconnect replays the record): one that showed its table and then only heartbeated held a spectator for good,
however long a quiet game is allowed to be. An honest peer relays each message as it processes it."""

TABLE_WAIT = 10.0
"""Seconds a peer has, once we are in, to show its table (an honest one does at once): a peer that sent only
heartbeats held a spectator for good, each one restarting ``dead_after``."""

WATCH_TRIES = 3
"""Links in a row that must fail, over at least :data:`WATCH_FIRST_PATIENCE` seconds, before
:func:`keep_watching` gives up on a table it has not seen yet."""
WATCH_FIRST_PATIENCE = 15.0
"""Seconds a spectator keeps trying a table it has not seen yet: a wrong address is said soon, while a relay or
seat that is away for a moment, or a table whose mesh is still forming, is waited for."""
WATCH_PATIENCE = 60.0
"""Seconds :func:`keep_watching` goes on linking again, once it has seen the table, while no link shows anything
new: as long as the seats wait for one of them that dropped (``PeerConfig.resume_timeout``'s default), since the
seat watched may be that one, coming back."""


async def keep_watching(attempt: Callable[[Callable[[Lockstep], None]], Awaitable[Lockstep]],
                        show: Callable[[Lockstep], None], tell: Callable[[str], None],
                        tries: int = WATCH_TRIES, first_patience: float = WATCH_FIRST_PATIENCE,
                        patience: float = WATCH_PATIENCE, pause: float = 1.0) -> Lockstep:
    """Watch through links that may break: ``attempt(observe)`` watches once (the public record replays from
    its start on every link, so ``show`` must skip what it already showed); ``pause`` seconds after a failed
    link the next one starts, and ``tell`` gets one line for each failure that reads differently from the last.

    Raises the last :class:`WatchError` once links have failed without showing a new event for ``patience``
    seconds (but if a link ended in the audit, returns the record holding the most messages of those links, the
    latest of equals, with that audit closed on what it holds), or,
    before any link showed one, once ``tries`` links failed over ``first_patience`` seconds (a link that shows
    more starts the count again).
    """
    shown = 0  # the most events any link showed

    def observe(ls: Lockstep) -> None:
        nonlocal shown
        shown = max(shown, len(ls.events))
        show(ls)

    misses = 0
    failing_since: float | None = None  # the first failure since a link last showed something new
    said = ""
    held: Lockstep | None = None  # the fullest record of a link that ended in the audit (ties: the latest)
    while True:
        before = shown
        try:
            return await attempt(observe)
        except WatchError as err:
            now = trio.current_time()
            if shown > before:
                misses, failing_since = 0, None
            misses += 1
            failing_since = now if failing_since is None else failing_since
            waited = now - failing_since
            if err.held is not None and (held is None or _held(err.held) >= _held(held)):
                held = err.held  # a seat that resumed from a log lacking reveals must not cost us the ones we held
            if err.final:  # held past the seat's own waits: no honest seat does that, so linking again is no use
                if held is None:
                    raise
                tell(str(err))
                held.timeout()
                return held
            if waited >= patience and held is not None:
                held.timeout()  # the watched seat never came back with the end: close the audit with what we hold
                return held
            if waited >= patience or (shown == 0 and misses >= tries and waited >= first_patience):
                raise
            if str(err) != said:
                said = str(err)
                tell(f"{err} — watching again")
            await trio.sleep(pause)


def audit_wait(waits: dict[str, float]) -> float:
    """Seconds a spectator whose record is in the audit waits on one link for the record's end, or mid-game for a
    new message, given the watched seat's waits (§3.5). Mid-game, a seat's message is due ``timeout`` after it fell
    due, ``resume_timeout`` from a drop, one ``timeout`` more on its return and one more for a seat behind; then the
    watched seat's abort comes. In the audit, each seat's audit is due ``timeout`` after the seat's audit began, or
    ``resume_timeout`` after its link dropped; a seat behind a dropped one gets one ``timeout`` more after that, a
    seat still in the game one more once synced, a dispute open at the end one more; then the seat lingers
    (``linger``, or ``resume_timeout`` for a seat that dropped before its ``fin``). :data:`AUDIT_MARGIN` covers
    relays and a loaded machine."""
    return 4 * waits["timeout"] + 2 * waits["resume_timeout"] + waits["linger"] + AUDIT_MARGIN


def stand_wait(waits: dict[str, float], owes: bool) -> float:
    """Seconds a spectator waits mid-game on one link for a new message: :func:`audit_wait` of the watched seat's
    waits, but while that seat owes the move itself (``owes``) the other seats time it, by their own ``timeout`` and
    ``resume_timeout``, which no frame tells: each is then believed up to :data:`MAX_WAIT`, as an announced one is
    (a person at a seat that waits 3 s for others may think as long as the others allow)."""
    return audit_wait({**waits, "timeout": MAX_WAIT, "resume_timeout": MAX_WAIT} if owes else waits)


def _announced(waits: dict[str, float]) -> str:
    return (f"announced timeout ({waits['timeout']:g} s), resume_timeout ({waits['resume_timeout']:g} s) and linger "
            f"({waits['linger']:g} s)")


def _held_past(bound: float, waits: dict[str, float]) -> str:
    return (f"unattributed: the watched seat held us in its audit for {bound:g} s, past its {_announced(waits)} "
            "allow; closing the audit with what we hold, naming nobody for what is missing")


def _stood_still(bound: float, waits: dict[str, float], ls: Lockstep, owes: bool) -> str:
    if owes:  # its own move: the other seats' waits, not told, each believed up to MAX_WAIT
        return (f"unattributed: the watched seat relayed nothing for {bound:g} s at step {ls.tick}, its own move, "
                f"past what any seats' waits of at most {MAX_WAIT:g} s allow; stopped watching")
    return (f"unattributed: the watched seat relayed nothing for {bound:g} s at step {ls.tick}, past what its "
            f"{_announced(waits)} allow; stopped watching")


def _waits(announced: Any) -> dict[str, float]:
    """The watched seat's waits its table announces, each a number of seconds at most :data:`MAX_WAIT` (and that
    for any it does not give as a finite positive number: a seat of this protocol version from before ``waits`` may
    wait for people 300 s or more, and a cheater could announce :data:`MAX_WAIT` anyway)."""
    waits = dict(UNANNOUNCED_WAITS)
    if isinstance(announced, dict):
        for name in waits:
            value = announced.get(name)
            if not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value) and value > 0:
                waits[name] = min(float(value), MAX_WAIT)
    return waits


MAX_WAIT = 3600.0
"""The longest wait of a watched seat a spectator believes (a cheating seat announcing a year held us a year)."""
UNANNOUNCED_WAITS = {"timeout": MAX_WAIT, "resume_timeout": MAX_WAIT, "linger": MAX_WAIT}
"""A seat's waits when its table does not announce them: the most we believe (its own may be anything; before, the
``PeerConfig`` defaults, 30/60/10 s, left a person thinking 290 s at a table of 300 s from a seat that did not say)."""
AUDIT_MARGIN = 30.0
"""Seconds over :func:`audit_wait`'s sum a spectator gives a watched seat in its audit."""


def _table(frame: dict[str, Any]) -> tuple[Lockstep, dict[str, float]]:
    """The lockstep of the table the peer shows (its hellos checked as a seat checks them) and the seat's waits,
    else :class:`WatchError` saying why: the peer is remote, so what it shows is input like any other."""
    options, hellos = frame.get("options") or {}, frame.get("hellos")
    if not isinstance(options, dict):
        raise WatchError("the peer's table options are not a map")
    if not isinstance(hellos, list):
        raise WatchError("the peer sent no hellos")
    try:
        game = get_game(str(frame.get("game"))[:40])
        options = parse_table_options(game, options)
        for seat, hello in enumerate(hellos):
            check_hello(hello, seat=seat, players=len(hellos), game=game.name, options=options)
        return Lockstep(game, Table(game.name, options, tuple(hellos))), _waits(frame.get("waits"))
    except (P2phpError, ValueError, TypeError, KeyError) as err:
        raise WatchError(f"the peer showed a table we cannot watch: {safe(str(err), 200)}") from None
