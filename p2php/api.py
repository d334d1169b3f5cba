"""The embedding API: run one p2php peer inside your own trio program.

A GUI, a chat bot or a test harness wants to *be* a seat at a table without
re-implementing the lockstep loop.  This module wraps :func:`p2php.session.runner.run_peer`
in a :class:`Peer` object that turns the runner's two callbacks into a stream of
typed events and a ``submit`` call::

    async with p2php.api.local_table("uno", bots=2, options={"rounds": 1}) as peer:
        async for event in peer.events():
            if isinstance(event, p2php.api.YourTurn):
                await peer.submit(event.legal[0])
            elif isinstance(event, p2php.api.Finished):
                print(event.text())

Why it is shaped like this:

* The runner *asks* for the local decision (``decide(ls)``), but an embedder
  wants to *push* it whenever its user clicks.  The peer's decider therefore emits
  :class:`YourTurn` and waits on a trio memory channel that :meth:`Peer.submit`
  fills, after validating the action so a bad click is a clear
  :class:`~p2php.engine.contract.IllegalAction`, never a protocol fault.
* Events go through an unbounded memory channel because the runner's observer is
  a plain (synchronous) callback that must not block the network loop; a game
  has a bounded number of steps, so the buffer is bounded in practice.
* Every way to sit down (a local table with bots, hosting, joining, explicit
  addresses) is one context manager yielding the same :class:`Peer`; leaving the
  ``async with`` block leaves the table (the other peers then name this seat as
  gone, as the protocol requires).
* Failures of the table (mesh not formed, lobby refused us, bad options) arrive
  as a :class:`Failed` event and make :meth:`Peer.wait` raise :class:`PeerFailed`,
  so an embedder's own code is never torn down by a network fault.

Everything the peer shows is its own seat's view: the observation for its seat,
the public log, and the cards dealt or shown to it.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from p2php.bots import bot_seed, default_kind
from p2php.canonical import NotCanonical, encode
from p2php.engine.contract import Action, Deal, Decide, IllegalAction, Reveal, Show
from p2php.engine.contract import GameOver as EngineResult
from p2php.engine.registry import get_game
from p2php.errors import P2phpError
from p2php.net.mesh import listen, listener_port
from p2php.net.ports import LOBBY_PORT
from p2php.session import transcript as _transcript
from p2php.session.audit import Verdict
from p2php.session.chat import MAX_CHARS as MAX_CHAT
from p2php.session.chat import ChatDropped, ChatLine, normalise
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Event as _StepEvent
from p2php.session.lockstep import Lockstep, check_action_size
from p2php.session.messages import MAX_ACTION_BYTES, MAX_ACTION_VALUES
from p2php.session.modes import parse_table_options
from p2php.session.rematch import REMATCH_WAIT, Rematch, again_seed
from p2php.session.runner import (
    MAX_BOT_DELAY,
    Decider,
    LeaveTable,
    PeerConfig,
    PeerResult,
    bot_decider,
    check_delay,
    run_peer,
    slowed,
)
from p2php.session.spectator import WATCH_PATIENCE, WatchError, keep_watching, watch
from p2php.session.transcript import TranscriptError
from p2php.text import NAME, safe
from p2php.threads import in_thread

if TYPE_CHECKING:
    from p2php.lobby import HostLobby

__all__ = [
    "DEFAULT_TIMEOUT",
    "Action",
    "ApiError",
    "Card",
    "Chat",
    "ChatNotice",
    "Failed",
    "Finished",
    "IllegalAction",
    "LinkCarried",
    "LinkChanged",
    "MAX_BOT_DELAY",
    "LobbyNews",
    "MAX_ACTION_BYTES",
    "MAX_ACTION_VALUES",
    "NotStarted",
    "NotYourTurn",
    "Peer",
    "PeerEvent",
    "PeerFailed",
    "PeerResult",
    "Started",
    "StaleTurn",
    "StepResolved",
    "TableOpen",
    "TranscriptCheck",
    "TranscriptError",
    "TranscriptInfo",
    "Verdict",
    "WatchError",
    "YourTurn",
    "check_delay",
    "host_table",
    "join_table",
    "load_transcript",
    "local_table",
    "rematch_table",
    "resume_peer",
    "slowed",
    "start_peer",
    "verify_transcript",
    "watch_table",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds this peer waits for another before naming it (the others' setting bounds *our* thinking time)."""


# ----------------------------------------------------------------------------- errors



_LEAVE: Action = {"type": "__leave__"}
"""What :meth:`Peer.leave` puts where the decider waits for an action (never sent: the decider raises instead)."""


class _Answer:
    """A submitted action on its way to the decider: ``done`` once the question took it (``taken``) or dropped it
    (withdrawn as it came, §3.5), so :meth:`Peer.submit` returns, or raises :class:`StaleTurn`, only then."""

    __slots__ = ("action", "done", "taken")

    def __init__(self, action: Action) -> None:
        self.action = action
        self.taken = False
        self.done = trio.Event()

    def settle(self, taken: bool) -> None:
        if not self.done.is_set():
            self.taken = taken
            self.done.set()


class ApiError(P2phpError):
    """A misuse of the embedding API (the message says what to do instead)."""


class NotStarted(ApiError):
    """The table has not formed yet, so there is no game to look at."""


class NotYourTurn(IllegalAction):
    """``submit`` was called while the game does not wait for this seat."""


class StaleTurn(NotYourTurn):
    """``submit(..., turn=N)`` for a question that is not the open one (withdrawn or answered): nothing was played."""


class PeerFailed(ApiError):
    """The table could not be played (lobby, network or option problem, or the peer left)."""


# ----------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Card:
    """One card face this seat saw: the slot it lies in, its id, and its name in the game."""

    slot: int
    card: int
    name: str


@dataclass(frozen=True)
class TableOpen:
    """A hosted table's lobby is listening on ``port`` (tell the others; useful with ``port=0``)."""

    port: int


@dataclass(frozen=True)
class LobbyNews:
    """Something happened in the lobby (a peer sat down, we were seated ...), for a person to read."""

    message: str


@dataclass(frozen=True)
class LinkChanged:
    """Another seat's link dropped during the game (``up`` False: it has ``wait`` seconds to come back before
    the table names it unreachable) or came back (``up`` True)."""

    seat: int
    name: str
    up: bool
    wait: float


