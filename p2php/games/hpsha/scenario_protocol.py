"""TEST ONLY: run a rule scenario through the real protocol instead of a trusted dealer.

:class:`~p2php.games.hpsha.scenario.Scenario` normally drives a
:class:`~p2php.engine.local.LocalTable`.  In ``protocol`` mode it drives a
:class:`ProtocolTable` instead: one :class:`~p2php.session.lockstep.Lockstep`
peer per seat, wired together in memory after a real handshake, every deck
stacked through :mod:`p2php.session.stacking` (so shuffles, deals, reveals,
private shows and joint randomness all go through the mental-poker protocol and
are audited), every signed frame delivered to every other peer.  The table has
the same surface as ``LocalTable`` (``act``, ``run_chance``, ``knowledge``,
``faces``, ``public``, ``private``, ``log``), so the same scripted test runs in
both modes.

Rule tests sometimes set up a position by writing to the state (``st.hp[0] = 2``,
``st.push(task)``).  In protocol mode ``Scenario.state`` is a :class:`SharedState`
view: reads come from seat 0's peer, every write goes to every peer's state and
into an *edit log*, and the peers' game object (:class:`ScenarioGame`) builds
states (:class:`EditedState`) that replay the edit log at the same point of the
game — which is what the audit's replay needs to agree with the live run.
:meth:`ProtocolTable.finish` ends an unfinished scenario with a test-only "game
over" edit so that every peer runs the audit; a scenario passes only when every
peer's verdict is clean and all final state hashes are equal.

Nothing here is used in real play.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import deque
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2php.engine.contract import (
    Action,
    CardId,
    Decide,
    GameOver,
    Knowledge,
    Seat,
    Shuffle,
    Slot,
    Step,
)
from p2php.games.hpsha import HpshaGame
from p2php.games.hpsha.state import HpshaState
from p2php.games.hpsha.tasks import Task
from p2php.session.handshake import Table, check_hello, make_hello
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.stacking import stack

Path = tuple[tuple[str, Any], ...]
"""How to reach an object inside a state: ("attr", name) and ("item", key) steps."""

PURE_METHODS = frozenset({
    "legal_actions", "check", "reveals", "step", "state_hash", "snapshot", "observation", "describe", "clone",
    "distance", "raw_distance", "attack_range", "in_range", "kind", "card", "names", "weapon", "armour",
    "has_judge", "order_from", "next_alive", "who", "faction", "gender", "hand_limit", "skips", "locate",
    "unopened", "game_decided", "final_result", "current_or_first", "setup_done", "skills", "skill_label",
    "discard_available", "damage_prevented", "uncounterable",
    # containers
    "get", "items", "keys", "values", "copy", "index", "count",
})
"""Methods that only read (called on seat 0's state alone).  Any other call is run on seat 0's
state first; if that changed the state hash it is an edit, and every other peer makes it too."""


# ----------------------------------------------------------------------------- the edit log


@dataclass(frozen=True)
class Edit:
    """One test-only change to the state, made after ``at`` engine transitions."""

    at: int
    path: Path
    op: str  # setattr | setitem | delitem | call
    key: Any
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def apply(self, state: HpshaState) -> Any:
        obj: Any = resolve(state, self.path)
        args = copy.deepcopy(self.args)
        if self.op == "setattr":
            setattr(obj, self.key, args[0])
        elif self.op == "setitem":
            obj[self.key] = args[0]
        elif self.op == "delitem":
            del obj[self.key]
        else:
            return getattr(obj, self.key)(*args, **copy.deepcopy(dict(self.kwargs)))
        return None


def resolve(root: Any, path: Path) -> Any:
    obj = root
    for how, key in path:
        obj = getattr(obj, key) if how == "attr" else obj[key]
    return obj


class EditedState(HpshaState):
    """An :class:`HpshaState` that makes the scenario's test-only edits at the point they were made.

    ``_transitions`` counts completed engine steps (one per :meth:`apply` or
    :meth:`advance`, i.e. one per lockstep event), so a replay from the event log
    makes each edit exactly where the live game made it.
    """

    def __init__(self, players: int, options: Mapping[str, Any], edits: list[Edit]) -> None:
        self._edits = edits
        self._applied = 0
        self._transitions = 0
        super().__init__(players, options)

    def sync(self) -> None:
        """Make every logged edit that is due at this point."""
        while self._applied < len(self._edits) and self._edits[self._applied].at <= self._transitions:
            self._edits[self._applied].apply(self)
            self._applied += 1

    def step(self) -> Step:
        self.sync()
        return super().step()

    def state_hash(self) -> bytes:
        self.step()  # due edits made, and the pending step settled (as after every transition)
        return super().state_hash()

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        super().apply(answers, faces)
        self._transitions += 1

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        super().advance(faces, random)
        self._transitions += 1


class ScenarioGame(HpshaGame):
    """Harry Potter Sha whose states replay one scenario's edit log (not registered)."""

    def __init__(self) -> None:
        self.edits: list[Edit] = []

    def new_state(self, players: int, options: Mapping[str, object]) -> EditedState:
        self.check_players(players)
        return EditedState(players, self._opts(options), self.edits)


# ----------------------------------------------------------------------------- the table


class _PublicFaces(MutableMapping[Slot, CardId]):
    """Seat 0's public faces; a test-only write opens the face on every peer."""

    def __init__(self, peers: Sequence[Lockstep]) -> None:
        self.peers = peers

    def __getitem__(self, slot: Slot) -> CardId:
        return self.peers[0].public_faces[slot]

    def __setitem__(self, slot: Slot, card: CardId) -> None:
        for ls in self.peers:
            ls.public_faces[slot] = card

    def __delitem__(self, slot: Slot) -> None:
        for ls in self.peers:
            del ls.public_faces[slot]

    def __iter__(self) -> Iterator[Slot]:
        return iter(self.peers[0].public_faces)

    def __len__(self) -> int:
        return len(self.peers[0].public_faces)


class ProtocolTable:
    """The scenario's table as ``players`` real peers in memory, with stacked decks."""

    def __init__(
        self,
        game: ScenarioGame,
        players: int,
        options: Mapping[str, Any],
        seed: int,
        arrange: Callable[[Shuffle], Sequence[CardId]],
    ) -> None:
        self.game = game
        self.arrange = arrange
        opts = game.parse_options(dict(options))
        secrets = [seeded_secrets(f"scenario/{seed}", s) for s in range(players)]
        hellos = [make_hello(secrets[s], s, players, game.name, opts, f"peer{s}") for s in range(players)]
        for s, h in enumerate(hellos):
            check_hello(h, seat=s, players=players, game=game.name, options=opts)
        table = Table(game.name, opts, tuple(hellos))
        self.faces: dict[Slot, CardId] = {}
        self._orders: dict[Slot, list[CardId]] = {}
        self.peers = [Lockstep(game, table, s, secrets[s]) for s in range(players)]
        stack(self.peers, self._stacked)
        self._queues: dict[Seat, deque[tuple[Seat, dict[str, Any]]]] = {s: deque() for s in range(players)}
        self.frames = 0
        self.public: MutableMapping[Slot, CardId] = _PublicFaces(self.peers)
        self.finished = False

    # ---- LocalTable's surface
    def _stacked(self, step: Shuffle) -> Sequence[CardId]:
        """The stacking hook: every peer (and the audit) asks; the scenario answers once per deck."""
        order = self._orders.get(step.first_slot)
        if order is None:
            order = self._orders[step.first_slot] = list(self.arrange(step))
            self.faces.update(zip(step.slots, order, strict=True))
        return order

    def knowledge(self, seat: Seat) -> Knowledge:
        return self.peers[seat].knowledge()

    @property
    def private(self) -> dict[Seat, dict[Slot, CardId]]:
        """Each peer's privately known faces (its own memory, not the test's)."""
        return {ls.seat: ls.private_faces for ls in self.peers if ls.seat is not None}

    @property
    def log(self) -> list[tuple[str, object]]:
        """Seat 0's resolved steps, in LocalTable's format."""
        out: list[tuple[str, object]] = []
        for event in self.peers[0].events:
            if isinstance(event.step, Decide):
                out.append(("actions", list(event.answers)))
            else:
                out.append((type(event.step).__name__, event.step))
        return out

    def act(self, answers: Sequence[tuple[Seat, Action]]) -> None:
        """Each answering peer acts; frames flow until every peer has applied the decision.

        Like ``LocalTable.act`` this stops right after the decision: the chance steps
        that follow are carried out by the next :meth:`run_chance`.
        """
        tick = self.peers[0].tick
        for seat, action in answers:
            self.peers[seat].act(action)
        self._pump(lambda ls: ls.tick > tick or ls.finished)

    def run_chance(self) -> GameOver | Decide:
        """Deliver every frame until every peer waits for a decision (or has finished its audit)."""
        self._pump(None)
        self._check_agreement()
        step = self.peers[0].step
        assert isinstance(step, Decide | GameOver), f"peers stopped at {step}"
        return step

    # ---- delivery
    def _collect(self, ls: Lockstep) -> None:
        for msg in ls.poll():
            for other in self.peers:
                if other is not ls and other.seat is not None:
                    assert ls.seat is not None
                    self._queues[other.seat].append((ls.seat, msg.to_wire()))
                    self.frames += 1

    def _pump(self, done: Callable[[Lockstep], bool] | None) -> None:
        for ls in self.peers:
            if done is None or not done(ls):
                self._collect(ls)
        moved = True
        while moved:
            moved = False
            for ls in self.peers:
                assert ls.seat is not None
                queue = self._queues[ls.seat]
                while queue and (done is None or not done(ls)):
                    sender, frame = queue.popleft()
                    ls.receive(sender, frame)
                    self._collect(ls)
                    moved = True
        for ls in self.peers:
            if ls.fault is not None:
                raise AssertionError(f"peer {ls.seat}: protocol fault: {ls.fault.describe()}")

    def _check_agreement(self) -> None:
        live = [ls for ls in self.peers if not ls.finished]
        if not live:
            return
        assert len(live) == len(self.peers), "some peers finished, others did not"
        assert len({(ls.tick, ls.phase) for ls in live}) == 1, "peers stopped at different points"
        assert len({ls.state.state_hash() for ls in live}) == 1, "peers' states differ (desync)"

    # ---- test-only edits
    def record(self, edit: Edit, made_on_first: bool = False) -> None:
        """Log an edit and make it on every peer's state (seat 0's may have made it already)."""
        states = [ls.state for ls in self.peers]
        assert all(isinstance(st, EditedState) for st in states)
        points = {st._transitions for st in states if isinstance(st, EditedState)}
        assert len(points) == 1, "a scenario may only edit the state when all peers are at the same point"
        self.game.edits.append(dataclasses.replace(edit, at=points.pop()))
        for i, st in enumerate(states):
            assert isinstance(st, EditedState)
            if i == 0 and made_on_first:
                st._applied += 1
            else:
                st.sync()
        self._refresh()

    def _refresh(self) -> None:
        """An edit may change the pending step (a pushed task): tell each peer's lockstep."""
        for ls in self.peers:
            step = ls.state.step()
            if step == ls.step:
                continue
            if ls.phase != 0 or set(ls.waiting_for()) != set(ls.expected()):
                raise AssertionError("an edit changed the pending step after peers had answered it; "
                                     "call sc.step() before such an edit")
            ls.refresh_step()  # what Lockstep._next_tick would do; the tick stays (no event)

    def finish(self) -> None:
        """End the game (test-only, if it has not ended), run every peer's audit, check the verdicts."""
        if self.finished:
            return
        self.finished = True
        step = self.run_chance()
        if not isinstance(step, GameOver):
            n = len(self.peers)
            over = GameOver((), (0,) * n, "the scenario ends here (test only)")
            self.record(Edit(0, (), "setattr", "result", (over,)))
            self.record(Edit(0, (), "setattr", "pending", (None,)))
            self.run_chance()
        verdicts = [ls.verdict for ls in self.peers]
        for ls, v in zip(self.peers, verdicts, strict=True):
            assert ls.finished and v is not None, f"peer {ls.seat} did not finish its audit"
            assert v.clean, f"peer {ls.seat}: audit not clean: {v.text()}"
        assert len({v.state_hash for v in verdicts if v is not None}) == 1, "final state hashes differ"


# ----------------------------------------------------------------------------- the shared view

_IMMUTABLE = (int, str, bytes, float, bool, type(None), tuple, frozenset)


def _plain(value: Any) -> Any:
    """A write's value, with any shared views replaced by (copies of) what they show."""
    if isinstance(value, SharedState):
        return copy.deepcopy(value._here())
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class SharedState:
    """Every peer's state at once: reads show seat 0's, writes go to all (see the module docstring)."""

    __slots__ = ("_table", "_path")

    def __init__(self, table: ProtocolTable, path: Path = ()) -> None:
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_path", path)

    def _here(self) -> Any:
        return resolve(self._table.peers[0].state, self._path)

    def _wrap(self, step: tuple[str, Any], value: Any) -> Any:
        if isinstance(value, list | dict | set | Task):
            return SharedState(self._table, (*self._path, step))
        return value

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._here(), name)
        if callable(value) and not isinstance(value, type):
            return _SharedMethod(self, name)
        return self._wrap(("attr", name), value)

    def __setattr__(self, name: str, value: Any) -> None:
        self._table.record(Edit(0, self._path, "setattr", name, (_plain(value),)))

    def __getitem__(self, key: Any) -> Any:
        value = self._here()[key]
        if isinstance(key, slice):
            return value  # a new list already
        return self._wrap(("item", key), value)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._table.record(Edit(0, self._path, "setitem", key, (_plain(value),)))

    def __delitem__(self, key: Any) -> None:
        self._table.record(Edit(0, self._path, "delitem", key))

    def __len__(self) -> int:
        return len(self._here())

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._here()))

    def __contains__(self, item: Any) -> bool:
        return _plain(item) in self._here()

    def __eq__(self, other: object) -> bool:
        return bool(self._here() == _plain(other))

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        return bool(self._here())

    def __add__(self, other: Any) -> Any:
        return self._here() + _plain(other)

    def __repr__(self) -> str:
        return f"<shared {self._here()!r}>"


class _SharedMethod:
    """A method of something inside the shared state (an edit if it changes the state)."""

    def __init__(self, owner: SharedState, name: str) -> None:
        self.owner = owner
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        table = self.owner._table
        args = tuple(_plain(a) for a in args)
        kwargs = {k: _plain(v) for k, v in kwargs.items()}
        target = getattr(self.owner._here(), self.name)
        if self.name in PURE_METHODS:
            return target(*args, **kwargs)
        first = table.peers[0].state
        before = first.state_hash()
        result = target(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        if first.state_hash() != before:
            table.record(Edit(0, self.owner._path, "call", self.name, args, kwargs), made_on_first=True)
        return result
