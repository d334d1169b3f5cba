"""Test-only edits to the state of a protocol scenario, replayed at the same point by every state.

Rule tests sometimes set up a position by writing to the state (``st.hp[0] = 2``,
``st.push(task)``).  With real peers there is one state per peer, and the audit
rebuilds more from the event log; all of them must make the same edit at the same
point.  So an edit is logged as an :class:`Edit` (where it was made: after how many
engine transitions), and the game's states are *edited states*
(:func:`edited_game`): each makes every logged edit that is due before it says
what happens next.  :class:`SharedState` is the test's view of every peer's state
at once: reads show seat 0's, every write goes into the log and so to all.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from p2php.engine.contract import Action, CardId, Game, GameState, Seat, Slot, Step

Path = tuple[tuple[str, Any], ...]
"""How to reach an object inside a state: ("attr", name) and ("item", key) steps."""

CONTRACT_READS = frozenset({
    "legal_actions", "check", "reveals", "step", "state_hash", "snapshot", "observation", "describe", "clone",
    "setup_done", "get", "items", "keys", "values", "copy", "index", "count",
})
"""Methods that only read, in every game (a game's helper adds its own)."""


@dataclass(frozen=True)
class Edit:
    """One test-only change to the state, made after ``at`` engine transitions."""

    at: int
    path: Path
    op: str  # setattr | setitem | delitem | call
    key: Any
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def apply(self, state: GameState) -> Any:
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


class EditedState(GameState):
    """A mixin for a game's state class: makes the logged edits at the point they were made.

    ``_transitions`` counts completed engine steps (one per :meth:`apply` or
    :meth:`advance`, i.e. one per lockstep event), so a replay from the event log
    makes each edit exactly where the live game made it.
    """

    _edits: list[Edit]
    _applied: int
    _transitions: int

    def sync(self) -> None:
        """Make every logged edit that is due at this point."""
        while self._applied < len(self._edits) and self._edits[self._applied].at <= self._transitions:
            self._edits[self._applied].apply(self)
            self._applied += 1

    def step(self) -> Step:
        self.sync()
        return super().step()  # type: ignore[safe-super]  # a mixin: the game's class comes next

    def state_hash(self) -> bytes:
        self.step()  # due edits made, and the pending step settled (as after every transition)
        return super().state_hash()

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        super().apply(answers, faces)  # type: ignore[safe-super]
        self._transitions += 1

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        super().advance(faces, random)  # type: ignore[safe-super]
        self._transitions += 1


_STATE_CLASSES: dict[type, type] = {}


def make_edited(state: GameState, edits: list[Edit]) -> EditedState:
    """Turn a fresh state into an edited state over the shared edit log ``edits``."""
    cls = type(state)
    edited = _STATE_CLASSES.get(cls)
    if edited is None:
        edited = _STATE_CLASSES[cls] = type(f"Edited{cls.__name__}", (EditedState, cls), {})
    try:
        state.__class__ = edited
    except TypeError as err:
        raise TypeError(f"{cls.__name__} cannot take test-only edits ({err}); set the position up "
                        "through the game's own actions instead") from err
    assert isinstance(state, EditedState)
    state._edits, state._applied, state._transitions = edits, 0, 0
    return state


class EditedGame(Game):
    """A mixin for a game class: its new states are edited states over :attr:`edits`."""

    edits: list[Edit]

    def new_state(self, players: int, options: Mapping[str, object]) -> GameState:
        return make_edited(super().new_state(players, options), self.edits)  # type: ignore[safe-super]


def edited_game(game: Game) -> Game:
    """A copy of ``game`` (same name, options, rules) whose states take the scenario's edits."""
    cls = type(f"Edited{type(game).__name__}", (EditedGame, type(game)), {})
    out = copy.copy(game)
    out.__class__ = cls
    assert isinstance(out, EditedGame)
    out.edits = []
    return out


# ----------------------------------------------------------------------------- the shared view


class EditTable(Protocol):
    """What a shared view needs of its table: the states, the log, the reading methods."""

    pure_methods: frozenset[str]

    def first_state(self) -> GameState: ...

    def record(self, edit: Edit, made_on_first: bool = False) -> None: ...


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
    """Every peer's state at once: reads show seat 0's, writes go to all (see the module docstring).

    Containers inside the state (lists, dicts, sets and any ``wrap`` types) are
    shared views too, so ``st.hp[0] = 2`` is an edit of every peer's state.
    """

    __slots__ = ("_table", "_path", "_wrap_types")

    def __init__(self, table: EditTable, path: Path = (), wrap: tuple[type, ...] = ()) -> None:
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_wrap_types", (list, dict, set, *wrap))

    def _here(self) -> Any:
        return resolve(self._table.first_state(), self._path)

    def _wrap(self, step: tuple[str, Any], value: Any) -> Any:
        if isinstance(value, self._wrap_types):
            return SharedState(self._table, (*self._path, step), self._wrap_types[3:])
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
        if self.name in table.pure_methods:
            return target(*args, **kwargs)
        first = table.first_state()
        before = first.state_hash()
        result = target(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        if first.state_hash() != before:
            table.record(Edit(0, self.owner._path, "call", self.name, args, kwargs), made_on_first=True)
        return result