@dataclass(frozen=True)
class LinkCarried:
    """Over libp2p: how this seat's link with another seat is carried, told when it forms and whenever that
    changes during the game (``carried``: ``direct``, ``hole-punched`` or ``relayed``)."""

    seat: int
    name: str
    carried: str


@dataclass(frozen=True)
class Started:
    """The mesh is formed and the handshake agreed: this is the table we play at."""

    game: str
    options: dict[str, Any]
    players: int
    seat: int
    names: tuple[str, ...]
    safety_code: str = ""
    """Compare it with the other seats: the same code means one table with the same keys."""


@dataclass(frozen=True)
class StepResolved:
    """One engine step resolved, as this seat saw it.

    ``kind`` is the step type in lower case (``decide``, ``shuffle``, ``deal``,
    ``reveal``, ``show``, ``randomness``).  ``actions`` are the public answers of a
    decision, ``revealed`` the faces opened to everyone, ``received`` the faces
    only this seat learned (dealt or privately shown to it), ``random`` the joint
    random bytes of a randomness step.
    """

    tick: int
    kind: str
    lines: tuple[str, ...]
    actions: tuple[tuple[int, Action], ...] = ()
    revealed: tuple[Card, ...] = ()
    received: tuple[Card, ...] = ()
    random: bytes = b""


_QUESTION_NUMBERS = itertools.count(1)  # YourTurn.turn: one count for every peer of the process, never reused


@dataclass(frozen=True)
class YourTurn:
    """The game waits for this seat: answer with :meth:`Peer.submit` (an action or its index).

    ``turn`` is this question's number: each question a larger one than any asked before in this process, by any
    peer (a question the peer answers by itself, or one withdrawn, uses a number too), so an answer a slow app meant
    for a question of an earlier table (a rematch, the bridge's next game) is no number of this one.  A question can
    be withdrawn before it is answered (asked in the rejoin hold at a point answered since, §3.5): the next one is
    then asked at once, and an answer the app meant for the withdrawn one would be taken for it.
    ``submit(action, turn=event.turn)`` is refused instead (:class:`StaleTurn`), so the app answers each question it
    was shown and no other.
    """

    legal: list[Action]
    labels: list[str]
    view: dict[str, Any]
    prompt: str
    turn: int = 0


@dataclass(frozen=True)
class Finished:
    """The game (and its audit) ended; the event stream ends after it.

    ``result`` is the engine's result (``None`` if the game was aborted by a
    fault); ``verdict`` is the audit's finding.
    """

    result: EngineResult | None
    verdict: Verdict | None
    names: tuple[str, ...]

    @property
    def clean(self) -> bool:
        """True when the audit found nothing wrong."""
        return self.verdict is not None and self.verdict.clean

    @property
    def culprit(self) -> int | None:
        return None if self.verdict is None else self.verdict.culprit

    def text(self) -> str:
        """A one-paragraph human summary: who won, and what the audit said."""
        parts = []
        if self.result is not None:
            winners = ", ".join(self.names[s] if s < len(self.names) else f"seat {s}" for s in self.result.winners)
            parts.append(self.result.summary or f"winner: {winners}; scores: {list(self.result.scores)}")
        if self.verdict is None:
            parts.append("audit: unfinished")
        elif self.verdict.clean:
            parts.append("audit: clean")
        else:
            who = "" if self.verdict.culprit is None else f"seat {self.verdict.culprit}: "
            parts.append(f"audit: {who}{self.verdict.reason}")
        return "\n".join(parts)


@dataclass(frozen=True)
class Failed:
    """The table could not be played; the event stream ends after it."""

    message: str


@dataclass(frozen=True)
class Chat:
    """A seat said something (``own``: this seat): signed by its seat key, checked, normalised to one line of at
    most 280 characters; still show it escaped (it is another person's text)."""

    seat: int
    name: str
    text: str
    own: bool


@dataclass(frozen=True)
class ChatNotice:
    """A chat line was dropped: another seat's (``seat``) that was forged, too long or one of a flood (one notice
    per flood), or our own (``seat`` = ours) that could not be sent. Never a fault: the game goes on."""

    seat: int
    name: str
    reason: str


PeerEvent = (TableOpen | LobbyNews | LinkChanged | LinkCarried | Started | StepResolved | YourTurn | Chat | ChatNotice
             | Finished | Failed)
"""Everything :meth:`Peer.events` yields."""


# ----------------------------------------------------------------------------- the peer


_Play = Callable[["Peer"], Awaitable[PeerResult]]
"""How a peer sits down and plays: the rendezvous, then :func:`run_peer` with the peer's callbacks."""


