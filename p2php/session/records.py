"""The plain records of a lockstep session: faults, disputes, decks and resolved steps."""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from p2php.crypto import deck
from p2php.engine.contract import Action, CardId, Seat, Slot, Step
from p2php.session.handshake import Table

if TYPE_CHECKING:  # the verified deck needs coincurve; a fast-only install never imports it
    from p2php.crypto.elgamal import Ciphertext
    from p2php.crypto.secp256k1 import Point

MAX_BACKLOG = 2048
"""Messages buffered per sender (queued, parked or relayed) before it is named for flooding."""

MAX_BACKLOG_BYTES = 32 * 1024 * 1024
"""Bytes of unprocessed messages buffered per sender before it is named for flooding."""

MAX_BAD_RELAYS = 8
"""Relay frames from one seat's connections that are not validly signed messages of the table, forgiven before
that seat is named: an honest peer relays only messages whose signatures it checked, and each such frame costs its
receiver a decode and a signature check for nothing (§3.5)."""

MAX_REASON = 300
"""Longest fault reason we keep or send: a reason may quote remote data, which must stay bounded."""


class FaultCode(StrEnum):
    """What kind of deviation a fault is: matched by tests, clients and other peers, never the words.

    The values travel in the ``code`` field of an ``abort`` body and are listed in protocol.md §6.8.
    """

    BAD_MESSAGE = "bad_message"  # malformed envelope or body, bad signature, broken chain
    EQUIVOCATION = "equivocation"  # two validly signed messages with one sender and number
    FALSE_CLAIM = "false_claim"  # a seen head or dispute nobody can back with a signed message
    OUT_OF_TURN = "out_of_turn"  # a message where none was due, or of the wrong kind
    ILLEGAL_ACTION = "illegal_action"  # an action the rules refuse
    BAD_KEY = "bad_key"  # a key list that is not the duty, or a key that fails its commitment
    BAD_PASS = "bad_pass"  # a shuffle or lock pass that is malformed or not what its secrets make
    BAD_SHOW = "bad_show"  # a private show that cannot be opened or holds wrong keys
    BAD_BEACON = "bad_beacon"  # a randomness value that breaks its hash chain
    BAD_COMMIT = "bad_commit"  # a sealed choice that does not match its commitment (or is malformed)
    BAD_CARD = "bad_card"  # a slot opened to no card or a foreign one (culprit found by the audit)
    BAD_SECRET_DECK = "bad_secret_deck"  # a secret-composition deck that breaks the deck rules
    DESYNC = "desync"  # a state hash that differs from ours
    HIDDEN_LIE = "hidden_lie"  # an action the audit's full-knowledge replay refuses
    FLOOD = "flood"  # more buffered messages than allowed
    SILENT = "silent"  # its message did not come in time although its link was up
    UNREACHABLE = "unreachable"  # its link stayed down longer than the resume timeout (not a cheat)
    REFUSED_AUDIT = "refused_audit"  # no audit message in time
    BAD_AUDIT = "bad_audit"  # malformed audit secrets
    ACCUSATION = "accusation"  # another peer's abort that our own checks do not confirm
    INTERNAL = "internal"  # our own code failed (never a culprit)
    UNFINISHED = "unfinished"  # the game stopped before its end with nobody to blame
    LEFT = "left"  # its player left the table (its own signed abort says so; not a cheat)


TIMING_CODES = frozenset({FaultCode.SILENT, FaultCode.UNREACHABLE, FaultCode.REFUSED_AUDIT})
"""Codes that a peer observes from timing alone: no transcript can prove them to a third party."""


