"""What every UNO task shares: the base class, the typed end of a turn, and small helpers.

A turn ends with a typed result handed up the stack to the round (:class:`Next`:
whose turn it is now, or :class:`RoundOver`: somebody went out, or the round is
blocked), so no task below the round ever pushes the next turn itself and the
modules depend on each other in one direction only: round → turn → effects →
windows → moves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import Done, Outcome, Task

if TYPE_CHECKING:
    from p2php.games.uno.state import UnoState

HAND_SIZE = 7

FaceOf = Callable[[Slot], CardId | None]
"""What the validating side knows about a face (``None``: hidden from it)."""


class UnoTask(Task["UnoState"]):
    """A task of UNO.  Decision tasks validate with a face lookup, so one method serves
    :meth:`UnoState.check` (the validating seat's knowledge) and :meth:`UnoState.apply`
    (the faces the answers opened)."""

    def validate(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> None:
        """Raise :class:`IllegalAction` unless ``action`` (keys already checked) is allowed now."""
        raise not_allowed(g, action)

    def passes(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> bool:
        """A fast yes for the commonest answers (``False``: no quick answer, run the full check).

        Only an optimisation: it must never say yes to what :meth:`validate` would refuse.
        """
        return False

    def check(self, g: UnoState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        self.validate(g, seat, action, knowledge.face)

    def info(self, g: UnoState) -> dict[str, Any] | None:
        """What the pending decision is about, as plain data for UIs and bots."""
        return None


class Effect(UnoTask):
    """What a played card still has to do once the play itself is done (see :mod:`.effects`)."""

    def final(self) -> list[UnoTask]:
        """The draws this effect still makes when the round ends on it (rule 19)."""
        return []


def not_allowed(g: UnoState, action: Action) -> IllegalAction:
    step = g.step()
    prompt = step.prompt if isinstance(step, Decide) else ""
    return IllegalAction(f"a {action.get('type')!r} action is not allowed now (prompt {prompt!r})")


@dataclass(frozen=True, slots=True)
class Next:
    """A turn's result: ``seat`` plays next."""

    seat: int


@dataclass(frozen=True, slots=True)
class RoundOver:
    """A turn's result: the round ends; ``winner`` went out (``-1``: blocked) with ``effect`` pending."""

    winner: int
    effect: Effect | None


TurnEnd = Next | RoundOver

_NEXT: dict[int, Done] = {}


def turn_passes_to(seat: int) -> Done:
    """``Done(Next(seat))``, shared (outcomes and results are never changed once made)."""
    done = _NEXT.get(seat)
    if done is None:
        done = _NEXT[seat] = Done(Next(seat))
    return done


@dataclass
class NextTurn(UnoTask):
    """End the turn: ``seat`` plays next (pushed below draws that must come first)."""

    seat: int

    def run(self, g: UnoState) -> Outcome:
        return turn_passes_to(self.seat)


_DECIDES: dict[tuple[tuple[int, ...], str], Decide] = {}


def decide(seats: tuple[int, ...], prompt: str) -> Decide:
    """A shared Decide (steps are immutable; sharing them keeps the hot loop allocation-free)."""
    d = _DECIDES.get((seats, prompt))
    if d is None:
        d = _DECIDES[(seats, prompt)] = Decide(seats, prompt)
    return d