class Peer:
    """One seat at a table, driven by your code.  Create it with one of the module's context managers.

    All methods are meant to be called from the trio thread that runs the table.
    """

    def __init__(self) -> None:
        self._events_tx, self._events_rx = trio.open_memory_channel[PeerEvent](math.inf)
        self._actions_tx, self._actions_rx = trio.open_memory_channel[Any](1)  # an _Answer, or _LEAVE
        self._ls: Lockstep | None = None
        self._awaiting = False
        self._turn = 0  # the last YourTurn's number: a withdrawn one's end leaves a newer one open (_decide)
        self._emitted = 0
        self._result: PeerResult | None = None
        self._failure: str | None = None
        self._done = trio.Event()
        self._scope = trio.CancelScope()  # made here so that leave() works even before the table runs
        self._leave = trio.Event()  # leave() once the game runs: the runner sends a signed leave
        self._chat_tx, self._chat_rx = trio.open_memory_channel[str](16)  # say(): lines for the runner
        self._again: _Play | None = None  # how to play this table again (rematch_table), once it ended
        self._rematch_wait = REMATCH_WAIT  # a rematch's formation deadline: the time people have to agree
        self._lobby: HostLobby | None = None  # the lobby this peer hosts, while it seats people (remove())

    # -------------------------------------------------------------- what the embedder uses

    def events(self) -> AsyncIterator[PeerEvent]:
        """Every event, in order, until :class:`Finished` or :class:`Failed` (then the iterator ends).

        There is one stream per peer: iterate it from one task only.  (It is the
        receiving end of a memory channel, not a generator, so breaking out of
        the loop early leaves nothing to finalize.)
        """
        events: AsyncIterator[PeerEvent] = self._events_rx
        return events

    async def next_event(self) -> PeerEvent | None:
        """The next event, or ``None`` once the stream has ended."""
        try:
            event: PeerEvent = await self._events_rx.receive()
        except trio.EndOfChannel:
            return None
        return event

    @property
    def started(self) -> bool:
        """Whether the table has formed (a :class:`Started` event was emitted)."""
        return self._ls is not None

    @property
    def lockstep(self) -> Lockstep:
        """The protocol machine underneath (read it, never drive it: the runner does)."""
        if self._ls is None:
            raise NotStarted("the table has not formed yet (wait for the Started event)")
        return self._ls

    @property
    def seat(self) -> int:
        seat = self.lockstep.seat
        assert seat is not None
        return seat

    @property
    def names(self) -> tuple[str, ...]:
        ls = self.lockstep
        return tuple(ls.table.name(s) for s in range(ls.players))

    def is_my_turn(self) -> bool:
        """True between a :class:`YourTurn` event and the matching :meth:`submit`."""
        return self._awaiting

    @property
    def turn(self) -> int | None:
        """The open question's number (its :class:`YourTurn`'s ``turn``), or None when the game does not wait for
        this seat."""
        return self._turn if self._awaiting else None

    def check_turn(self, turn: int) -> None:
        """Raise :class:`StaleTurn` unless question ``turn`` is the open one (what :meth:`submit` checks first)."""
        if not isinstance(turn, int) or isinstance(turn, bool):  # ("7" or 7.0 were refused as "question 7", True taken)
            raise StaleTurn(f"a question's number is an int (YourTurn.turn), not {safe(repr(turn), 40)}")
        if self._awaiting and turn == self._turn:
            return
        now = f"question {self._turn} is open" if self._awaiting else f"no question is open (the last was {self._turn})"
        shown = turn if abs(turn) < 10**18 else "(a number of more than 18 digits)"  # (str() of 5000 digits raises)
        raise StaleTurn(f"that answer is for question {shown}, but {now}: it was not played")

    def legal_actions(self) -> list[Action]:
        """The legal actions now, or ``[]`` when the game does not wait for this seat."""
        if not self._awaiting:
            return []
        return self.lockstep.legal_actions()

    def forced_in_public(self) -> bool:
        """Whether the decision this seat is asked now has one legal action whatever cards the seat holds
        (:meth:`~p2php.engine.contract.GameState.forced_in_public`): then answering it at once tells nobody
        anything.  One forced by the seat's own cards is not: answered at once, where a choice waits for a
        person, it tells every seat what the hand lacks (protocol.md §10.4)."""
        ls = self.lockstep
        return self._awaiting and ls.seat is not None and ls.state.forced_in_public(ls.seat)

    def view(self) -> dict[str, Any]:
        """The game's observation for this seat now (hand, public table ...), as the game defines it."""
        ls = self.lockstep
        return ls.state.observation(ls.seat, ls.knowledge())

    def label(self, action: Action) -> str:
        """A human description of ``action`` as this seat would play it."""
        return _label(self.lockstep, action)

    def card_name(self, card: int) -> str:
        ls = self.lockstep
        return ls.game.card_name(card, ls.options)

    async def submit(self, action: Action | int, *, turn: int | None = None) -> None:
        """Answer the pending :class:`YourTurn` with an action (or its index in ``legal``).

        Raises :class:`NotYourTurn` if the game does not wait for this seat, and
        :class:`~p2php.engine.contract.IllegalAction` (with the rules' reason) if
        the action is not allowed; in both cases nothing is sent and the turn stays open.
        With ``turn`` (the :class:`YourTurn`'s number) it raises :class:`StaleTurn` unless that question is the open
        one: without it, an answer meant for a question withdrawn meanwhile answers the next one. It returns once the
        question took the answer; a question withdrawn as it came drops it, and it raises :class:`StaleTurn`.
        """
        ls = self.lockstep
        if turn is not None:
            self.check_turn(turn)
        if not self._awaiting:
            raise NotYourTurn("it is not your turn: wait for a YourTurn event")
        legal = ls.legal_actions()
        if isinstance(action, int) and not isinstance(action, bool):
            if not 0 <= action < len(legal):
                raise IllegalAction(f"choice {action} does not exist: choose 0–{len(legal) - 1}")
            action = legal[action]
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction(f"an action is a dict with a string 'type', not {action!r:.80}")
        same = _legal_twin(action, legal)
        if same is not None:
            action = same  # the engine's own value (``==`` also matches 3.0 or True to 3 or 1)
        else:
            assert ls.seat is not None
            known = {key for a in legal if a.get("type") == action["type"] for key in a}
            try:
                action = copy.deepcopy(action)  # what is checked is what is sent: the runner reads it later, and the
                check_action_size(action)  # caller may reuse its dict once submit returned
                if known and (stray := [k for k in action if k not in known]):
                    # The rules of some games ignore fields they do not read; sent, a stray field would be signed into
                    # the public record of every seat and transcript (a sloppy client's own hand, say).
                    raise IllegalAction(f"field {str(stray[0])[:40]!r} is in no legal {action['type'][:40]!r} action")
                ls.state.check(ls.seat, action, ls.knowledge())
            except IllegalAction:
                raise
            except NotCanonical as err:
                raise IllegalAction(f"the action cannot be sent: {err}") from None
            except Exception as err:  # malformed data must not reach the protocol
                raise IllegalAction(f"malformed action {action!r:.80}: {err}") from None
        self._awaiting = False
        asked, answer = self._turn, _Answer(action)
        self._actions_tx.send_nowait(answer)
        # Returns once the question took it: a question withdrawn in the same round (the runner cancelled its decider
        # before that ran again) drops it, and the bridge's `ok` then named a move never played (rv8-qid).
        await answer.done.wait()
        if not answer.taken:
            now = f"question {self._turn} is open" if self._awaiting else "no question is open"
            raise StaleTurn(f"question {asked} was withdrawn before it took your answer ({now}): it was not played")

    def save_transcript(self, path: str | Path) -> Path:
        """Write this peer's signed transcript (complete once the game is over); ``p2php verify`` checks it.

        It waits for the disk (a write and two ``fsync``s) in the calling thread: in the loop of a game still
        running, use :meth:`save_transcript_async`, which never holds the loop."""
        return _transcript.save(self.lockstep, path)

    async def save_transcript_async(self, path: str | Path) -> Path:
        """:meth:`save_transcript`, the disk's work in a worker thread: a slow disk never holds the game's loop
        (red-team rt7-loopio: a save mid-game, 2 x 3 s fsyncs, got this honest seat named ``silent``)."""
        return await _transcript.save_async(self.lockstep, path)

    async def wait(self) -> PeerResult:
        """Wait for the end of the game and return what the runner reports (raises :class:`PeerFailed`)."""
        await self._done.wait()
        if self._result is None:
            raise PeerFailed(self._failure or "the peer stopped")
        return self._result

    def say(self, text: str) -> None:
        """Say ``text`` to the table (signed chat, §3.8): every seat and spectator gets it, and so does this
        stream (:class:`Chat` with ``own``).  Raises :class:`ApiError` for nothing to say, a line over 280
        characters, or more lines than the table takes (a burst of 5, then one a second: :class:`ChatNotice`)."""
        if self._ls is None:
            raise NotStarted("the table has not formed yet: chat starts with the game")
        if self._ls.finished and self._result is not None:
            raise ApiError("the game is over: nobody listens at this table any more")
        line = normalise(text[: 4 * MAX_CHAT])
        if not line:
            raise ApiError("nothing to say")
        if len(line) > MAX_CHAT:
            raise ApiError(f"a chat line holds at most {MAX_CHAT} characters, not {len(line)}")
        try:
            self._chat_tx.send_nowait(line)
        except trio.WouldBlock:
            raise ApiError("slow down: the last lines are still being sent") from None

    def remove(self, seat: int) -> str:
        """The host removes the person sitting at ``seat`` before the start (one who never gets ready, or is not
        who was expected), as ``k N`` does at the terminal: they are told (``refused``), the seat is free again,
        and their address may not sit down at this table again.  Returns their name.  Raises :class:`ApiError`
        when this peer hosts no open lobby, or the seat holds nobody who joined."""
        from p2php.lobby import LobbyError

        if self._lobby is None:
            raise ApiError("no lobby is open here: only a host removes people, before the game starts")
        try:
            return self._lobby.remove(seat)
        except LobbyError as err:
            raise ApiError(str(err)) from None

    @property
    def can_rematch(self) -> bool:
        """Whether :func:`rematch_table` can play this table again (its game ended, and the way it sat down
        knows how to come back to the same seats)."""
        return self._again is not None and self._result is not None

    def leave(self) -> None:
        """Leave the table.

        Once the game runs (after :class:`Started`), in this seat's turn or not, the peer tells the table with a
        signed leave: every peer ends at once naming this seat ``left`` (not a cheat), and the stream ends with
        :class:`Finished`. Before that (in the lobby, while the mesh forms) the peer stops at once.
        """
        if self._awaiting:
            self._awaiting = False
            self._actions_tx.send_nowait(_LEAVE)
            return
        if self._ls is not None and not self._ls.finished:
            self._leave.set()
            return
        self._scope.cancel()

    # -------------------------------------------------------------- runner callbacks

    def _emit(self, event: PeerEvent) -> None:
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            self._events_tx.send_nowait(event)  # (closed: nobody listens any more)

    def _on_link(self, seat: int, up: bool, wait: float) -> None:
        name = self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"
        self._emit(LinkChanged(seat, name, up, wait))

    def _on_carried(self, seat: int, carried: str, name: str | None = None) -> None:
        """Told by the transport (it may be before the game starts: links form first)."""
        if name is None:
            known = self._ls is not None and 0 <= seat < self._ls.players
            name = self._ls.table.name(seat) if known and self._ls is not None else f"seat {seat}"
        self._emit(LinkCarried(seat, name, carried))
    def _on_chat(self, note: ChatLine | ChatDropped) -> None:
        names = self.names
        name = names[note.seat] if 0 <= note.seat < len(names) else "(unknown)"
        if isinstance(note, ChatLine):
            self._emit(Chat(note.seat, name, note.text, note.seat == self.seat))
        else:
            self._emit(ChatNotice(note.seat, name, note.reason))

    def _hooks(self) -> dict[str, Any]:
        """The :class:`PeerConfig` fields that connect a runner to this peer (leave, links, chat)."""
        return {"leave": self._leave, "on_link": self._on_link, "chat": self._chat_rx, "on_chat": self._on_chat}

    def _observe(self, ls: Lockstep, _lines: list[str]) -> None:
        if self._ls is None:
            self._ls = ls
            self._emit(Started(ls.table.game, dict(ls.options), ls.players, self.seat, self.names,
                               ls.table.safety_code))
        while self._emitted < len(ls.events):
            self._emit(_step_event(ls, ls.events[self._emitted]))
            self._emitted += 1

    async def _decide(self, ls: Lockstep) -> Action:
        self._observe(ls, [])
        legal = ls.legal_actions()
        step = ls.step
        prompt = step.prompt if isinstance(step, Decide) else ""
        # An answer left in the channel is a withdrawn YourTurn's (submitted after the runner's cancel, before its
        # decider ran its end; trio may run this one first): it answered this question the moment it was asked
        # (rv7-stale). A leave stands.
        if self._drop_queued_answer():
            raise LeaveTable()
        self._turn = turn = next(_QUESTION_NUMBERS)
        self._awaiting = True
        self._emit(YourTurn(legal, [_label(ls, a) for a in legal], self.view(), prompt, turn))
        got: Any = None
        try:
            got = await self._actions_rx.receive()
            if got is not _LEAVE:
                # Withdrawn as the answer came (handed to this task, which the runner cancelled before it ran): the
                # runner drops it (its send is cancelled), so it is not taken; no checkpoint otherwise (rv8-qid).
                await trio.lowlevel.checkpoint_if_cancelled()
                got.settle(True)
        finally:
            if isinstance(got, _Answer):
                got.settle(False)  # (cancelled before taken; nothing once taken)
            # Withdrawn (cancelled: a question asked in the rejoin hold for a point a message of ours, handed back,
            # answered since, §3.5): no answer is taken for it any more. A submit then waited in the channel and
            # answered the next, different question the moment it was asked (rt7-stale).
            if self._turn == turn:  # (unless a newer YourTurn is open: trio may run the owed question's decider
                # before this withdrawn one's end, which cleared its flag; every submit was refused and the seat
                # named silent, rv7-stale)
                self._awaiting = False
                # A submit (or leave) made after the cancel and before this end ran found the turn still open: its
                # action waits in the channel, where the next question took it at once (rv7-stale). An answer for
                # the withdrawn question is dropped; a leave stands (the runner makes it, as a leave out of turn).
                if self._drop_queued_answer():
                    self._leave.set()
        if got is _LEAVE:
            raise LeaveTable()
        action: Action = got.action
        return action

    def _drop_queued_answer(self) -> bool:
        """Take what waits in the actions channel, if anything: an answer (submitted for a question withdrawn
        meanwhile) is dropped, its :meth:`submit` raising :class:`StaleTurn`; True if it was a leave."""
        try:
            queued = self._actions_rx.receive_nowait()
        except trio.WouldBlock:
            return False
        if queued is _LEAVE:
            return True
        queued.settle(False)
        return False

    async def _run(self, play: _Play, transcript_path: Path | None) -> None:
        with self._scope:
            try:
                result = await play(self)
            except Exception as err:
                self._failure = _explain(err)
            else:
                self._observe(result.lockstep, [])
                if transcript_path is not None:
                    try:
                        await _transcript.save_async(result.lockstep, transcript_path)  # (off the loop)
                    except OSError as err:
                        self._emit(LobbyNews(f"could not save the transcript: {err.strerror or err}"))
                self._result = result
                ls = result.lockstep
                self._emit(Finished(ls.result, ls.verdict, tuple(ls.table.name(s) for s in range(ls.players))))
        if self._scope.cancelled_caught and self._result is None:
            self._failure = "you left the table"
        if self._failure is not None:
            self._emit(Failed(self._failure))
        self._awaiting = False
        self._drop_queued_answer()  # (no decider runs any more: a submit waiting on it returns)
        self._events_tx.close()
        self._done.set()


