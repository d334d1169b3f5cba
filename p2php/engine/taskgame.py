"""A game state whose contract methods are handed to its task stack.

Every game on the kit keeps its pending work on a :class:`~p2php.engine.tasks.TaskStack`,
and then the contract's decision and chance methods all say the same thing: ask the task on
top.  :class:`TaskGame` says it once, so a game writes its rules in tasks and only its
zones, views and snapshot in the state:

* :meth:`step` is the stack's pending step (the stack is settled after every change);
* :meth:`legal_actions`, :meth:`check` and :meth:`reveals` ask the top task, for a seat
  the pending :class:`~p2php.engine.contract.Decide` asks (others get nothing / a refusal);
* :meth:`apply` checks every answer (seats in the asked order; a prefix is only checked,
  as the contract allows), requires the face of every slot an answer opens, records the
  opened faces in :attr:`pub`, and hands the answers to the top task -- which validates what
  depends on those faces and may refuse, in which case :attr:`pub` is put back as it was;
* :meth:`advance` completes a chance step (every face of a Reveal, at least 16 bytes of
  Randomness) and hands its result to the top task.

A game that needs a faster path (UNO checks its commonest answer once, not twice) overrides
the method it speeds up; the others stay as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from p2php.engine.contract import (
    Action,
    CardId,
    Decide,
    GameOver,
    GameState,
    IllegalAction,
    Knowledge,
    Randomness,
    Reveal,
    Seat,
    Slot,
    Step,
)
from p2php.engine.tasks import Task, TaskStack

__all__ = ["TaskGame", "keys_by_type"]

MIN_RANDOM = 16
"""Bytes of joint randomness a Randomness step needs at least."""


class TaskGame(GameState):
    """Base of a game state that keeps its rules on a task stack.

    Subclasses set :attr:`stack` (and settle it) and :attr:`pub` in ``__init__`` and implement
    :meth:`observation`, :meth:`snapshot` (including ``stack.snapshot()``), :meth:`clone`
    (including ``stack.clone()``) and :meth:`describe`.
    """

    stack: TaskStack[Any]  # a subclass narrows it: TaskStack[ItsState]
    pub: dict[Slot, CardId]
    """Every face opened to everyone so far."""
    bool_keys: ClassVar[frozenset[str]] = frozenset()
    """The keys of this game's actions whose values may be ``true``/``false``; a bool anywhere else is refused
    before any task sees it. Python takes ``True`` for ``1`` (``True in [1]``, ``[10, 20][True]``), so a cheater's
    ``{"slot": true}`` passed the checks of slot 1 and went on as a bool: a crash further on, or an honest seat
    blamed for what came of it."""

    action_keys: ClassVar[Mapping[str, frozenset[str]]] = {}
    """Per action ``type``, the keys an answer of that type may carry (``{"play": frozenset({"type", "slot"})}``).
    An answer with any other key is refused before any task sees it (:meth:`refuse_stray_keys`): a key the rules
    do not read would be signed into every seat's record (a cheater's megabytes) and make a second encoding of the
    same move. Empty (the default): the keys of the listed legal actions of the answer's type are the rule."""

    _public_view: Knowledge | None = None
    """What :meth:`public_view` hands out while :attr:`pub` stays the same dict."""

    def public_view(self) -> Knowledge:
        """What everyone knows now: ``Knowledge(self.pub)``, one object while :attr:`pub` is the same dict
        (a view of it, so it reads the faces opened since; an answer is checked with it at every decision)."""
        known = self._public_view
        if known is None or known.public is not self.pub:
            known = self._public_view = Knowledge(self.pub)
        return known

    def step(self) -> Step:
        return self.stack.pending or self.stack.settle(self)  # settled after every change: a read

    def waiting(self) -> tuple[Seat, ...]:
        """The seats the pending Decide asks (none at a chance step or at the end)."""
        step = self.stack.pending or self.stack.settle(self)
        return step.seats if type(step) is Decide else ()

    def asking(self, seat: Seat) -> Task[Any]:
        """The top task, when it asks ``seat``; else :class:`IllegalAction`."""
        if seat not in self.waiting():
            raise IllegalAction(f"seat {seat} is not asked to decide now")
        return self.stack.top

    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return self.stack.top.legal(self, seat, knowledge) if seat in self.waiting() else []

    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if not isinstance(action, dict):
            raise IllegalAction(f"an action is a dict, not {type(action).__name__}")
        _refuse_stray_bools(action, self.bool_keys)
        task = self.asking(seat)
        task.check(self, seat, action, knowledge)
        self.refuse_stray_keys(task, seat, action, knowledge)

    def refuse_stray_keys(self, task: Task[Any], seat: Seat, action: dict[str, Any], knowledge: Knowledge) -> None:
        """:class:`IllegalAction` for an answer (``task.check`` passed it) with a key its decision does not read.

        A task whose check is :meth:`Task.check`'s own took the answer only if it equals a listed action exactly;
        else the answer's keys must be among :attr:`action_keys` of its type or, where the game declares none,
        among the keys of the listed legal actions of its type (as this peer lists them: ``check_game`` checks
        every listed action with the public view too, so an honest answer passes on every peer). A view that lists
        no action of the type (its legal actions need a face it cannot see) does not judge the keys: the seat's own
        list named them, and every other peer would refuse an honest answer (``check_game`` asks such a game to
        declare :attr:`action_keys`)."""
        if type(task).check is Task.check:
            return
        typ = action.get("type")
        declared = self.action_keys
        allowed = declared.get(typ) if declared and type(typ) is str else None
        if allowed is None:
            listed = [a for a in task.legal(self, seat, knowledge) if a.get("type") == typ]
            if not listed:  # this view lists no answer of the type (a face it cannot see): it cannot tell its keys
                return
            allowed = frozenset(k for a in listed for k in a)
        for key in action:
            if key not in allowed:
                raise IllegalAction(f"a {str(typ)[:40]!r} answer carries no {str(key)[:40]!r}")

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if not isinstance(action, dict) or seat not in self.waiting():
            return ()
        return self.stack.top.reveals(self, seat, action)

    def forced_in_public(self, seat: Seat) -> bool:
        return seat in self.waiting() and self.stack.top.forced_in_public(self, seat)

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        stack = self.stack
        seats = self.waiting()
        if not seats:
            raise IllegalAction("no decision is pending")
        if not (len(answers) == 1 == len(seats) and answers[0][0] == seats[0]):  # else the commonest: the one seat
            given = tuple([seat for seat, _action in answers])
            if not given or given != seats[: len(given)]:
                raise IllegalAction(f"answers from seats {list(given)} to a decision of seats {list(seats)}")
        task = stack.top
        known = Knowledge({**self.pub, **faces}) if faces else self.public_view()  # with the faces these open
        own_check = type(self).check is TaskGame.check  # then the seats are known asked: ask the task at once
        bool_keys = self.bool_keys
        for seat, action in answers:  # checked again: apply may get answers check() never saw
            if not own_check or type(action) is not dict:
                self.check(seat, action, known)  # a non-dict: refused, with check's words
            else:
                _refuse_stray_bools(action, bool_keys)
                task.check(self, seat, action, known)
                self.refuse_stray_keys(task, seat, action, known)
            for slot in task.reveals(self, seat, action):
                if slot not in faces:
                    raise IllegalAction(f"the face of slot {slot} was not opened")
        if len(answers) < len(seats):
            return  # a prefix is only checked (the session uses that to name a culprit)
        self._answer(answers, faces)

    def apply_listed(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        """:meth:`apply` without its checks of the seats and actions: listed answers pass them all (the
        contract; ``p2php.testing.agreement`` tries it on every game), and at an engine-only table they were
        most of a window's "pass" cost.  The task still validates what depends on the opened faces."""
        self._answer(answers, faces)

    def _answer(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        """Hand checked answers to the top task: the opened faces recorded in :attr:`pub` first, and taken back
        if the task refuses them."""
        stack, pub = self.stack, self.pub
        if not faces:  # the commonest answer opens nothing: no face to record or take back
            stack.answer(self, answers, faces)
            return
        added = [slot for slot in faces if slot not in pub]
        pub.update(faces)
        try:
            stack.answer(self, answers, faces)  # the task validates the opened faces first
        except IllegalAction:
            for slot in added:
                del pub[slot]
            raise

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        step = self.stack.settle(self)
        if isinstance(step, Decide | GameOver):
            raise IllegalAction(f"advance() is for chance steps, not a {type(step).__name__}")
        faces = dict(faces or {})
        if isinstance(step, Reveal):
            missing = [slot for slot in step.slots if slot not in faces]
            if missing:
                raise IllegalAction(f"faces missing for revealed slots {missing}")
            self.pub.update(faces)
        if isinstance(step, Randomness) and len(random) < MIN_RANDOM:
            raise IllegalAction(f"randomness too short: {len(random)} bytes, at least {MIN_RANDOM}")
        self.stack.advance(self, faces, random)


def keys_by_type(shapes: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """:attr:`TaskGame.action_keys` from ``{type: "the other keys, space-separated"}`` (``"type"`` is added).

    ``keys_by_type({"end": "", "use": "kind slots targets"})`` is ``{"end": {"type"}, "use": {"type", "kind", "slots",
    "targets"}}``."""
    return {typ: frozenset({"type", *keys.split()}) for typ, keys in shapes.items()}


def _refuse_stray_bools(value: Any, allowed: frozenset[str], key: str = "") -> None:
    """:class:`IllegalAction` for a ``true``/``false`` anywhere in an action but under a key of ``allowed``."""
    if type(value) is dict:
        for k, v in value.items():
            t = type(v)
            if t is str or t is int:  # the commonest values (a type, a slot): nothing to refuse or walk
                continue
            if t is bool:
                if k not in allowed:
                    raise IllegalAction(f"{k!r} cannot be true or false here (a number or a word belongs there)")
            elif t is dict or t is list:
                _refuse_stray_bools(v, allowed, str(k))
    elif type(value) is list:
        for v in value:
            t = type(v)
            if t is int or t is str:
                continue
            if t is bool:
                raise IllegalAction(f"{key!r} cannot hold true or false (numbers or words belong there)")
            if t is dict or t is list:
                _refuse_stray_bools(v, allowed, key)