def bounded(text: str, limit: int = MAX_REASON) -> str:
    """``text`` cut to ``limit`` characters (a reason may quote remote data)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


_SHORT = reprlib.Repr()  # keyword arguments to Repr need Python 3.12
_SHORT.maxlevel, _SHORT.maxdict, _SHORT.maxlist, _SHORT.maxtuple = 3, 6, 8, 8
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 48, 48, 48


def short(value: object) -> str:
    """A bounded ``repr`` of remote data for a reason, cheap even for a 4 MiB value.

    An exception is shown by its message (ours, though it may quote remote data).
    """
    if isinstance(value, BaseException):
        return bounded(str(value), 160)
    return bounded(_SHORT.repr(value), 120)


@dataclass(frozen=True)
class Fault:
    """A deviation from the protocol, and whom it names (``None``: the audit will tell)."""

    culprit: Seat | None
    reason: str
    at: tuple[int, int] = (0, 0)
    code: FaultCode = FaultCode.BAD_MESSAGE

    def __post_init__(self) -> None:
        if len(self.reason) > MAX_REASON:
            object.__setattr__(self, "reason", bounded(self.reason))

    @property
    def silent(self) -> bool:
        """The culprit stopped answering (so nobody waits for its audit)."""
        return self.code in (FaultCode.SILENT, FaultCode.UNREACHABLE)

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
class Verdict:
    """The outcome of the audit.

    ``code`` is a :class:`~p2php.session.records.FaultCode` value ("" when clean);
    ``seats`` lists the seats that could not be reached when ``code`` is
    ``unreachable`` (a network fault: nobody is convicted for it).
    """

    clean: bool
    culprit: Seat | None
    reason: str
    state_hash: bytes
    code: str = ""
    seats: tuple[Seat, ...] = ()

    def text(self, table: Table | None = None) -> str:
        if self.clean:
            return "clean"
        if self.culprit is None:
            return f"unattributed: {self.reason}"
        name = f" ({table.name(self.culprit)})" if table is not None else ""
        return f"seat {self.culprit}{name}: {self.reason}"


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
    # Fast: each pass's sender, kind and points (None: a pass whose points went to the next passer only, v8 §6.4)
    # and the digest its body signed in their place (None: the points are in its body).
    passes: list[tuple[Seat, str, list[bytes] | None]] = field(default_factory=list)
    digests: list[bytes | None] = field(default_factory=list)
    commits: dict[Seat, list[bytes]] = field(default_factory=dict)
    seen_faces: dict[CardId, Slot] = field(default_factory=dict)
    # A verified deck only (crypto=verified, Appendix B.10); a fast deck leaves them empty.
    y_shares: dict[Seat, Point] = field(default_factory=dict)  # each seat's checked key share Y_p
    y: Point | None = None  # the joint key, once every share is in
    cts: list[Ciphertext] = field(default_factory=list)  # the current checked deck (the last pass's outputs)
    # A reshuffle deck only (the engine's Reshuffle step, protocol.md §7.6): the old slots it holds the cards of,
    # in the step's order, and what its first pass starts from.
    inputs: tuple[Slot, ...] = ()
    input_faces: tuple[CardId | None, ...] = ()  # each input's public face at the step (None: face down)
    hidden: bool = False  # some input was face down (else it is a plain shuffle of public faces)
    start: list[bytes] = field(default_factory=list)  # fast: the input points, computed by everyone at the step
    start_cts: list[Ciphertext] = field(default_factory=list)  # verified: the input ciphertexts
    key_deck: int | None = None  # verified: the deck whose joint key (and seats' key shares) it keeps
    allowed: frozenset[CardId] | None = None  # the cards a slot may open to (None: any card of the game)

    def may_hold(self, card: CardId) -> bool:
        """Whether a slot of this deck may open to ``card`` (a secret deck: any card; the audit checks its list)."""
        if self.hidden:
            return self.allowed is None or card in self.allowed
        return self.owner is not None or card in self.cards

    @property
    def size(self) -> int:
        if self.inputs:
            return len(self.inputs)
        return self.secret_size if self.owner is not None else len(self.cards)

    def pass_order(self, players: int) -> list[Seat]:
        """Who shuffles, in order: the owner of a secret deck first (it alone knows the list)."""
        if self.owner is None:
            return list(range(players))
        return [self.owner] + [s for s in range(players) if s != self.owner]

    @property
    def current(self) -> list[bytes]:
        """The last pass's points: known after the deck's last pass, and to the seat that makes the next pass."""
        cards = self.passes[-1][2]
        if cards is None:
            raise ValueError(f"the points of deck {self.number}'s last pass went to another seat")
        return cards


@dataclass
class Event:
    """One resolved engine step, for logs and the audit replay."""

    tick: int
    step: Step
    answers: list[tuple[Seat, Action]] = field(default_factory=list)
    faces: dict[Slot, CardId] = field(default_factory=dict)
    random: bytes = b""
    lines: list[str] = field(default_factory=list)



class DeckSecretsSource(Protocol):
    """Where a lockstep gets a seat's secrets for one deck (given to it at construction).

    Real play uses :data:`p2php.session.decks.DERIVED`, the derivation from the
    seat's decks secret; the audit re-derives other seats' secrets through the same
    source.  Only :mod:`p2php.testing` supplies another (stacked decks for rule
    scenarios), so the trust core holds no test switch.
    """

    def derive(self, seat: Seat, rec: DeckRecord, decks_secret: bytes) -> deck.DeckSecrets:
        """``seat``'s secrets for deck ``rec``, from its (own or released) decks secret."""
        ...

    def pass_permutation(self, seat: Seat, rec: DeckRecord) -> list[int] | None:
        """A verified deck: the permutation ``seat``'s pass over ``rec`` applies, or ``None`` (drawn in its proof)."""
        ...