def _legal_twin(action: Action, legal: list[Action]) -> Action | None:
    """The legal action that is ``action`` value for value and type for type (its canonical encoding), or None.

    Python's ``==`` takes ``{"slot": 3.0}`` and ``{"slot": True}`` for ``{"slot": 3}`` and ``{"slot": 1}``: such an
    action passed as legal without the rules' check, and the runner's own check then raised, ending this peer.
    """
    if action not in legal:
        return None
    try:
        wire = encode(action)
    except Exception:  # a float, say: no canonical form, so not one of the legal actions
        return None
    return next((a for a in legal if encode(a) == wire), None)


# ----------------------------------------------------------------------------- ways to sit down


@asynccontextmanager
async def _serving(play: _Play, transcript_path: str | Path | None,
                   rematch_wait: float = REMATCH_WAIT) -> AsyncIterator[Peer]:
    """Run ``play`` in the background for as long as the caller's block lasts (``rematch_wait``: how long a
    rematch waits for every seat to agree)."""
    peer = Peer()
    peer._rematch_wait = rematch_wait
    path = None if transcript_path is None else Path(transcript_path)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer._run, play, path)
            try:
                yield peer
            finally:
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # trio wraps the caller's own exception in a group; hand it back unwrapped.
        leaves = _leaves(group)
        if len(leaves) == 1:
            raise leaves[0] from None
        raise


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return out


