"""The witness of an answer: the hidden slots whose faces its legality depends on (protocol.md §6.4, §9.2).

A verified deck's audit opens no unplayed card, so a lie about a face only its liar holds (an HP Sha Minister
answering ``not_minister``) would stay unproven. When the game stopped at a decision, every seat that answered it
opens the *witness* of its own answer in its audit (its decryption shares of those slots, proven): the slots
whose face the engine's check of that answer asks for and that were not public when the decision began. Every
peer computes the same witness from the same signed answer and the state the decision began in, so a share left
out is the sender's own doing, and a face opened from every seat's proven share is the true one: an answer the
check then refuses was a lie (``hidden_lie``), and never an honest answer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, GameState, Knowledge, Seat, Slot
from p2php.session.replay import replay_events

if TYPE_CHECKING:
    from p2php.session.lockstep import Lockstep
    from p2php.session.records import Event

__all__ = ["MAX_WITNESS", "WitnessRecorder", "answer_at", "decision_start", "witness_slots"]

MAX_WITNESS = 64
"""At most this many slots in one answer's witness (an engine that asks for more opens the first 64)."""


class WitnessRecorder(Knowledge):
    """A knowledge that knows the public faces and records every other slot a check asks the face of."""

    __slots__ = ("asked",)

    def __init__(self, public: Mapping[Slot, CardId]) -> None:
        super().__init__(public, {})
        self.asked: list[Slot] = []

    def face(self, slot: Slot) -> CardId | None:
        f = self.public.get(slot)
        if f is None and slot not in self.asked:
            self.asked.append(slot)
        return f


def decision_start(ls: Lockstep, tick: int | None = None) -> tuple[GameState, dict[Slot, CardId]]:
    """The state step ``tick`` (default: the current one) began in, rebuilt from the resolved steps before it, and
    the faces public then."""
    events: Iterable[Event] = [e for e in ls.events if tick is None or e.tick < tick]
    public: dict[Slot, CardId] = {}
    for event in events:
        public.update(event.faces)
    return replay_events(ls.game, ls.players, ls.options, events), public


def witness_slots(ls: Lockstep, state: GameState, public: Mapping[Slot, CardId], seat: Seat,
                  action: Action) -> list[Slot]:
    """The hidden slots the check of ``seat``'s ``action`` asks the face of, in the order it asks (at most
    :data:`MAX_WITNESS`; a slot that is no live card of a deck is left out). Never raises."""
    recorder = WitnessRecorder(public)
    with contextlib.suppress(Exception):  # (a refused or malformed answer: what it asked first is its witness)
        state.check(seat, action, recorder)
    spent = ls._spent
    return [s for s in recorder.asked if isinstance(s, int) and not isinstance(s, bool) and s in ls.slot_deck
            and s not in spent][:MAX_WITNESS]


def answer_at(ls: Lockstep, seat: Seat, tick: int, state: GameState | None = None) -> dict[str, Any] | None:
    """``seat``'s signed answer (its ``action``) to the decision at ``tick``, if we hold it — and, with ``state``,
    only if it was signed against that state (its ``state`` field is its hash), so a check of it on ``state`` is a
    check on what its sender saw."""
    for msg in ls.processed[seat].values():
        if msg.kind == "action" and msg.at[0] == tick and isinstance(msg.body.get("action"), dict):
            if state is not None and msg.state != state.state_hash():
                return None
            action: dict[str, Any] = msg.body["action"]
            return action
    return None
