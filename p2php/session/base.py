"""What the parts of the lockstep machine share (see :class:`LockstepBase`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from p2php.crypto import deck
from p2php.crypto.identity import PublicIdentity
from p2php.engine.contract import Action, CardId, Game, GameOver, GameState, Seat, Slot, Step
from p2php.session.handshake import LocalSecrets, Table
from p2php.session.messages import Message
from p2php.session.records import DeckRecord, DeckSecretsSource, Event, Fault, Suspicion, Verdict

if TYPE_CHECKING:
    from p2php.session.verified import VerifiedDeck


class LockstepBase:
    """The state shared by the parts of :class:`~p2php.session.lockstep.Lockstep`.

    The lockstep machine is one object split by concern into mixins (decks and
    keys: :mod:`p2php.session.decks`; faults, abort and audit:
    :mod:`p2php.session.ending`); this base declares what they share.
    """

    game: Game
    table: Table
    players: int
    seat: Seat | None
    secrets: LocalSecrets | None
    private_decks: dict[str, list[CardId]]
    deck_source: DeckSecretsSource
    session_id: bytes
    crypto: str  # the deck protocol: "fast" or "verified" (p2php.session.modes)
    vdeck: VerifiedDeck | None  # the verified deck's part (None in fast mode)
    options: dict[str, Any]
    state: GameState
    points: deck.PointBook
    publics: list[PublicIdentity]
    tick: int
    phase: int
    _step: Step
    _state_hash: bytes
    inbox: dict[Seat, deque[Message]]
    last_seq: dict[Seat, int]
    last_hash: dict[Seat, bytes]
    processed: dict[Seat, dict[int, Message]]
    seen_claims: dict[tuple[Seat, int], list[tuple[bytes, Message]]]
    transcript: list[Message]
    outbox: list[Message]
    _own_points: set[tuple[int, int]]
    parked: dict[Seat, list[dict[str, Any]]]
    replaying_log: bool  # resume: our own log is being read back (what we accepted already: no flood bounds)
    record: Callable[[dict[str, Any]], None] | None
    _my_seq: int
    decks: list[DeckRecord]
    slot_deck: dict[Slot, tuple[int, int]]
    released: dict[Slot, dict[Seat, int]]
    public_faces: dict[Slot, CardId]
    private_faces: dict[Slot, CardId]
    _answers: list[tuple[Seat, Action]]
    events: list[Event]
    verdict: Verdict | None
    fault: Fault | None
    auditing: bool
    audit_bodies: dict[Seat, dict[str, Any]]
    abort_messages: list[Message]
    show_box: list[Any] | None
    fault_from: Seat | None
    waiting_at_abort: list[Seat]
    late_here: bool  # our own clock says a message of ours was overdue when another seat said we went silent
    suspicions: list[Suspicion]
    disputed: list[tuple[Seat, int]]
    forward: list[dict[str, Any]]
    _forwarded: set[bytes]
    equivocations: dict[tuple[Seat, int], list[dict[str, Any]]]
    _equivocators: set[Seat]
    refused: list[dict[str, Any]]
    suspicions_closed: bool
    later_faults: list[Fault]
    rejoin_hold: bool  # resumed, our own messages wait (§3.5): a fault found meanwhile is raised once it ends
    held_faults: list[Fault]  # faults found in the rejoin hold, in order
    released_at: dict[tuple[Slot, Seat], int]
    refused_answers: list[tuple[Seat, Action]]  # a decision's answers that failed only together (the audit decides)
    finished: bool
    result: GameOver | None

    # Implemented by the parts; declared here so each part can call the others.
    def _send(self, kind: str, body: dict[str, Any]) -> Message:
        raise NotImplementedError

    def _advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        raise NotImplementedError

    def expected(self) -> dict[Seat, str]:
        raise NotImplementedError

    def waiting_for(self) -> list[Seat]:
        raise NotImplementedError

    def poll(self) -> list[Message]:
        raise NotImplementedError

    def _pending_reveals(self) -> list[Slot]:
        raise NotImplementedError

    def _reveal_duty(self, seat: Seat) -> list[Slot]:
        raise NotImplementedError

    def _start_audit(self) -> None:
        raise NotImplementedError

    def _key_duty(self, seat: Seat) -> list[Slot]:
        raise NotImplementedError

    def _owes_keys(self, seat: Seat) -> bool:
        raise NotImplementedError

    @property
    def _keys_phase(self) -> int:
        raise NotImplementedError

    def _box_key(self, sender: Seat, viewer: Seat, seq: int) -> bytes:
        raise NotImplementedError