def _explain(err: BaseException) -> str:
    """A person-readable reason for a failed table (the first real error inside nursery groups)."""
    if isinstance(err, BaseExceptionGroup):
        leaves = [e for e in _leaves(err) if not isinstance(e, trio.Cancelled)]
        return "; ".join(dict.fromkeys(_explain(e) for e in leaves)) or "cancelled"
    if isinstance(err, OSError) and not isinstance(err, ConnectionError | TimeoutError):
        return f"network error: {err.strerror or err}"
    return str(err) or type(err).__name__


def _check(game: str, players: int, options: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
    g = get_game(game)
    g.check_players(players)
    return g.name, dict(parse_table_options(g, dict(options or {})))  # the game's options and the session's


def _bot(game: str, kind: str | None, seed: str, delay: float = 0.0) -> Decider:
    g = get_game(game)
    chosen = kind or default_kind(g)
    return slowed(bot_decider(g.make_bot(chosen, seed)), delay)


def local_table(
    game: str,
    *,
    bots: int = 1,
    seat: int = 0,
    options: Mapping[str, Any] | None = None,
    name: str = "you",
    bot: str | None = None,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    transcript_path: str | Path | None = None,
    transport: str = "tcp",
    bot_delay: float = 0.0,
) -> AbstractAsyncContextManager[Peer]:
    """A table on loopback: you at ``seat`` and ``bots`` bot peers, each with its own keys and sockets.

    Meant for trying an embedding without other machines, and for tests.
    ``seed`` makes the bots *and every peer's secrets* reproducible, so use it for
    tests only.  ``bot`` picks the bot kind (default: the game's heuristic bot);
    ``bot_delay`` makes every bot wait that many seconds before it answers.
    ``transport``: ``"tcp"``, or ``"libp2p"`` / ``"libp2p-relayed"`` (every link through a local relay; needs
    the ``internet`` extra): then :class:`LinkCarried` tells how each of your links is carried (a rematch is
    offered over ``"tcp"`` only).
    """
    players = bots + 1
    if transport not in ("tcp", "libp2p", "libp2p-relayed"):
        raise ValueError(f"transport must be 'tcp', 'libp2p' or 'libp2p-relayed', not {transport!r}")
    bot_delay = check_delay(bot_delay)  # a bad delay fails here, before anything runs

    def game_at(previous: list[Lockstep] | None, game_no: int) -> _Play:
        async def play(peer: Peer) -> PeerResult:
            from p2php.session.local_net import run_local_table

            game_name, opts = _check(game, players, options)
            if not 0 <= seat < players:
                raise ValueError(f"seat {seat} does not exist at a table of {players}")
            deciders: list[Decider] = [
                peer._decide if s == seat else _bot(game_name, bot, f"{again_seed(seed, game_no)}/{s}", bot_delay)
                for s in range(players)
            ]
            names = [name if s == seat else f"bot{s}" for s in range(players)]
            again: dict[str, Any] = {} if previous is None else {"rematch_of": previous,
                                                                 "connect_timeout": peer._rematch_wait}
            game_seed = None if seed is None else again_seed(seed, game_no)
            table = partial(run_local_table, game_name, players, deciders, opts, timeout=timeout,
                            observe=peer._observe, names=names, observe_seat=seat, observed=peer._hooks(), **again)
            if transport == "tcp":
                results = await table(seed=game_seed)
            else:
                from p2php.net.libp2p import libp2p_loopback
                from p2php.session.memory import seeded_secrets

                # each seat's libp2p key comes from its secrets, so the network must know them (a fresh seed)
                keys = game_seed if game_seed is not None else int.from_bytes(os.urandom(8), "big")
                relayed = transport == "libp2p-relayed"
                async with libp2p_loopback(lambda s: seeded_secrets(keys, s), relayed=relayed) as net:
                    net.watchers[seat] = lambda other, how: peer._on_carried(other, how, names[other])
                    results = await table(seed=keys, network=net)
            if transport == "tcp" and len(results) == players:
                peer._again = game_at([r.lockstep for r in results], game_no + 1)
            return next(r for r in results if r.lockstep.seat == seat)

        return play

    return _serving(game_at(None, 0), transcript_path)


def host_table(
    game: str,
    *,
    players: int,
    name: str = "host",
    options: Mapping[str, Any] | None = None,
    bots: int = 0,
    bot: str | None = None,
    port: int = LOBBY_PORT,
    bind: str = "0.0.0.0",
    timeout: float = DEFAULT_TIMEOUT,
    transcript_path: str | Path | None = None,
    bot_delay: float = 0.0,
) -> AbstractAsyncContextManager[Peer]:
    """Open a table for other machines (``p2php join`` or :func:`join_table`) and take seat 0.

    Emits :class:`TableOpen` with the lobby's port, :class:`LobbyNews` as peers sit
    down, then plays like any peer once the table is full.  ``bots`` seats are
    filled by bot peers in this process (each waiting ``bot_delay`` seconds before
    it answers).  The host is only a rendezvous: after the start it knows no more
    than the others.
    """
    bot_delay = check_delay(bot_delay)

    def game_at(previous: dict[int, Lockstep] | None, seating: _HostSeating | None, game_no: int) -> _Play:
        async def play(peer: Peer) -> PeerResult:
            game_name, opts = _check(game, players, options)
            if bots + 1 > players:
                raise ValueError(f"{bots} bots and the host need {bots + 1} seats; the table has {players}")
            local = 1 + bots
            ports = [0] * local if seating is None else seating.ports
            listeners = [await listen(bind, p) for p in ports]
            try:
                if seating is None:
                    lobby = await listen(bind, port)
                    try:
                        peer._emit(TableOpen(listener_port(lobby)))
                        raw, names = await _rendezvous_host(peer, lobby, game_name, opts, players, name,
                                                            [listener_port(x) for x in listeners],
                                                            lambda text: peer._emit(LobbyNews(text)))
                    finally:
                        await lobby.aclose()
                    addresses = {s: (host or "127.0.0.1", p) for s, (host, p) in enumerate(raw)}
                    here = _HostSeating(addresses, names, [listener_port(x) for x in listeners])
                else:
                    here = seating
                mine: dict[int, PeerResult] = {}

                async def seat_task(seat: int) -> None:
                    cfg = PeerConfig(game=game_name, options=opts, players=players, seat=seat, name=here.names[seat],
                                     timeout=timeout, secrets=LocalSecrets(),
                                     **(peer._hooks() if seat == 0 else {}),
                                     **_rematch_fields(previous, seat, peer._rematch_wait))
                    decide = peer._decide if seat == 0 else _bot(game_name, bot, bot_seed(None, seat), bot_delay)
                    mine[seat] = await run_peer(cfg, here.addresses, listeners[seat], decide,
                                                peer._observe if seat == 0 else None)

                async with trio.open_nursery() as nursery:
                    for seat in range(local):
                        nursery.start_soon(seat_task, seat)
                peer._again = game_at({s: r.lockstep for s, r in mine.items()}, here, game_no + 1)
                return mine[0]
            finally:
                for listener in listeners:
                    await listener.aclose()

        return play

    return _serving(game_at(None, None, 0), transcript_path)


@dataclass(frozen=True)
class _HostSeating:
    """Where a hosted table's seats are, by the lobby: what a rematch at the same table needs again."""

    addresses: dict[int, tuple[str, int]]
    names: list[str]
    ports: list[int]  # our own seats' listening ports (the host's and its bots')


def _rematch_fields(previous: Mapping[int, Lockstep] | None, seat: int, wait: float) -> dict[str, Any]:
    """The :class:`PeerConfig` fields of a seat playing its ended game again (none for a first game)."""
    if previous is None:
        return {}
    return {"rematch": Rematch.of(previous[seat]), "connect_timeout": wait}


def join_table(
    address: str | tuple[str, int],
    *,
    name: str = "guest",
    bind: str = "0.0.0.0",
    timeout: float = DEFAULT_TIMEOUT,
    transcript_path: str | Path | None = None,
) -> AbstractAsyncContextManager[Peer]:
    """Sit down at a table opened with ``p2php host`` or :func:`host_table` (``"HOST:PORT"``)."""
    host, port = _split_address(address)

    def game_at(previous: Lockstep | None, seated: tuple[_Seating, int] | None) -> _Play:
        async def play(peer: Peer) -> PeerResult:
            listener = await listen(bind, 0 if seated is None else seated[1])
            try:
                if seated is None:
                    seating = await _rendezvous_join(host, port, name, listener_port(listener),
                                                     lambda text: peer._emit(LobbyNews(text)))
                    peer._emit(LobbyNews(f"the game starts: you are seat {seating.seat} of {seating.players}"))
                else:
                    seating = seated[0]
                game_name, opts = _check(seating.game, seating.players, seating.options)
                cfg = PeerConfig(game=game_name, options=opts, players=seating.players, seat=seating.seat, name=name,
                                 timeout=timeout, secrets=LocalSecrets(), **peer._hooks(),
                                 **_rematch_fields(None if previous is None else {seating.seat: previous},
                                                   seating.seat, peer._rematch_wait))
                result = await run_peer(cfg, dict(enumerate(seating.addresses)), listener, peer._decide,
                                        peer._observe)
                peer._again = game_at(result.lockstep, (seating, listener_port(listener)))
                return result
            finally:
                await listener.aclose()

        return play

    return _serving(game_at(None, None), transcript_path)


def start_peer(
    game: str,
    *,
    players: int,
    seat: int,
    addresses: Mapping[int, tuple[str, int]],
    listener: trio.SocketListener | None = None,
    options: Mapping[str, Any] | None = None,
    name: str = "",
    bind: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = 20.0,
    secrets: LocalSecrets | None = None,
    transcript_path: str | Path | None = None,
    resume_log: str | Path | None = None,
) -> AbstractAsyncContextManager[Peer]:
    """The rendezvous-free form: every seat's address is known (from your own lobby, a chat, a config file).

    Without ``listener`` the peer listens on its own entry of ``addresses``
    (bound to ``bind``, default that entry's host) when higher seats must dial it.
    With ``resume_log`` the peer keeps a resume log there (it holds the peer's
    secrets: keep it private) so that :func:`resume_peer` can bring it back.
    A rematch (:func:`rematch_table`) plays at the same addresses with fresh secrets and no resume log.
    """

    def game_at(previous: Lockstep | None) -> _Play:
        async def play(peer: Peer) -> PeerResult:
            game_name, opts = _check(game, players, options)
            if sorted(addresses) != list(range(players)):
                raise ValueError(f"addresses must name seats 0–{players - 1}, got {sorted(addresses)}")
            first = previous is None
            cfg = PeerConfig(game=game_name, options=opts, players=players, seat=seat, name=name or f"seat{seat}",
                             timeout=timeout, secrets=(secrets if first else None) or LocalSecrets(),
                             resume_path=None if resume_log is None or not first else Path(resume_log),
                             **peer._hooks(), **{"connect_timeout": connect_timeout,
                                                 **_rematch_fields(None if previous is None else {seat: previous},
                                                                   seat, peer._rematch_wait)})
            own = None
            if listener is None:
                host, port = addresses[seat]
                own = await listen(bind or host, port)
            try:
                result = await run_peer(cfg, addresses, listener or own, peer._decide, peer._observe)
            finally:
                if own is not None:
                    await own.aclose()
            peer._again = game_at(result.lockstep)
            return result

        return play

    return _serving(game_at(None), transcript_path)


def resume_peer(
    log: str | Path,
    *,
    bind: str | None = None,
    transcript_path: str | Path | None = None,
) -> AbstractAsyncContextManager[Peer]:
    """Bring back a peer from its resume log (after a crash or a lost link) and finish its game.

    Every logged message is re-verified first; the peer then rejoins the running
    table at its old address, gets what it missed relayed by the others, and goes
    on: your code sees :class:`YourTurn` events again as if nothing happened.
    """
    from p2php.session.resume import restore

    async def play(peer: Peer) -> PeerResult:
        # In a worker thread: it reads the whole log (up to 256 MiB) and replays every message, and in the app's loop
        # it held that loop for the whole of it (red-team rt7-loopio: a 2-seat UNO game's 11.9 MB log, 28 980
        # messages, held it 16.5 s: an app's UI, and any other table it plays, stood still).
        header, ls = await in_thread(restore, log)
        seat = int(header["seat"])
        addresses = {s: (str(a[0]), int(a[1])) for s, a in enumerate(header["addresses"])}
        cfg = PeerConfig(game=ls.table.game, options=ls.table.options, players=ls.players, seat=seat,
                         name=str(header.get("name") or f"seat{seat}"), timeout=float(header.get("timeout", 30)),
                         resume_timeout=float(header.get("resume_timeout", 60)),
                         secrets=LocalSecrets(master=header["master"]), resume_path=Path(log), **peer._hooks())
        host, port = addresses[seat]
        own = await listen(bind or host, port)
        try:
            return await run_peer(cfg, addresses, own, peer._decide, peer._observe, restored=ls)
        finally:
            await own.aclose()

    return _serving(play, transcript_path)


def rematch_table(peer: Peer, *, transcript_path: str | Path | None = None,
                  wait: float = REMATCH_WAIT) -> AbstractAsyncContextManager[Peer]:
    """Play the ended table of ``peer`` again: same game, options, seats and addresses, a fresh session.

    Every seat that wants to play again does the same (its bots at once); the new game starts when all have,
    within ``wait`` seconds (protocol.md §3.9), with new keys and new deals; else :class:`Failed` names the seats
    that did not come.  Raises :class:`ApiError`
    if ``peer`` cannot (its game did not end, or it sat down in a way that cannot come back: a resumed peer).
    """
    if not peer.can_rematch:
        raise ApiError("no rematch here: the game has not ended (or this peer cannot come back to its seat)")
    again = peer._again
    assert again is not None
    peer._again = None  # one rematch per ended game
    return _serving(again, transcript_path, wait)


async def watch_table(address: str | tuple[str, int], on_step: Callable[[Lockstep], None] | None = None,
                      name: str = "spectator", *, on_chat: Callable[[ChatLine | ChatDropped], None] | None = None,
                      on_link_lost: Callable[[str], None] | None = None,
                      patience: float = WATCH_PATIENCE) -> Lockstep:
    """Spectate the table of the peer at ``address`` until its game and audit end.

    The spectator verifies everything itself and sees only public information;
    ``on_step`` is called as each step is resolved.  Returns the spectator's
    lockstep (``.events``, ``.result``, ``.verdict``).

    A link that breaks (the watched seat resumes from its log, the network
    drops) is made again a second later, for up to ``patience`` seconds
    without news, as ``p2php watch`` does; each new link replays the public
    record from its start into a new lockstep, and ``on_step`` is called only
    for what no earlier link showed, so it sees every step once and in order.
    ``on_link_lost`` gets one line for each failure that reads differently
    from the last; ``on_chat`` the seats' chat lines the peer relays (each
    checked against its author's key).  Raises :class:`WatchError` once the
    table is given up.
    """
    host, port = _split_address(address)
    best: tuple[int, int, int, bool] = (-1, -1, -1, False)

    def show(ls: Lockstep) -> None:
        nonlocal best
        mark = (ls.tick, ls.phase, len(ls.events), ls.verdict is not None)
        if mark > best:  # a replay of what an earlier link showed is not news
            best = mark
            if on_step is not None:
                on_step(ls)

    return await keep_watching(lambda observe: watch(host, port, name, observe, on_chat=on_chat), show,
                               on_link_lost or (lambda line: None), patience=patience)


# ----------------------------------------------------------------------------- rendezvous (thin layer over p2php.lobby)


# Everything this module knows about the lobby is in these two functions, so a change of
# p2php.lobby's interface is adapted here and nowhere else.


@dataclass(frozen=True)
class _Seating:
    """What a joiner learns from the lobby when the game starts."""

    seat: int
    game: str
    options: dict[str, Any]
    players: int
    addresses: list[tuple[str, int]]


async def _rendezvous_host(
    peer: Peer,
    lobby: trio.SocketListener,
    game: str,
    options: Mapping[str, Any],
    players: int,
    host_name: str,
    local_ports: list[int],
    announce: Callable[[str], None],
) -> tuple[list[tuple[str | None, int]], list[str]]:
    """Seat the host (seat 0) and its bots, then remote joiners until all are ready.

    Returns every seat's address (host None: on this machine) and every seat's name.
    """
    from p2php.lobby import BOT, HOST, HostLobby, LobbyError
    from p2php.lobby import Table as LobbyTable

    try:
        table = LobbyTable(get_game(game), options, players, host_name)
        table.seat_local(host_name, HOST, local_ports[0], ready=True)
        for port in local_ports[1:]:
            table.seat_local(table.bot_name(), BOT, port, ready=True)
        addresses = await _seat_people(peer, HostLobby(table, lobby, announce=announce))
    except LobbyError as err:
        raise PeerFailed(str(err)) from None
    return addresses, table.names()


async def _seat_people(peer: Peer, lobby: HostLobby) -> list[tuple[str | None, int]]:
    """Run ``lobby`` until every seat is taken and ready, with ``peer`` as its host (so :meth:`Peer.remove`
    reaches it); every seat's address."""
    peer._lobby = lobby
    try:
        return list(await lobby.run())
    finally:
        peer._lobby = None


async def _rendezvous_join(
    host: str, port: int, name: str, listen_port: int, announce: Callable[[str], None]
) -> _Seating:
    """Sit down through the host's lobby, ready at once, and wait for the start."""
    from p2php.lobby import JoinSession, LobbyError, TableView, format_table
    from p2php.lobby import join_table as lobby_join

    def on_table(view: TableView, seat: int) -> None:
        for line in format_table(view, seat):
            announce(line)

    try:
        joined = await lobby_join(host, port, JoinSession(name, listen_port), ready=True, on_table=on_table)
    except LobbyError as err:
        raise PeerFailed(str(err)) from None
    view = joined.view
    return _Seating(joined.seat, view.game, dict(view.options), view.players, list(joined.addresses))


def _split_address(address: str | tuple[str, int]) -> tuple[str, int]:
    if isinstance(address, tuple):
        return address[0], int(address[1])
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"expected HOST:PORT, got {address!r}")
    return host.strip("[]"), int(port)


