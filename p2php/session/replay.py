"""Replaying a game's resolved steps through a fresh engine.

The lockstep session records every resolved step as an :class:`~p2php.session.lockstep.Event`
(answers to decisions, opened faces, joint random bytes).  Replaying them must
reproduce the same state hash; with every face known (after the audit) the replay
also re-checks each action against the rules with full knowledge, which is how
lies about hidden cards are caught.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import (
    CardId,
    Decide,
    Game,
    GameState,
    IllegalAction,
    Knowledge,
    Randomness,
    Reveal,
    Seat,
    Slot,
)
from p2php.errors import P2phpError

if TYPE_CHECKING:
    from p2php.session.lockstep import Event


class ReplayFault(P2phpError):
    """An action that the rules refuse once every face is known."""

    def __init__(self, seat: Seat, tick: int, reason: str) -> None:
        super().__init__(reason)
        self.seat = seat
        self.tick = tick
        self.reason = reason


def replay_events(
    game: Game,
    players: int,
    options: Mapping[str, Any],
    events: Iterable[Event],
    everything: Mapping[Slot, CardId] | None = None,
) -> GameState:
    """Rebuild the state from ``events``; with ``everything``, re-check every action."""
    state = game.new_state(players, options)
    knowledge = Knowledge(everything, {}, everything=True) if everything is not None else None
    for event in events:
        step = state.step()
        if type(step) is not type(event.step):
            raise ValueError(f"replay diverged at step {event.tick}: {step} vs {event.step}")
        if isinstance(step, Decide):
            if knowledge is not None:
                for seat, action in event.answers:
                    try:
                        state.check(seat, action, knowledge)
                    except IllegalAction as err:
                        raise ReplayFault(seat, event.tick, f"{action} was not legal: {err}") from err
            state.apply(event.answers, event.faces)
        elif isinstance(step, Reveal):
            state.advance(faces=event.faces)
        elif isinstance(step, Randomness):
            state.advance(random=event.random)
        else:
            state.advance()
    return state
