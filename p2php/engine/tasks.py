"""A game-agnostic task stack: pending resolution as a stack of small plain-data tasks.

Why a stack of dataclasses (and not generators, closures or integer-coded tuples):
decisions and the contract's chance steps (Shuffle, Deal, Reveal, Show,
Randomness) interrupt resolution at any depth, and every peer must be able to
hash the whole state after every step and to clone it.  A generator cannot be
hashed or copied; a tuple ``(8, seat)`` can, but then every reader re-learns what
``t[1]`` means in a separate if-chain.  A :class:`Task` keeps in one class what
one concept does: how it runs, what a seat may answer, how an answer is checked
and applied.

How it runs.  :meth:`TaskStack.settle` calls :meth:`Task.run` on the top task
until one of them returns a contract step; that step is cached as
:attr:`TaskStack.pending`, so reading it again is free and has no side effect.
``run`` returns either

* a contract :data:`~p2php.engine.contract.Step` (Decide, Shuffle, Reshuffle, Deal, Reveal,
  Show, Randomness, GameOver): the stack waits; the result comes back through
  :meth:`Task.answer` (a Decide) or :meth:`Task.received` (any other step);
* :class:`Done` (``result`` optional): the task is popped and ``result`` goes to
  the parent's field named when the parent pushed it (see :class:`Call`);
* :class:`Push`: sub-tasks go on top (the first listed runs first); the task
  runs again when they are done;
* :class:`Call`: one sub-task whose typed result is stored in the caller's field
  ``into`` -- a named, typed hand-over instead of one shared ``ret`` that the
  parent inspects with ``isinstance``;
* :class:`Replace`: the task is popped and others take its place (a tail call;
  whoever waited for its result gets the result of the last of them).

Effects that are not tasks (a skill at a timing point, a card's ability) add work with
:meth:`TaskStack.push` while a task runs.  What they push runs first; the running task's
outcome still applies to that task (``Done`` removes it, not what was pushed over it).

``answer`` and ``received`` return the same outcomes.  Stages are named: a task
that goes through several declares ``class Stage(Enum)`` and a ``stage`` field,
so the order of a task reads from names, not from numbers inserted later.

Nothing here knows a game: ``G`` is whatever the game passes to its tasks
(usually its state object).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from typing import Any, ClassVar, Generic, TypeVar, cast, overload

from p2php.canonical import NotCanonical, encode
from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    GameOver,
    IllegalAction,
    Knowledge,
    Randomness,
    Reshuffle,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
    Step,
)

G = TypeVar("G")
E = TypeVar("E", bound=Enum)

__all__ = [
    "CONTINUE", "Call", "Done", "Outcome", "Push", "Replace", "Task", "TaskStack", "ask_one", "offered", "plain",
    "stage_names",
]


def stage_names(stage: type[E]) -> type[E]:
    """``stage``'s members as plain class attributes, for a task's ``run`` to compare its stage with.

    ``stage_names(S).START is S.START``: the same member objects, read faster.  On CPython 3.11 a
    member read through its enum class (``S.START``) goes through the enum metaclass's ``__getattr__``
    hook (~0.3 µs), and a task reads a few at every run, at every step of every game.  Only member
    reads work on the result (no iteration, ``S["START"]`` or ``S(1)``): it is typed as the enum so
    that those reads keep their type.
    """
    return cast("type[E]", type(f"{stage.__qualname__}Names", (), dict(stage.__members__)))


@functools.lru_cache(maxsize=4096)
def ask_one(seat: Seat, prompt: str) -> Decide:
    """``Decide((seat,), prompt)``, one shared object per seat and prompt (the last 4096 asked).

    A Decide is immutable, so tasks may share one; making one (a frozen dataclass's ``__init__``)
    costs ~1 µs on CPython 3.11, and a task that asks one seat does it at nearly every decision."""
    return Decide((seat,), prompt)


def offered(action: Action, legal: Sequence[Action]) -> bool:
    """Whether ``action`` is one of ``legal`` **exactly**, types and all.

    Python finds ``True == 1`` and ``{"slot": True} in [{"slot": 1}]``, but the wire keeps ``true`` and ``1``
    apart, and so must a check: a cheater's ``true`` where a slot number belongs passed ``in``, and the
    engine went on with a bool for a slot (a crash further on, or an honest seat blamed for what came of it).
    Use this, never ``in``, to test an action against a list of legal ones.
    """
    if action not in legal:  # the common refusal, at the cost of ``in``
        return False
    try:
        key = encode(action)
    except NotCanonical:  # a float (1.0 == 1 too), or what no message could carry
        return False
    return any(x == action and encode(x) == key for x in legal)


# ----------------------------------------------------------------------------- outcomes


class Done:
    """The task is finished; ``result`` goes to the caller's ``into`` field (if it asked for one).

    Outcomes are plain slotted classes, not frozen dataclasses: one is made for nearly every
    step of every game, and they are never changed after they are made.
    """

    __slots__ = ("result",)

    def __init__(self, result: Any = None) -> None:
        self.result = result

    def __repr__(self) -> str:
        return f"Done({self.result!r})"


class Push:
    """Put ``tasks`` on top of the running task (``tasks[0]`` runs first); it runs again after them.

    ``Push()`` with no task (:data:`CONTINUE`) just runs the same task again, e.g. in its next stage.
    """

    __slots__ = ("tasks",)

    def __init__(self, *tasks: Task[Any]) -> None:
        self.tasks = tasks

    def __repr__(self) -> str:
        return f"Push{self.tasks!r}"


class Call:
    """Run ``task``; when it is done, store its result in the caller's field ``into``."""

    __slots__ = ("into", "task")

    def __init__(self, task: Task[Any], into: str) -> None:
        self.task = task
        self.into = into

    def __repr__(self) -> str:
        return f"Call({self.task!r}, into={self.into!r})"


class Replace:
    """Pop the running task and push ``tasks`` in its place (``tasks[0]`` runs first).

    The caller that waited for the replaced task's result receives the result of the
    last of ``tasks`` (the one that finishes last), as with a tail call.
    """

    __slots__ = ("tasks",)

    def __init__(self, *tasks: Task[Any]) -> None:
        self.tasks = tasks

    def __repr__(self) -> str:
        return f"Replace{self.tasks!r}"


CONTINUE = Push()
"""Run the same task again (it has moved to another stage)."""

Control = Done | Push | Call | Replace
Outcome = Step | Control
"""What :meth:`Task.run`, :meth:`Task.answer` and :meth:`Task.received` return."""

_STEPS = (Decide, Shuffle, Reshuffle, Deal, Reveal, Show, Randomness, GameOver)
_STEP_TYPES: frozenset[type] = frozenset(_STEPS)


# ----------------------------------------------------------------------------- plain data

_ATOMS = frozenset({type(None), bool, int, str, bytes})
"""Exact types that are plain as they are (an ``IntEnum`` is an int subclass: it takes the general path)."""


def plain(value: Any) -> Any:
    """``value`` as plain data for a snapshot: enums by name, tasks by :meth:`Task.snapshot`, other
    dataclasses (typed results) as their kind and fields, tuples as lists."""
    t = type(value)
    if t in _ATOMS:
        return value
    if t is list or t is tuple:
        if _ATOMS.issuperset(map(type, value)):  # the commonest container: slots, seats, an event
            return list(value)
        return [v if type(v) in _ATOMS else plain(v) for v in value]
    if value is None or isinstance(value, bool | int | str | bytes):
        return value
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, Task):
        return value.snapshot()
    if is_dataclass(value) and not isinstance(value, type):  # a typed result: its kind and fields
        out: dict[str, Any] = {"kind": type(value).__name__}
        for f in fields(value):
            out[f.name] = plain(getattr(value, f.name))
        return out
    raise TypeError(f"a task field must be plain data, not {type(value).__name__}: {value!r:.80}")