# ----------------------------------------------------------------------------- transcripts


@dataclass(frozen=True)
class TranscriptInfo:
    """What a saved transcript says about its game, without re-verifying it (``data``: the file's fields; its
    ``hellos`` and ``messages`` are read-only sequences, each entry decoded when it is read)."""

    game: str
    options: dict[str, Any]
    seat: int | None
    names: tuple[str, ...]
    messages: int
    verdict: dict[str, Any] | None
    data: dict[str, Any]


@dataclass(frozen=True)
class TranscriptCheck:
    """The result of re-verifying a transcript from scratch (``p2php verify``)."""

    ok: bool
    lines: tuple[str, ...]
    state_hash: bytes | None


def load_transcript(path: str | Path) -> TranscriptInfo:
    """Read a transcript (raises :class:`TranscriptError` for a file that is not one)."""
    data = _transcript.load(path)
    hellos = data["hellos"]
    names = tuple(safe(h.get("name", f"seat {i}"), NAME) if isinstance(h, dict) else f"seat {i}"
                  for i, h in enumerate(hellos))  # a hello's name is its peer's word: shown safe, as everywhere
    seat = data.get("seat")
    verdict = data.get("verdict")
    return TranscriptInfo(data["game"], dict(data["options"]), seat if isinstance(seat, int) and seat >= 0 else None,
                          names, len(data["messages"]), verdict if isinstance(verdict, dict) else None, data)


