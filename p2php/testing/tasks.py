"""Test-only tasks: :class:`Capture` keeps what a task returns; :class:`EndHere` ends a game now.

A rule test sometimes starts a task by hand (``st.push(Capture(PointDuelTask(0, 1), "duel"))``)
and wants the result that task hands its caller.  On the stack that result goes to the caller's
field and is gone when the caller finishes, and in protocol mode every peer runs its own copy of
the task; so the capture keeps it beside each state (outside its snapshot and hash), where
:func:`captured` reads it -- seat 0's state's, through a protocol scenario's shared view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from p2php.engine.contract import GameOver
from p2php.engine.tasks import Call, Done, Outcome, Task

__all__ = ["Capture", "EndHere", "captured"]

_KEPT = "_p2php_captured"


@dataclass
class Capture(Task[Any]):
    """Run ``task``; when it is done, keep its result under ``name`` (see :func:`captured`)."""

    task: Task[Any]
    name: str = "result"
    result: Any = None
    called: bool = False

    def run(self, game: Any) -> Outcome:
        if not self.called:
            self.called = True
            return Call(self.task, into="result")
        vars(game).setdefault(_KEPT, {})[self.name] = self.result
        return Done()


def captured(state: Any, name: str = "result") -> Any:
    """The result a :class:`Capture` kept under ``name`` in ``state`` (KeyError: none yet)."""
    kept = getattr(state, _KEPT, None)
    if kept is None:
        raise KeyError(f"no task result was captured (under {name!r} or any name) yet")
    return kept[name]


@dataclass
class EndHere(Task[Any]):
    """The game ends at this point with ``over`` (a scenario that stops before the real end pushes it)."""

    over: GameOver

    def run(self, game: Any) -> Outcome:
        return self.over