_MUTABLE = (list, dict, set, bytearray)


# ----------------------------------------------------------------------------- the task


@dataclass
class Task(Generic[G]):
    """One piece of pending work.  Subclasses are dataclasses with plain fields only.

    Plain fields (ints, strings, bools, enums, tuples, lists and dicts of those, and
    nested tasks) make a task snapshot-able and cloneable without help.  A task that
    asks seats to decide implements :meth:`legal`, :meth:`answer` and, when answers
    carry more than a choice among listed actions, :meth:`check` and :meth:`reveals`.
    """

    _field_names: ClassVar[dict[type, tuple[str, ...]]] = {}

    def run(self, game: G) -> Outcome:
        """Advance: return a contract step to wait for, or a control outcome."""
        raise NotImplementedError(f"{type(self).__name__}.run")

    # ---- decisions (only for tasks that return a Decide)

    def legal(self, game: G, seat: Seat, knowledge: Knowledge) -> list[Action]:
        """Every legal answer of ``seat`` (with what ``knowledge`` can see)."""
        raise IllegalAction("no decision is pending")

    def check(self, game: G, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        """Raise :class:`IllegalAction` unless ``action`` is allowed.  Default: it is a legal action."""
        if not offered(action, self.legal(game, seat, knowledge)):
            raise IllegalAction(f"not a legal action here: {action}")

    def reveals(self, game: G, seat: Seat, action: Action) -> tuple[Slot, ...]:
        """Slots that ``action`` opens to everyone."""
        return ()

    def forced_in_public(self, game: G, seat: Seat) -> bool:
        """Whether ``seat`` has one legal answer here whatever faces it holds (see
        :meth:`~p2php.engine.contract.GameState.forced_in_public`).  Default: ``False``."""
        return False

    def answer(self, game: G, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        """Apply checked answers to this task's Decide."""
        raise IllegalAction("no decision is pending")

    # ---- other steps

    def received(self, game: G, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        """The chance step this task returned is done (faces of a Reveal, bytes of a Randomness)."""
        raise NotImplementedError(f"{type(self).__name__} did not expect the result of {type(step).__name__}")

    # ---- plain data

    @classmethod
    def _names(cls) -> tuple[str, ...]:
        names = Task._field_names.get(cls)
        if names is None:
            names = Task._field_names[cls] = tuple(f.name for f in fields(cls))
        return names

    def snapshot(self) -> dict[str, Any]:
        """The task as canonical plain data: its kind and every field (enums by name)."""
        d: dict[str, Any] = {"kind": type(self).__name__}
        for name in self._names():
            d[name] = plain(getattr(self, name))
        return d

    def clone(self) -> Task[G]:
        """An independent copy (containers and nested tasks copied, immutable values shared)."""
        new = copy.copy(self)
        for name in self._names():
            value = getattr(self, name)
            if isinstance(value, Task):
                setattr(new, name, value.clone())
            elif isinstance(value, _MUTABLE):
                setattr(new, name, copy.deepcopy(value))
        return new


# ----------------------------------------------------------------------------- the stack


class TaskStack(Generic[G]):
    """The stack of pending tasks of one game, and the loop that runs it.

    Each entry remembers where its result goes (the caller's field name, or ``""``).
    The game keeps one stack in its state, includes :meth:`snapshot` in its own
    snapshot and copies it with :meth:`clone`.
    """

    __slots__ = ("_into", "_tasks", "pending")

    def __init__(self, tasks: Sequence[Task[G]] = ()) -> None:
        """``tasks`` bottom first (the last one runs first)."""
        self._tasks: list[Task[G]] = list(tasks)
        self._into: list[str] = [""] * len(self._tasks)
        self.pending: Step | None = None

    # ---- the stack itself

    def push(self, task: Task[G], into: str = "") -> None:
        """Put ``task`` on top; with ``into``, its result goes to that field of the task below.

        A step the old top was waiting for is dropped: the new task runs first (settle again).
        """
        if into and (not self._tasks or into not in self._tasks[-1]._names()):
            raise TypeError(f"no field {into!r} to receive the result of {type(task).__name__}")
        self._tasks.append(task)
        self._into.append(into)
        self.pending = None

    def pop(self) -> Task[G]:
        """Remove and return the top task (its result, if any, is dropped)."""
        self._into.pop()
        return self._tasks.pop()

    @property
    def top(self) -> Task[G]:
        """The task that runs (or waits) now."""
        return self._tasks[-1]

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[Task[G]]:
        """Bottom first."""
        return iter(self._tasks)

    @overload
    def __getitem__(self, index: int) -> Task[G]: ...
    @overload
    def __getitem__(self, index: slice) -> list[Task[G]]: ...
    def __getitem__(self, index: int | slice) -> Task[G] | list[Task[G]]:
        """A task by position, bottom first (``stack[-1]`` is the top; ``stack[-2]`` the task that
        pushed it): bots and effects read the tasks below the one asking."""
        return self._tasks[index]

    def insert(self, index: int, task: Task[G]) -> None:
        """Put ``task`` below position ``index`` (an extra turn queued under the current one).

        Its result is dropped: nothing waits for a task slipped in under the running ones.
        """
        self._tasks.insert(index, task)
        self._into.insert(index, "")

    def reset(self, tasks: Sequence[Task[G]]) -> None:
        """Throw every pending task away and start again from ``tasks`` (the game ends at once)."""
        self._tasks[:] = tasks  # in place: a settle loop running now holds these lists
        self._into[:] = [""] * len(self._tasks)
        self.pending = None

    # ---- running

    def settle(self, game: G) -> Step:
        """Run tasks until one needs a contract step; cache and return it."""
        pending = self.pending
        if pending is not None:
            return pending
        return self._run(game, None, CONTINUE)

    def _run(self, game: G, task: Task[G] | None, out: Outcome) -> Step:
        """Carry out ``out``, returned by ``task`` (``None``, ``CONTINUE``: nothing yet), then run the top task
        until one needs a contract step; cache and return it.

        One loop for the outcome of an answer or of a chance step and for the runs after it: an engine-only
        table comes here once for every decision and every draw, and the outcome handed in is usually one of the
        fast paths below (a turn's ``Done``, a draw's ``Call``, a ``CONTINUE``), as any run's is."""
        tasks, intos = self._tasks, self._into
        while True:
            if out is CONTINUE:  # the commonest outcome: run the top task (maybe a pushed one) again
                if not tasks:
                    raise RuntimeError("the task stack ran empty: a game needs a last task (its GameOver)")
                task = tasks[-1]
                out = task.run(game)
                continue
            assert task is not None  # only CONTINUE comes without its task
            if tasks[-1] is task:  # nothing was pushed over it: the next commonest outcomes, without _follow
                if type(out) in _STEP_TYPES:
                    self.pending = out  # type: ignore[assignment]  # the set holds exactly the Step types
                    return out  # type: ignore[return-value]
                if type(out) is Done:  # as _follow does it for the top task
                    tasks.pop()
                    into = intos.pop()
                    if into:
                        setattr(tasks[-1], into, out.result)
                    out = CONTINUE
                    continue
                if type(out) is Call and out.into in task._names():  # as _follow does it: a round calling a turn
                    tasks.append(out.task)
                    intos.append(out.into)
                    out = CONTINUE
                    continue
            self._follow(game, out, task)
            if self.pending is not None:
                return self.pending
            out = CONTINUE

    def answer(self, game: G, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Step:
        """Give checked answers to the pending Decide's task, then run on to the next step."""
        if not isinstance(self.pending, Decide):
            raise IllegalAction("no decision is pending")
        task = self._tasks[-1]
        out = task.answer(game, answers, faces)  # a refusal leaves the step pending
        self.pending = None
        return self._run(game, task, out)

    def advance(self, game: G, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> Step:
        """The pending chance step is done: hand its result to its task, then run on."""
        step = self.pending
        if step is None or isinstance(step, Decide | GameOver):
            raise IllegalAction("advance() is for chance steps")
        task = self._tasks[-1]
        out = task.received(game, step, faces or {}, random)  # a refusal leaves the step pending
        self.pending = None
        return self._run(game, task, out)

    def _where(self, task: Task[G], out: Outcome) -> int:
        """The position of ``task``, which returned ``out`` (usually the top)."""
        tasks = self._tasks
        for i in range(len(tasks) - 1, -1, -1):
            if tasks[i] is task:
                return i
        raise RuntimeError(f"{type(task).__name__} returned {out!r} after it left the stack (reset?)")

    def _follow(self, game: G, out: Outcome, task: Task[G]) -> None:
        """Carry out ``out``, returned by ``task``.

        Usually ``task`` is still on top.  It is not when it (or an effect it ran) pushed tasks
        with :meth:`push` while running: those stay on top and run first, and the outcome
        applies to ``task`` itself -- ``Done`` removes *it*, not what it pushed; the tasks of
        ``Push``/``Call``/``Replace`` go directly above it (or in its place).
        """
        tasks, intos = self._tasks, self._into
        cls = type(out)  # exact types first: this runs for nearly every step of every game
        if cls is Push and not out.tasks:  # type: ignore[union-attr]  # CONTINUE: nothing to place
            return
        me = len(tasks) - 1
        if tasks[me] is not task:
            me = self._where(task, out)
        depth = me + 1
        if cls is Done:
            into = intos.pop(me)
            tasks.pop(me)
            if into:
                setattr(tasks[me - 1], into, out.result)  # type: ignore[union-attr]
        elif cls is Push:
            for t in out.tasks:  # type: ignore[union-attr]  # the first listed ends up highest
                tasks.insert(depth, t)
                intos.insert(depth, "")
        elif cls is Call:
            task, into = out.task, out.into  # type: ignore[union-attr]
            if into not in tasks[me]._names():
                raise TypeError(f"no field {into!r} to receive the result of {type(task).__name__}")
            tasks.insert(depth, task)
            intos.insert(depth, into)
        elif cls is Replace:
            into = intos.pop(me)
            tasks.pop(me)
            new = out.tasks  # type: ignore[union-attr]
            for t in reversed(new):  # the last listed lowest: it finishes last and gets ``into``
                tasks.insert(me, t)
                intos.insert(me, into if t is new[-1] else "")
                me += 1
        elif cls in _STEP_TYPES or isinstance(out, _STEPS):
            if tasks[-1] is not task:
                raise RuntimeError(f"{type(tasks[me]).__name__} pushed tasks and then waited for "
                                   f"{type(out).__name__}: return CONTINUE and ask in its next stage")
            self.pending = out  # type: ignore[assignment]  # one of the Step types
        else:
            raise TypeError(f"{type(tasks[me]).__name__} returned {out!r}, not an outcome")

    # ---- plain data

    def snapshot(self) -> list[Any]:
        """Every task bottom first, each with where its result goes."""
        return [[t.snapshot(), into] for t, into in zip(self._tasks, self._into, strict=True)]

    def clone(self) -> TaskStack[G]:
        """An independent copy (the cached pending step is immutable and shared)."""
        new: TaskStack[G] = TaskStack.__new__(TaskStack)
        new._tasks = [t.clone() for t in self._tasks]
        new._into = list(self._into)
        new.pending = self.pending
        return new