def verify_transcript(path: str | Path) -> TranscriptCheck:
    """Re-check signatures, chains, the engine replay and the audit; needs no secret."""
    check = _transcript.verify(path)
    spectator = check.spectator
    verdict = None if spectator is None else spectator.verdict
    return TranscriptCheck(check.ok, tuple(check.lines), None if verdict is None else verdict.state_hash)


# ----------------------------------------------------------------------------- helpers


def _label(ls: Lockstep, action: Action) -> str:
    assert ls.seat is not None
    try:
        return ls.state.describe(ls.seat, action, {**ls.private_faces, **ls.public_faces})
    except Exception:  # a description must never stop a client
        return str(action)


def _step_event(ls: Lockstep, event: _StepEvent) -> StepResolved:
    step = event.step

    def cards(faces: Mapping[int, int]) -> tuple[Card, ...]:
        return tuple(Card(slot, card, ls.game.card_name(card, ls.options)) for slot, card in faces.items())

    received: dict[int, int] = {}
    if isinstance(step, Deal):
        received = {slot: ls.private_faces[slot] for slot, to in step.to if to == ls.seat and slot in ls.private_faces}
    elif isinstance(step, Show) and step.viewer == ls.seat:
        received = {slot: ls.private_faces[slot] for slot in step.slots if slot in ls.private_faces}
    revealed = event.faces if isinstance(step, Decide | Reveal) else {}
    try:
        from p2php.terminal import event_lines

        lines = tuple(event_lines(ls, event))
    except Exception:  # the terminal's wording is a nicety; the engine's lines always exist
        lines = tuple(event.lines)
    return StepResolved(event.tick, type(step).__name__.lower(), lines, tuple(event.answers), cards(revealed),
                        cards(received), event.random)
