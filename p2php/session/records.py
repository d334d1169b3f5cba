"""The plain records of a lockstep session: faults, disputes, decks and resolved steps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from p2php.crypto import deck
from p2php.engine.contract import Action, CardId, Seat, Slot, Step
from p2php.session.handshake import Table

MAX_BACKLOG = 2048
"""Messages buffered per sender before it is named for flooding."""

@dataclass(frozen=True)
class Fault:
    """A deviation from the protocol, and whom it names (``None``: the audit will tell)."""

    culprit: Seat | None
    reason: str
    at: tuple[int, int] = (0, 0)
    silent: bool = False  # the culprit stopped answering (so nobody waits for its audit)

    def describe(self, table: Table | None = None) -> str:
        if self.culprit is None:
            return self.reason
        who = f"seat {self.culprit}"
        if table is not None:
            who += f" ({table.name(self.culprit)})"
        return f"{who}: {self.reason}"


class Gap(Exception):
    """A message from further ahead in its sender's chain than the next one we lack."""


class FaultError(Exception):
    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.reason)
        self.fault = fault


@dataclass(frozen=True)
class Suspicion:
    """``claimer`` says it saw message ``seq`` of ``seat`` with hash ``claimed``; we saw another."""

    seat: Seat
    seq: int
    claimer: Seat
    claimed: bytes


@dataclass
class DeckRecord:
    """The public record of one mental-poker deck."""

    number: int
    context: bytes
    first_slot: Slot
    tick: int
    cards: tuple[CardId, ...]
    owner: Seat | None = None
    secret_size: int = 0
    purpose: str = "deck"
    passes: list[tuple[Seat, str, list[bytes]]] = field(default_factory=list)
    commits: dict[Seat, list[bytes]] = field(default_factory=dict)
    seen_faces: dict[CardId, Slot] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return self.secret_size if self.owner is not None else len(self.cards)

    def pass_order(self, players: int) -> list[Seat]:
        """Who shuffles, in order: the owner of a secret deck first (it alone knows the list)."""
        if self.owner is None:
            return list(range(players))
        return [self.owner] + [s for s in range(players) if s != self.owner]

    @property
    def current(self) -> list[bytes]:
        return self.passes[-1][2]


@dataclass
class Event:
    """One resolved engine step, for logs and the audit replay."""

    tick: int
    step: Step
    answers: list[tuple[Seat, Action]] = field(default_factory=list)
    faces: dict[Slot, CardId] = field(default_factory=dict)
    random: bytes = b""
    lines: list[str] = field(default_factory=list)



Stacker = Callable[[int, DeckRecord, deck.DeckSecrets], deck.DeckSecrets]
"""TEST ONLY (see :mod:`p2php.session.stacking`): replaces a seat's derived deck secrets."""
