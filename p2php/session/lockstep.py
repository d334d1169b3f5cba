"""The lockstep session: one peer's view of a game, as a sans-IO state machine.

Every peer runs the same :class:`Lockstep` over the same messages and so walks the
engine through the same steps.  At each point ``(tick, phase)`` the engine's
current step says exactly which seats must send which kind of message (see
:meth:`Lockstep.expected`); the phase completes when all of them have arrived, in
a fixed seat order, which gives every peer the same total order of events without
a leader.  A message from a seat that is not expected there, with the wrong kind,
wrong contents, a bad signature, a broken chain or a different state hash is a
:class:`Fault` that names the seat.

Like h11, the class does no I/O: feed it frames with :meth:`Lockstep.receive`,
collect what to broadcast from :meth:`Lockstep.poll`, give it the local seat's
decision with :meth:`Lockstep.act`, and tell it about silence with
:meth:`Lockstep.timeout`.  With ``secrets=None`` it is a spectator/verifier that
follows every public message (used by ``p2php verify`` and the audit).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import msgpack

from p2php import tags
from p2php.canonical import NotCanonical, digest, encode
from p2php.crypto import beacon, channel, deck
from p2php.crypto.group import InvalidPoint
from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    Game,
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
from p2php.net.framing import MAX_VALUES, VALUE_BYTES, FrameError, body_values, nested_values
from p2php.session import witness
from p2php.session.compact import CompactBook, CompactFrame, parse_compact, rebuild
from p2php.session.decks import DERIVED, DeckSteps
from p2php.session.ending import Ending
from p2php.session.handshake import LocalSecrets, Table, chain_binding
from p2php.session.messages import (
    BODY_FIELDS,
    DECK_FIELDS,
    FIXED_SIZE,
    KIND_FIELDS,
    MAX_ACTION_BYTES,
    MAX_ACTION_VALUES,
    MAX_UNKNOWN_BODY,
    BadMessage,
    Message,
    attachment,
    body_field,
    parse_message,
    past_action_bound,
    scalar_bytes,
    signing_bytes,
)
from p2php.session.modes import FAST, crypto_mode, game_options
from p2php.session.pass_digests import PASS_KINDS, pass_digest
from p2php.session.records import (
    MAX_BACKLOG,
    MAX_BACKLOG_BYTES,
    MAX_BAD_RELAYS,
    DeckRecord,
    DeckSecretsSource,
    Event,
    Fault,
    FaultCode,
    FaultError,
    Gap,
    Suspicion,
    short,
)
from p2php.session.replay import replay_events

__all__ = ["DeckRecord", "Event", "Fault", "FaultCode", "FaultError", "Lockstep", "Suspicion"]


def _size(frame: dict[str, Any]) -> int:
    """A decoded frame's size on the wire, as the flood bound counts it."""
    try:
        return len(msgpack.packb(frame, use_bin_type=True))
    except Exception:  # cannot happen for a decoded frame; count it as large
        return MAX_BACKLOG_BYTES


class _Held(Exception):
    """A message we already hold, byte for byte: a duplicate, never a fault."""


class _Unsigned(BadMessage):
    """A signature that does not verify: the connection's seat sent garbage (a relay: dropped)."""


class _SignedRefused(BadMessage):
    """A message its author signed, refused by its shape (:func:`signed_shape_fault`): a proof anyone can check."""


MAX_REFUSED_KEPT = 1
"""Signed messages refused by their shape that a peer keeps for its transcript (§9.4): the first (one frame, at
most 4 MiB: a cheater padding many cannot grow the record)."""


def too_dense(wire_bytes: bytes, values: int | None = None) -> int | None:
    """The values of a message's encoded wire form if it holds more than one for every :data:`VALUE_BYTES` bytes
    (a reader of a record could not afford it), else None. ``values``: that count, if known (:func:`wire_values`)."""
    try:
        n = body_values(wire_bytes) if values is None else values
    except FrameError:
        return len(wire_bytes)  # (a canonical encoding always walks)
    return n if VALUE_BYTES * n > len(wire_bytes) else None


_ENVELOPE_VALUES = 2 * 9 + 2
"""The values of a wire form outside its ``seen`` list and inside its body: the 9 fields' keys and values, and
``at``'s two ints."""


def wire_values(msg: Message) -> int:
    """``body_values(msg.wire_bytes)``, walking the encoded body alone: the rest of the envelope is fixed in shape
    (9 fields, ``at`` a pair, each ``seen`` head a triple: 4 values a head), so only the body's count varies. The
    whole walk was a third of the structure scans of a fast 10-peer set-up (a received message's frame is walked on
    arrival, then its wire form again here), most of it the envelope. A body the walk refuses where it sits (one
    level deep) gets the whole walk, which says the same with the same words. ``tests/test_envelope_bytes.py``
    holds the two counts equal."""
    inner = nested_values(msg.body_bytes, 1)
    return body_values(msg.wire_bytes) if inner < 0 else _ENVELOPE_VALUES + 4 * len(msg.seen) + inner


RECORD_VALUES = MAX_VALUES - 64
"""Values the ``refused`` or the ``equivocations`` field of a transcript holds at most, all its messages together: a
reader decodes each of those fields as one value under :data:`MAX_VALUES` (§9.4)."""


def record_values(wire_bytes: bytes) -> int | None:
    """The values a signed message's encoded wire form costs a transcript reader, or None if a record must not keep
    it: more than :data:`RECORD_VALUES`, or more than one value for every 4 bytes — the budget a reader has for a
    whole file (``transcript.Spans``), which a genuine record, at 7 bytes a value or more, stays within. A cheater's
    message packed with one-byte values (a frame the network accepts: 65 535 values in 65 KB), kept in ``refused``
    or ``equivocations``, made every honest record of the table unreadable by ``p2php verify`` (red-team
    rv6-verify)."""
    try:
        n = body_values(wire_bytes)
    except FrameError:
        return None
    return n if n <= RECORD_VALUES and VALUE_BYTES * n <= len(wire_bytes) else None


def check_action_size(action: Action) -> None:
    """:class:`IllegalAction` for an action past :data:`MAX_ACTION_VALUES` or :data:`MAX_ACTION_BYTES`
    (:class:`~p2php.canonical.NotCanonical` for one that has no canonical form, a float say). :meth:`Lockstep.act`
    applies it, so no seat signs an action every other seat refuses on arrival (:func:`signed_shape_fault`),
    whatever drives it: before, only the networked runner and the API's ``submit`` did, and a game's legal action
    past the bound, played through the in-memory network or the protocol testing kit, had its honest seat named
    ``bad_message`` by the others (review rv8-red)."""
    if past_action_bound(encode(action)):
        raise IllegalAction(f"an action holds at most {MAX_ACTION_VALUES} values and {MAX_ACTION_BYTES} bytes: "
                            "this one cannot be sent (a field the rules do not use?)")


def signed_shape_fault(msg: Message, players: int, crypto: str) -> str | None:
    """Why a validly signed ``msg`` is refused on arrival by its own shape (§5.1, §6.4), or None: more than
    :data:`MAX_UNKNOWN_BODY` bytes of body fields its kind does not have in the table's ``crypto`` deck
    (:data:`DECK_FIELDS`), a ``nonce``, ``digest`` or ``value`` of another size than :data:`FIXED_SIZE`'s, an
    action past :data:`MAX_ACTION_BYTES` or :data:`MAX_ACTION_VALUES`, ``seen`` heads
    that are not other seats, each once, in ascending order, or more than one value for every
    :data:`VALUE_BYTES` bytes of its wire form (:func:`too_dense`). Only the message is looked at, so a verifier
    of a record reaches the same answer."""
    known = DECK_FIELDS.get(crypto, KIND_FIELDS).get(msg.kind, BODY_FIELDS)
    unknown = {k: v for k, v in msg.body.items() if k not in known}
    if unknown and len(encode(unknown)) > MAX_UNKNOWN_BODY:
        return (f"message {msg.seq}: more than {MAX_UNKNOWN_BODY} bytes of body fields no message has of kind "
                f"{msg.kind} in a {crypto} deck")
    for field, size in FIXED_SIZE.items():
        value = msg.body.get(field)
        if field in known and field in msg.body and not (isinstance(value, bytes) and len(value) == size):
            return f"message {msg.seq}: its {field!r} must be {size} bytes"
    others = [o for o, _, _ in msg.seen]
    if others != sorted(set(others)) or any(not 0 <= o < players or o == msg.sender for o in others):
        # (§5.1; each head is kept until we process the message it names: a cheater's made-up heads grew
        # that store, and the work of every message after, without bound)
        return f"message {msg.seq}: 'seen' must list other seats, each once, in ascending order"
    dense = too_dense(msg.wire_bytes, wire_values(msg))
    if dense is not None:
        # (§5.2 check 6: a record of it, a transcript or a resume log, could not be read; rt6-dense)
        return (f"message {msg.seq}: {dense} values in {len(msg.wire_bytes)} bytes, more than one for every "
                f"{VALUE_BYTES} bytes")
    if msg.kind == "action" and "action" in msg.body and past_action_bound(encode(msg.body["action"])):
        # (the bound on our own actions, check_action_size: a key the rules do not read passes a game's check, so a
        # cheater's stray 3.5 MiB in each action was kept in every honest record; rt8-red)
        return f"message {msg.seq}: an action holds at most {MAX_ACTION_VALUES} values and {MAX_ACTION_BYTES} bytes"
    return None


class Lockstep(DeckSteps, Ending):
    """One peer's lockstep state machine (or a spectator's, with ``seat=None``).

    ``deck_source`` derives every seat's deck secrets, the audit's re-derivation of
    other seats included; real play keeps the default (:data:`~p2php.session.decks.DERIVED`).
    """

    def __init__(
        self,
        game: Game,
        table: Table,
        seat: Seat | None = None,
        secrets: LocalSecrets | None = None,
        private_decks: Mapping[str, list[CardId]] | None = None,
        deck_source: DeckSecretsSource = DERIVED,
    ) -> None:
        self.game = game
        self.table = table
        self.players = table.players
        self.seat = seat
        self.secrets = secrets
        self.deck_source = deck_source  # the real derivation; p2php.testing may stack decks
        self.session_id = table.session_id
        self.crypto = crypto_mode(table.options)  # the deck protocol (session option, never seen by the engine)
        self.options = game.parse_options(game_options(table.options))
        # The secret deck lists this seat owns, by purpose: its player's, else the game's for these options.
        self.private_decks = dict(private_decks) if private_decks else (
            dict(game.private_decks(self.options, seat)) if seat is not None else {})
        self.state = game.new_state(self.players, self.options)
        self.points = deck.PointBook(
            digest(tags.CARDS, self.session_id, game.name.encode()),
            game.universe_size(self.options),
        )
        self.publics = [table.public(s) for s in range(self.players)]
        self.vdeck = None
        if self.crypto != FAST:
            from p2php.session.verified import VerifiedDeck  # needs coincurve (the "verified" extra)

            self.vdeck = VerifiedDeck(self)
        self.tick = 0
        self.phase = 0
        self._step = self.state.step()
        self._state_hash = self.state.state_hash()
        # Message bookkeeping.
        self.inbox = {s: deque() for s in range(self.players)}
        self.last_seq = {s: -1 for s in range(self.players)}
        self.last_hash = {s: self.session_id for s in range(self.players)}
        self.processed = {s: {} for s in range(self.players)}
        self.seen_claims = {}
        self.transcript = []
        self.outbox = []
        self._own_points = set()  # points where we have sent our message
        self.parked = {}  # frames waiting for a missed earlier one
        self.record = None  # sees every accepted frame (resume log)
        self.compact = CompactBook()  # compact frames waiting, full forms asked and answered (§5.4)
        self._compact_busy = False
        self._compact_again = False
        self._my_seq = 0
        self.attachments = {}  # (seat, seq) -> a fast pass's points that travel beside it (v8, §6.4)
        self.spent_points = {}  # (seat, seq) -> another seat's pass points we took: kept for our resume log only
        # Cards.
        self.decks = []
        self.slot_deck = {}
        self.released = {}
        self.public_faces = {}
        self.private_faces = {}
        self.chain_values: dict[Seat, bytes] = {
            s: table.hellos[s]["anchor"] for s in range(self.players)
        }
        self.chain_index = 0  # joint random draws so far
        # Reveals left in each seat's current chain; a chain's last reveal announces the next one (§8).
        self.chain_left: dict[Seat, int] = {s: table.hellos[s]["chain"] for s in range(self.players)}
        self._renewals = 0  # how often our own chain was renewed
        self._chain = (
            secrets.chain(chain_binding(seat, secrets.identity.public.sign_key))
            if secrets is not None and seat is not None
            else None
        )
        # Decide bookkeeping.
        self._answers = []
        self._sealed: tuple[Action, bytes] | None = None  # our committed answer and its nonce
        self._commits: dict[Seat, bytes] = {}
        self.events = []
        # Ending.
        self.verdict = None
        self.fault = None
        self.auditing = False
        self.audit_bodies = {}
        self.abort_messages = []
        self.show_box = None  # verified: [seq, message key] of the private show we found dishonest (our abort's box)
        self.fault_from = None  # the seat whose abort told us of the fault (None: we saw it)
        self.waiting_at_abort = []
        self.late_here = False  # (set by the runner, which has the clock: see audit._judge_fault)
        self.suspicions = []
        self.disputed = []
        self.forward = []  # signed messages of other seats to pass on to everyone (see ending.py)
        self._forwarded = set()
        self.equivocations = {}  # (seat, seq) -> other signed versions than the one we hold
        self._equivocators = set()  # authors we hold a proof against (_record_equivocation)
        self._stopped: dict[Seat, str] = {}  # author -> the last of "abort", "audit" we hold of it
        self.refused = []  # signed messages refused by their shape (signed_shape_fault), kept for the transcript
        self._refused_forwarded = False  # the first of them went to every seat (§5.2)
        self.suspicions_closed = False  # the audit deadline passed: stop waiting for evidence
        self.flooded: set[Seat] = set()
        self._parked_bytes: dict[Seat, int] = {}
        self._bad_relays: dict[Seat, int] = {}  # relay frames from each seat's links that were no signed message
        self.replaying_log = False
        self._parked_at: dict[Seat, dict[int, Message]] = {}  # each parked message by its number (one copy each)
        self.released_at = {}  # (slot, seat) -> tick its key became public (the audit re-derives show duties)
        self.refused_answers = []
        self.later_faults = []  # our own findings after we stopped (see Ending._raise_fault)
        self.rejoin_hold = False
        self.held_faults = []
        self.finished = False
        self.result = None

    # ------------------------------------------------------------------ knowledge

    def knowledge(self) -> Knowledge:
        """What the local seat knows (public faces plus its private ones)."""
        return Knowledge(self.public_faces, self.private_faces)

    @property
    def step(self) -> Step:
        return self._step

    def awaiting_me(self) -> bool:
        """True when the engine waits for the local seat's decision."""
        return (
            not self.auditing
            and self.seat is not None
            and isinstance(self._step, Decide)
            and self.phase == 0
            and self._sealed is None
            and self.seat in self._step.seats
            and (self.tick, self.phase) not in self._own_points
        )

    def _load_step(self) -> None:
        """Read the engine's pending step (a new deck is recorded, the end starts the audit)."""
        self._step = self.state.step()
        self._state_hash = self.state.state_hash()
        step = self._step
        if isinstance(step, Shuffle | Reshuffle):
            self._deck_for(step)
        elif isinstance(step, Deal):
            self.check_live([slot for slot, _ in step.to], "the deal")
        elif isinstance(step, Reveal | Show):
            self.check_live(step.slots, f"the {type(step).__name__.lower()}")
        elif isinstance(step, GameOver):
            self._start_audit()

    def legal_actions(self) -> list[Action]:
        assert self.seat is not None
        return self.state.legal_actions(self.seat, self.knowledge())

    # ------------------------------------------------------------------ expectations

    @property
    def _keys_phase(self) -> int:
        """The Decide phase in which other seats release keys for opened cards."""
        return 2 if isinstance(self._step, Decide) and self._step.sealed else 1

    def expected(self) -> dict[Seat, str]:
        """Which seat must send which kind of message at the current point, in order."""
        if self.finished:
            return {}
        if self.auditing:
            return {s: "audit" for s in self.audit_required()}
        step = self._step
        n = self.players
        if isinstance(step, Shuffle | Reshuffle):
            if self.broken_step():
                return {}
            if self.vdeck is not None:
                return self.vdeck.shuffle_expected(self._deck_for(step))
            return self._fast_expected(self._deck_for(step))
        if isinstance(step, Deal | Reveal):
            return {s: "keys" for s in range(n) if self._owes_keys(s)}
        if isinstance(step, Show):
            return {s: "show" for s in range(n) if self._key_duty(s)}
        if isinstance(step, Decide):
            if step.sealed and self.phase == 0:
                return {s: "commit" for s in step.seats}
            if self.phase == self._keys_phase - 1:
                return {s: "action" for s in step.seats}
            return {s: "keys" for s in range(n) if self._owes_keys(s)}
        if isinstance(step, Randomness):
            return {s: "beacon" for s in range(n)}
        return {}  # GameOver: the audit phase takes over

    def waiting_for(self) -> list[Seat]:
        """Seats whose message for the current point has not arrived yet."""
        return [s for s in self.expected() if not self._has_current(s)]

    def _has_current(self, seat: Seat) -> bool:
        q = self.inbox[seat]
        return bool(q) and q[0].at == (self.tick, self.phase) and q[0].kind not in ("abort", "audit") \
            and not self.needs_points(q[0])  # a pass we make the next one after comes with its points (§6.4)

    # ------------------------------------------------------------------ receiving

    def receive(self, sender: Seat, frame: Any) -> None:
        """Take one frame that arrived from ``sender``'s connection.

        Checks the envelope, signature and chain at once; a bad frame becomes a
        :class:`Fault` naming ``sender`` (it never raises).  A copy of a message we
        already hold is a duplicate and changes nothing (a relay may have brought it
        first); a *different* signed message with a number we hold is equivocation.
        """
        if self.finished or sender in self.flooded:
            return
        try:
            if not isinstance(frame, dict):
                raise BadMessage("frame is not a map")
            msg = parse_message(frame)
            att = attachment(frame)
            if msg.sender != sender:
                raise BadMessage(f"message claims to be from seat {short(msg.sender)}")
            self._check_with_points(msg, att, direct=True)
        except Gap:
            # A message we missed (a link dropped) comes first; keep this one until the
            # gap is filled by a relay.  If it never is, the deadline names the sender.
            self._park(msg, frame)
            return
        except _Held:
            return
        except (BadMessage, NotCanonical) as err:
            self._raise_fault(Fault(sender, f"bad message: {err}", (self.tick, self.phase)))
            return
        except FaultError as err:
            self._raise_fault(err.fault)
            return
        self._accept(msg)
        self._check_flood(sender)

    def _check_with_points(self, msg: Message, att: bytes | None, direct: bool) -> None:
        """The envelope's checks, then the points that came beside ``msg`` (a fast pass's, §6.4): a duplicate's
        too, since a relay may have brought the message without them."""
        try:
            self._check_envelope(msg)
        except _Held:
            self.take_duplicate_points(msg, att, direct)
            raise
        self.take_points(msg, att, direct)

    def _park(self, msg: Message, frame: dict[str, Any]) -> None:
        """Keep ``frame`` (``msg``, signed by its author and numbered past a gap) until the gap is filled.

        A copy of a message already waiting is not kept again: anyone may relay a signed message, as often as
        it likes, and each copy counted against its author once got an honest seat named ``flood`` by a
        relaying cheater. (The copy that brings a pass's points replaces one without them, §6.4.) A different
        signed message with a waiting number is equivocation, proven by the two."""
        author = msg.sender
        waiting = self._parked_at.setdefault(author, {})
        held = waiting.get(msg.seq)
        if held is not None:
            if held.msg_hash != msg.msg_hash:
                try:
                    self._record_equivocation(held, msg)
                except FaultError as err:
                    self._raise_fault(err.fault)
            elif attachment(frame) is not None:
                parked = self.parked[author]
                for i, old in enumerate(parked):
                    if old.get("seq") == msg.seq and attachment(old) is None:
                        parked[i] = frame
                        self._parked_bytes[author] += _size(frame) - _size(old)
            return
        waiting[msg.seq] = msg
        self.parked.setdefault(author, []).append(frame)
        self._parked_bytes[author] = self._parked_bytes.get(author, 0) + _size(frame)
        self._check_flood(author)
        if msg.kind == "abort" and self.compact.pending.get(author):
            # The gap may be a compact frame of its author held for a tick we have not reached (a seat ahead of
            # us sent its next message before it stopped): the abort must stop us now, not once we reach that
            # tick (we may be waiting for a seat that dropped, and the author's audit deadline for us runs).
            self._retry_compact()

    def _stop_parked(self, author: Seat, seq: int) -> bool:
        """Whether an abort of ``author`` numbered after ``seq`` waits for the gap to be filled (an audit alone
        is the end of a game we will reach: its compact frames wait, as in any game)."""
        return any(m.seq > seq and m.kind == "abort" for m in self._parked_at.get(author, {}).values())

    def _check_flood(self, sender: Seat) -> None:
        """Queued, parked and relayed messages all count; after a flood nothing more is kept.

        The bound is in messages and in bytes, so one sender can make us hold at most
        :data:`MAX_BACKLOG` messages or :data:`MAX_BACKLOG_BYTES` of them, whichever comes first.
        Not while a resume reads our own log back: it holds every message of a long game at once (more than
        2 048 of one seat named that honest seat ``flood``), and its size is bounded where it is read.
        """
        if self.replaying_log:
            return
        queued = self.inbox[sender]
        count = len(queued) + len(self.parked.get(sender, ())) + len(self.compact.pending.get(sender, ()))
        held = self._parked_bytes.get(sender, 0) + self.compact.held_bytes(sender)
        if len(queued) > 16:
            held += sum(len(m.wire_bytes) for m in queued)
        if count > MAX_BACKLOG or held > MAX_BACKLOG_BYTES:
            self.flooded.add(sender)
            self.parked.pop(sender, None)
            self._parked_at.pop(sender, None)
            self.compact.pending.pop(sender, None)
            self._raise_fault(Fault(sender, "flooded us with messages", (self.tick, self.phase), FaultCode.FLOOD))

    def _accept(self, msg: Message) -> None:
        self.inbox[msg.sender].append(msg)
        if msg.kind in ("abort", "audit") and self._stopped.get(msg.sender) != "audit":
            self._stopped[msg.sender] = msg.kind  # its audit, and then nothing, may follow (_check_envelope)
        if msg.sender == self.seat:
            # Our own message coming back (resume): never send another for that point.
            self._own_points.add(msg.at)
            self._my_seq = max(self._my_seq, msg.seq + 1)
        if self.record is not None:
            self.record(self.logged_wire(msg))
        if msg.kind in ("abort", "audit") and msg.sender != self.seat:
            self._forward(msg.to_wire())  # whatever stops one honest peer must reach them all
        parked = self.parked.get(msg.sender)
        if parked:
            # The gap may be filled now: retry what waited, in order.
            waiting, self.parked[msg.sender] = parked, []
            self._parked_bytes[msg.sender] = 0
            self._parked_at[msg.sender] = {}
            for frame in sorted(waiting, key=lambda f: f.get("seq", 0) if isinstance(f.get("seq"), int) else 0):
                self.receive_relayed(frame)
        if self.compact.pending:
            self._retry_compact()  # a compact frame may have waited for this message

    def sealed_choice(self) -> Action | None:
        """Our committed, not yet revealed answer of this tick's sealed decision (``None``: none): what a resume log
        made now must keep, as :meth:`act` logged it, for a seat resumed again before it reveals it."""
        return None if self._sealed is None else self._sealed[0]

    def restore_sealed(self, tick: int, action: Action) -> None:
        """Resume: our committed, not yet revealed answer of a sealed decision."""
        self._sealed = (action, self._seal_nonce(tick))

    def _seal_nonce(self, tick: int) -> bytes:
        """Our nonce for the sealed answer of ``tick``: derived from our master secret, so a resumed seat (and one
        whose log lost the answer) opens its own commitment again with it."""
        assert self.secrets is not None
        return digest(tags.SEAL_NONCE, self.secrets.master, self.session_id, tick.to_bytes(8, "big"))

    def _recover_sealed(self) -> tuple[Action, bytes] | None:
        """Resume: our commitment to a sealed answer is held (the others handed it back) but not the answer, whose
        local record the log lost (a power cut while a slow disk's ``fsync`` ran on, §3.5): the answer is the legal
        action that opens it with our nonce, found by trying each. ``None``: no such action (nor a commitment)."""
        step = self._step
        commitment = self._commits.get(self.seat) if self.seat is not None else None
        if (commitment is None or self.secrets is None or self.replaying_log or self.phase != 1
                or not isinstance(step, Decide) or not step.sealed):
            return None
        assert self.seat is not None
        nonce = self._seal_nonce(self.tick)
        context = self._seal_context(self.seat)
        try:
            legal = self.state.legal_actions(self.seat, self.knowledge())
        except Exception:  # (a game's legal list failing here must not end the peer: we only look)
            return None
        for action in legal:
            try:
                value = encode(action)
            except NotCanonical:
                continue
            if beacon.check_commit(commitment, context, value, nonce):
                return action, nonce
        return None

    def known_seq(self, seat: Seat) -> int:
        """The highest message number of ``seat`` we hold (processed or queued), or -1."""
        q = self.inbox[seat]
        return q[-1].seq if q else self.last_seq[seat]

    def sync_seq(self, seat: Seat) -> int:
        """The number we tell ``seat`` we hold of its messages when catching up (§3.5): :meth:`known_seq`, but one
        less than a pass of its at the head of our queue whose points we still need (§6.4), so that it sends that
        pass again with them."""
        queue = self.inbox[seat]
        if queue and self.needs_points(queue[0]):
            return queue[0].seq - 1
        return self.known_seq(seat)

    def messages_after(self, seat: Seat, seq: int, to: Seat | None = None) -> list[dict[str, Any]]:
        """``seat``'s messages numbered above ``seq`` that we hold, in order (for catching up ``to``)."""
        held = [m for q, m in sorted(self.processed[seat].items()) if q > seq]
        held += [m for m in self.inbox[seat] if m.seq > seq]
        return [self.wire_for(m, to) for m in held]

    def relayed_by(self, link: Seat, frame: Any) -> None:
        """Take a ``{"relay": …}`` frame that arrived on ``link``'s connection.

        The message is judged as :meth:`receive_relayed` judges it, its faults naming its author. A frame that is not
        a validly signed message of this table is dropped; but an honest peer relays only messages whose signatures
        it checked, so more than :data:`MAX_BAD_RELAYS` of them name the seat whose connection brought them (each
        costs us a decode and a signature check: without a bound, a cheater's forged relays spend our CPU for good).
        """
        if self.receive_relayed(frame) or self.finished or link in self.flooded:
            return
        count = self._bad_relays.get(link, 0) + 1
        self._bad_relays[link] = count
        if count > MAX_BAD_RELAYS:
            self._raise_fault(Fault(link, f"relayed {count} frames that are not signed messages of this table",
                                    (self.tick, self.phase)))

    def receive_relayed(self, frame: Any) -> bool:
        """Take a message relayed by another peer while catching up (any author).

        Its signature proves its author, so every check names the author, as for a
        direct message; one we already hold is a duplicate (ignored), a different
        one with a held number is equivocation (proven by the two signed copies).
        Returns False for a frame that is not a validly signed message of this table.
        """
        if self.finished or not isinstance(frame, dict):
            return False
        try:
            msg = parse_message(frame)
            att = attachment(frame)
        except BadMessage:
            return False  # not a message at all: nobody's signature, nothing to blame on an author
        try:
            if not 0 <= msg.sender < self.players:
                return False
            if msg.sender in self.flooded:
                return True
            self._check_with_points(msg, att, direct=False)
        except Gap:
            self._park(msg, frame)
            return True
        except _Held:
            return True
        except _Unsigned:
            return False
        except (BadMessage, NotCanonical) as err:
            self._raise_fault(Fault(msg.sender, f"bad message: {err}", (self.tick, self.phase)))
            return True
        except FaultError as err:
            self._raise_fault(err.fault)
            return True
        self._accept(msg)
        self._check_flood(msg.sender)
        return True

    # ------------------------------------------------------------------ the compact wire form (§5.4)

    def receive_compact(self, sender: Seat, raw: Any) -> None:
        """Take a compact frame (the value of ``{"c": …}``) from ``sender``'s connection.

        A malformed one names ``sender`` (``bad_message``, as any malformed direct frame).  Otherwise it is
        rebuilt from our copies and judged as the full message; one that cannot be rebuilt yet waits for
        the messages it names, and one whose rebuilt signature fails is never judged: we ask ``sender`` for
        its full form (:attr:`CompactBook.wants`).
        """
        if self.finished or sender in self.flooded:
            return
        try:
            frame = parse_compact(raw, self.players, sender)
        except BadMessage as err:
            self._raise_fault(Fault(sender, f"bad message: {err}", (self.tick, self.phase)))
            return
        if (sender, frame.seq) in self.compact.asked and frame.seq > self.known_seq(sender):
            return  # its full form is on the way: that one is judged
        if not self._try_compact(sender, frame):
            self._hold_compact(sender, frame)

    def _hold_compact(self, sender: Seat, frame: CompactFrame) -> None:
        try:
            size = len(msgpack.packb(frame.body, use_bin_type=True)) + 128
        except Exception:  # cannot happen for a decoded frame; count it as large
            size = MAX_BACKLOG_BYTES
        if not self.compact.hold(sender, replace(frame, size=size)):
            self.flooded.add(sender)
            self.compact.pending.pop(sender, None)
            self._raise_fault(Fault(sender, "flooded us with compact messages naming messages we never got",
                                    (self.tick, self.phase), FaultCode.FLOOD))
            return
        self._check_flood(sender)

    def held_copy(self, seat: Seat, seq: int) -> Message | None:
        """Our copy of ``seat``'s message ``seq`` (processed or queued), or None: what a compact frame names."""
        if not 0 <= seat < self.players:
            return None
        done = self.processed[seat].get(seq)
        if done is not None:
            return done
        queue, first = self.inbox[seat], self.last_seq[seat] + 1
        return queue[seq - first] if first <= seq < first + len(queue) else None

    def _try_compact(self, sender: Seat, frame: CompactFrame) -> bool:
        """Rebuild and judge ``frame``; False if it must wait for a message it names."""
        if self.finished or sender in self.flooded:
            return True
        copy = self.held_copy(sender, frame.seq)
        if copy is not None:
            state: bytes | None = copy.state  # a copy of one we hold (a relay came first): a duplicate, or proof
        elif frame.at[0] > self.tick and not self.auditing:
            if self._stop_parked(sender, frame.seq):
                self._want_full(sender, frame.seq)  # its full form carries its state: take it now (see _park)
                return True
            return False  # its tick has not come: our state hash for it is not known yet
        else:
            state = self._state_hash if frame.at[0] == self.tick and not self.auditing else None
        msg = rebuild(frame, sender, self.session_id, self.held_copy, state)
        if msg is None:
            if not (self.auditing or frame.at <= (self.tick, self.phase)):
                return False  # what it names is still on its way (it can only name earlier points)
            self._want_full(sender, frame.seq)
            return True
        try:
            good = self.publics[sender].verify(msg.sig, msg.signing_digest(self.session_id))
        except NotCanonical:
            good = False
        if not good:
            self._want_full(sender, frame.seq)  # some copy differs, or garbage: only the full form is judged
            return True
        try:
            self._check_envelope(msg, verified=True)
        except Gap:
            self._park(msg, msg.to_wire())
            return True
        except _Held:
            return True
        except (BadMessage, NotCanonical) as err:
            self._raise_fault(Fault(sender, f"bad message: {err}", (self.tick, self.phase)))
            return True
        except FaultError as err:
            self._raise_fault(err.fault)
            return True
        self._accept(msg)
        self._check_flood(sender)
        return True

    def _want_full(self, sender: Seat, seq: int) -> None:
        if not self.compact.want(sender, seq, self.known_seq(sender)):
            self.flooded.add(sender)
            self._raise_fault(Fault(sender, "sent more compact messages than it backed with full forms",
                                    (self.tick, self.phase), FaultCode.FLOOD))

    def _retry_compact(self) -> None:
        """Try every waiting compact frame again (something they name may have arrived, or its point come)."""
        if self._compact_busy:
            self._compact_again = True
            return
        self._compact_busy = True
        try:
            self._compact_again = True
            while self._compact_again and self.compact.pending:
                self._compact_again = False
                for frames in self.compact.take():
                    waiting = False
                    for sender, frame in frames:  # a later frame needs this one's hash for its 'prev'
                        if waiting or not self._try_compact(sender, frame):
                            waiting = True
                            self.compact.hold(sender, frame)
        finally:
            self._compact_busy = False

    def answer_want(self, requester: Seat, seq: Any) -> dict[str, Any] | None:
        """Our full message ``seq`` for a peer that could not rebuild its compact form, or None.

        Bounded: each number once per requester; a peer that keeps asking for what we do not answer is named.
        """
        if self.seat is None or not 0 <= requester < self.players or requester in self.flooded:
            return None  # (after our verdict too: a peer in its audit may still need our last messages)
        me = self.seat

        def own(q: int) -> Message | None:
            held = self._held(me, q)
            return held[0] if held else None

        got = self.compact.answer(requester, seq, own)
        if got is False:
            if requester not in self.flooded:
                self.flooded.add(requester)
                self._raise_fault(Fault(requester, "asked for our full messages more often than it may",
                                        (self.tick, self.phase), FaultCode.FLOOD))
            return None
        return self.wire_for(got, requester) if isinstance(got, Message) else None

    def _check_envelope(self, msg: Message, verified: bool = False) -> None:
        s = msg.sender
        expected_seq = self.last_seq[s] + 1 + len(self.inbox[s])
        if msg.seq < expected_seq:
            held = self._held(s, msg.seq)
            if held and held[0].msg_hash == msg.msg_hash:
                raise _Held()  # a copy of one we hold, whose signature we checked: relayed copies cost no more
        if not verified and not self.publics[s].verify(msg.sig, msg.signing_digest(self.session_id)):
            raise _Unsigned(f"message {msg.seq}: signature does not verify")
        shape = signed_shape_fault(msg, self.players, self.crypto)
        if shape is not None:
            if (len(self.refused) < MAX_REFUSED_KEPT and msg.to_wire() not in self.refused
                    and record_values(msg.wire_bytes) is not None):  # (one a reader of the record can afford)
                self.refused.append(msg.to_wire())  # its signature verified: the proof, for our transcript (§9.4)
            if not self._refused_forwarded and body_values(msg.wire_bytes) + 2 <= MAX_VALUES:
                # The first one goes to every seat as a relay (§5.2): each refuses it by the same check and names
                # its author. A version too dense for a record, sent to one seat alone while the others got
                # another (an equivocation no record can prove), left them naming nobody (rt6-dense).
                self._refused_forwarded = True
                self._forward(msg.to_wire())
            raise _SignedRefused(shape)
        if msg.seq < expected_seq:  # (a copy of what we hold returned above)
            held = self._held(s, msg.seq)
            if not held:
                raise _Held()
            self._record_equivocation(held[0], msg)
        stopped = self._stopped.get(s)
        if self.seat is not None and self.auditing and (stopped == "audit" or (stopped == "abort"
                                                                              and msg.kind != "audit")):
            # A seat that stopped sends its audit and then nothing (§6.8). Before, each further message of a seat
            # that had stopped (aborts numbered on, each with a 3 MiB reason) was taken in the audit round, kept in
            # the transcript and forwarded to every seat: 90 made an honest record 270 MiB, which p2php verify
            # refuses (over MAX_FILE), and cost every other seat as much (red-team rt7-newcode). (A seat's rule, in
            # its audit round: before, the author's first abort stops us, and what queues behind it is bounded by
            # the flood rule; a verifier still replays what a file holds, bounded by its size, and reports it; a
            # spectator gets only what the seats took.)
            raise FaultError(Fault(s, f"sent message {msg.seq} ({short(msg.kind)}) after its own {stopped}",
                                   (self.tick, self.phase), FaultCode.OUT_OF_TURN))
        if msg.seq != expected_seq:
            raise Gap()
        prev = self.inbox[s][-1].msg_hash if self.inbox[s] else self.last_hash[s]
        if msg.prev != prev:
            # The sender signed another message numbered seq - 1 than the one we got:
            # our copy goes out as evidence, whoever holds the other proves equivocation.
            self.disputed.append((s, msg.seq - 1))
            raise FaultError(Fault(s, f"message {msg.seq}: 'prev' does not chain to its previous message",
                                   (self.tick, self.phase), FaultCode.EQUIVOCATION))
        if msg.at < (self.tick, self.phase) and msg.kind not in ("abort", "audit"):
            raise FaultError(Fault(
                s, f"{msg.kind} message for step {msg.at[0]}.{msg.at[1]} arrived after that step closed",
                msg.at, FaultCode.OUT_OF_TURN))

    def _record_equivocation(self, held: Message, other: Message) -> None:
        """Two signed versions of one message: keep and forward both, name the author.

        One proof an author is enough: once we hold one, no other version of its messages is kept or forwarded
        (its other disputes need no evidence: :meth:`open_disputes`). Before, every version was kept and forwarded
        to every seat: a cheater re-signing one message with a 3 MiB bin 90 times made an honest seat hold and
        forward 270 MiB, and wrote them into its transcript's ``equivocations`` field, past what ``p2php verify``
        reads (``MAX_FILE``; red-team rt7-newcode)."""
        if held.sender not in self._equivocators:
            self._equivocators.add(held.sender)
            copies = self.equivocations.setdefault((held.sender, held.seq), [])
            if other.to_wire() not in copies:
                copies.append(other.to_wire())
            self._forward(held.to_wire())
            self._forward(other.to_wire())
        raise FaultError(Fault(held.sender, f"equivocation: signed two different messages numbered {held.seq}",
                               (0, held.seq), FaultCode.EQUIVOCATION))

    # ------------------------------------------------------------------ acting

    def act(self, action: Action) -> None:
        """Send the local seat's answer to the current decision."""
        if not self.awaiting_me():
            raise IllegalAction("it is not this seat's turn to act")
        assert self.seat is not None and self.secrets is not None
        check_action_size(action)
        self.state.check(self.seat, action, self.knowledge())
        if isinstance(self._step, Decide) and self._step.sealed:
            nonce = self._seal_nonce(self.tick)
            self._sealed = (action, nonce)
            if self.record is not None:
                self.record({"local": "sealed", "tick": self.tick, "action": action})
            self._send("commit", {"commit": beacon.commit(self._seal_context(self.seat), encode(action), nonce)})
            return
        self._send("action", self._action_body(action))

    def _action_body(self, action: Action) -> dict[str, Any]:
        assert self.seat is not None
        if self.vdeck is not None:
            own = [slot for slot in self.state.reveals(self.seat, action) if self._holds(self.seat, slot)]
            return {"action": action, **self.vdeck.own_items(list(dict.fromkeys(own)))}
        keys = [
            [slot, scalar_bytes(self._my_key(slot))]
            for slot in self.state.reveals(self.seat, action)
            if self._holds(self.seat, slot)
        ]
        return {"action": action, "keys": keys}

    def _seal_context(self, seat: Seat) -> bytes:
        return digest(tags.SEAL, self.session_id, self.tick.to_bytes(8, "big"), seat.to_bytes(2, "big"))

    def _send(self, kind: str, body: dict[str, Any]) -> Message:
        assert self.secrets is not None and self.seat is not None
        att = None
        step = self._step
        if kind in PASS_KINDS and self.vdeck is None and isinstance(step, Shuffle | Reshuffle) \
                and isinstance(body.get("cards"), bytes) \
                and not self.points_in_body(self._deck_for(step), self.phase):
            # v8 (§6.4): the points go beside the message, to the next passer only; the body signs their digest.
            att = body["cards"]
            body = {**{k: v for k, v in body.items() if k != "cards"}, "digest": pass_digest(att)}
        fields = {
            "from": self.seat,
            "seq": self._my_seq,
            "prev": self._my_prev(),
            "at": [self.tick, self.phase],
            "state": self._state_hash,
            "seen": [
                [s, self.last_seq[s], self.last_hash[s]]
                for s in range(self.players)
                if s != self.seat and self.last_seq[s] >= 0
            ],
            "kind": kind,
            "body": body,
        }
        sig = self.secrets.identity.sign(signing_bytes(self.session_id, fields))
        msg = parse_message({**fields, "sig": sig})
        if att is not None:
            self.attachments[(msg.sender, msg.seq)] = att
        self._my_seq += 1
        self._own_points.add(msg.at)
        self.outbox.append(msg)
        self.inbox[self.seat].append(msg)
        if self.record is not None:
            self.record(self.logged_wire(msg))
        return msg

    def _my_prev(self) -> bytes:
        assert self.seat is not None
        q = self.inbox[self.seat]
        return q[-1].msg_hash if q else self.last_hash[self.seat]

    # ------------------------------------------------------------------ the loop

    def poll(self) -> list[Message]:
        """Advance as far as the messages at hand allow; return messages to broadcast."""
        while not self.finished:
            if self.compact.pending:
                self._retry_compact()  # a frame whose point has come is rebuilt now, or its full form asked
                if self.finished:
                    break
            if self.auditing:
                try:
                    self._audit_round()
                except Exception as err:  # never retry a failing audit forever: end with a verdict
                    self._finish_failed(err)
                break
            try:
                if self._produce_own():
                    continue
                if self._phase_ready():
                    self._complete_phase()
                    continue
                # Stuck: if a peer aborted, nothing more will come from it.  (We first
                # processed everything we could, so our own checks ran on it all.)
                if not self._aborted_by_peer():
                    break
            except FaultError as err:
                self._raise_fault(err.fault)
            except BadMessage as err:
                self._raise_fault(Fault(err.sender, f"bad message: {err}", (self.tick, self.phase)))
            except Exception as err:  # an honest peer never crashes; the audit sorts it out
                self._raise_fault(Fault(None, f"could not process step {self.tick}.{self.phase}: "
                                        f"{type(err).__name__}: {short(err)}", (self.tick, self.phase),
                                        FaultCode.INTERNAL))
        out, self.outbox = self.outbox, []
        return out

    def _aborted_by_peer(self) -> bool:
        """A peer that aborted, or that began its audit while we still wait for it, stopped: so do we.

        An audit at the head of an awaited seat's queue means that seat will never send
        what we wait for (its messages come in chain order), so it stopped — never
        "silent".  An audit from a seat we are not waiting for is just the end of the
        game arriving early, behind messages still in flight from others.
        """
        waiting: set[Seat] | None = None  # worked out only when some queue starts with an audit
        for seat, queue in self.inbox.items():
            if not queue:
                continue
            if seat == self.seat:
                # Our own abort is in our queue only when our resume log is read back: it stopped us then, so it
                # stops us now (else a step that never completes, the set-up's deckkey of a seat that died,
                # held it and every later message of ours, and we came back before our audit, never to send it).
                own = next((m for m in queue if m.kind == "abort"), None)
                if own is not None:
                    if self.fault is None:
                        # ... with the fault it carried, our own finding as it was (not the first abort in seat
                        # order, nor an accusation of ours to confirm: review 5)
                        self.fault = self._own_abort_fault(own)
                    self._start_audit()
                    return True
                continue
            if queue[0].kind == "audit" and waiting is None:
                waiting = set(self.waiting_for())
            if any(m.kind == "abort" for m in queue) or (
                    waiting is not None and seat in waiting and queue[0].kind == "audit"):
                self._start_audit()
                return True
        return False

    def _own_abort_fault(self, own: Message) -> Fault:
        """The fault our own abort (read back from our log) carried, as we found it."""
        body = own.body
        culprit, reason, code = body.get("culprit"), body.get("reason"), body.get("code")
        at: Any = body.get("at")
        try:
            parsed = FaultCode(str(code))
        except ValueError:
            parsed = FaultCode.BAD_MESSAGE
        ok_at = isinstance(at, list) and len(at) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                             for x in at)
        return Fault(culprit if isinstance(culprit, int) and not isinstance(culprit, bool)
                     and 0 <= culprit < self.players else None,
                     reason if isinstance(reason, str) else "", (at[0], at[1]) if ok_at else own.at, parsed)

    def _produce_own(self) -> bool:
        """Send the local seat's message for this point, if one is due and automatic."""
        if self.seat is None or self.secrets is None or (self.tick, self.phase) in self._own_points:
            return False
        kind = self.expected().get(self.seat)
        if kind is None or kind == "commit":
            return False
        if kind == "action":
            if self._sealed is None:
                self._sealed = self._recover_sealed()
            if self._sealed is None:
                return False  # the local decider must answer first
            action, nonce = self._sealed
            self._send("action", {**self._action_body(action), "nonce": nonce})
            return True
        self._send(kind, self._own_body(kind))
        return True

    def _own_body(self, kind: str) -> dict[str, Any]:
        assert self.seat is not None and self.secrets is not None
        step = self._step
        if self.vdeck is not None and kind in ("deckkey", "pass"):
            assert isinstance(step, Shuffle | Reshuffle)
            return self.vdeck.own_shuffle_body(self._deck_for(step), kind)
        if self.vdeck is not None and kind in ("keys", "show"):
            items = self.vdeck.own_items(self._key_duty(self.seat))
            if kind == "keys":
                return items
            assert isinstance(step, Show)
            key = self._box_key(self.seat, step.viewer, self._my_seq)
            return {"to": step.viewer, "box": channel.seal(key, encode(items), self.session_id)}
        if kind in ("shuffle", "lock"):
            assert isinstance(step, Shuffle | Reshuffle)
            rec = self._deck_for(step)
            secrets = self._deck_secrets(rec.number)
            source = rec.current if rec.passes else self._first_input(rec)
            try:
                # Each list goes packed, one bin for the whole deck (§6.4).
                if rec.hidden and self.phase < self.players:  # a reshuffle's rekey round (§7.6)
                    return {"cards": deck.pack(deck.rekey_pass(secrets, source, self._old_keys(rec)))}
                if kind == "shuffle":
                    return {"cards": deck.pack(deck.shuffle_pass(secrets, source))}
                lock = deck.reshuffle_lock_pass if rec.hidden else deck.lock_pass
                return {
                    "cards": deck.pack(lock(secrets, source)),
                    "commits": deck.pack(deck.key_commitments(secrets, rec.context, self.seat)),
                }
            except InvalidPoint as err:
                culprit = rec.passes[-1][0] if rec.passes else None
                raise FaultError(
                    Fault(culprit, f"its pass of deck {rec.number} holds a point that is not on the curve: {err}",
                          (self.tick, self.phase), FaultCode.BAD_PASS)
                ) from err
        if kind == "keys":
            return {"keys": [[s, scalar_bytes(self._my_key(s))] for s in self._key_duty(self.seat)]}
        if kind == "show":
            assert isinstance(step, Show)
            payload = encode([[s, scalar_bytes(self._my_key(s))] for s in self._key_duty(self.seat)])
            key = self._box_key(self.seat, step.viewer, self._my_seq)
            return {"to": step.viewer, "box": channel.seal(key, payload, self.session_id)}
        if kind == "beacon":
            return self._beacon_body()
        raise AssertionError(kind)

    def _phase_ready(self) -> bool:
        self._check_stale()
        exp = self.expected()
        if self.auditing:
            return not exp
        if not exp:
            return True
        return all(self._has_current(s) for s in exp)

    def _check_stale(self) -> None:
        """A message for a point that has passed was never due: name its sender."""
        now = (self.tick, self.phase)
        for seat, queue in self.inbox.items():
            if queue and queue[0].at < now and queue[0].kind not in ("abort", "audit"):
                msg = queue[0]
                raise FaultError(
                    Fault(seat, f"sent an {msg.kind!r} message at step {msg.at[0]}.{msg.at[1]} "
                          "where none was due", msg.at, FaultCode.OUT_OF_TURN)
                )

    # ------------------------------------------------------------------ completing phases

    def _take(self, seat: Seat, kind: str) -> Message:
        msg = self.inbox[seat].popleft()
        if msg.kind != kind:
            raise FaultError(
                Fault(seat, f"sent a {msg.kind!r} message where a {kind!r} was due", msg.at, FaultCode.OUT_OF_TURN)
            )
        self._consume(msg)
        if msg.state != self._state_hash:
            raise FaultError(
                Fault(seat, f"state hash differs from ours at step {self.tick} (desync)", msg.at, FaultCode.DESYNC)
            )
        return msg

    def _consume(self, msg: Message) -> None:
        s = msg.sender
        self.last_seq[s] = msg.seq
        self.last_hash[s] = msg.msg_hash
        self.processed[s][msg.seq] = msg
        self.transcript.append(msg)
        self._compare_claims(s, msg.seq)  # what others said they saw as this message
        processed = self.processed
        for other, seq, h in msg.seen:
            mine = processed[other].get(seq)
            if mine is None:  # not processed yet: the claim waits for it
                self.seen_claims.setdefault((other, seq), []).append((h, msg))
            elif h != mine.msg_hash:  # (no claim about a processed message waits: each was compared then)
                self._claim_differs(other, seq, msg, h)

    def _compare_claims(self, other: Seat, seq: int) -> None:
        """Compare the claims about message ``seq`` of ``other`` with our copy, once we processed it (§5.3).

        Claims wait, by message, for the message they name: only the ones a newly processed message or a new
        claim touches are compared (a scan of every waiting claim at every message grew with the game)."""
        mine = self.processed[other].get(seq)
        if mine is None:
            return
        for h, claimer in self.seen_claims.pop((other, seq), ()):
            if h != mine.msg_hash:
                self._claim_differs(other, seq, claimer, h)

    def _claim_differs(self, other: Seat, seq: int, claimer: Message, h: bytes) -> None:
        """``claimer`` saw ``h`` as ``other``'s message ``seq``, and ours differs: either ``other`` signed two
        messages numbered ``seq`` or the claimer lies about what it saw; the signed copies released with the abort
        and the audit decide which (see p2php.session.audit)."""
        self.suspicions.append(Suspicion(other, seq, claimer.sender, h))
        raise FaultError(
            Fault(
                None,
                f"equivocation: seat {claimer.sender} saw a different message {seq} from seat {other} than we did",
                (self.tick, self.phase),
                FaultCode.EQUIVOCATION,
            )
        )

    def _complete_phase(self) -> None:
        step = self._step
        exp = self.expected()
        msgs = [(s, self._take(s, kind)) for s, kind in exp.items()]
        if isinstance(step, Shuffle | Reshuffle):
            if self.vdeck is not None:
                self._on_verified_shuffle(step, msgs)
            else:
                self._on_pass(step, msgs[0][1])
        elif isinstance(step, Deal):
            self._on_keys(msgs)
            self._open_deal(step)
            self._advance()
        elif isinstance(step, Reveal):
            self._on_keys(msgs)
            faces = self._open_public(step.slots)
            self._advance(faces=faces)
        elif isinstance(step, Decide):
            self._on_decide(step, msgs)
        elif isinstance(step, Show):
            self._on_show(step, msgs)
            self._advance()
        elif isinstance(step, Randomness):
            self._on_beacon(msgs)

    def _advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        step = self._step
        try:
            self.state.advance(faces=faces, random=random)
        except IllegalAction as err:
            raise FaultError(Fault(None, f"engine refused step {self.tick}: {short(err)}", (self.tick, 0),
                                   FaultCode.INTERNAL)) from err
        self.events.append(Event(self.tick, step, faces=dict(faces or {}), random=random))
        self._next_tick()

    def _next_tick(self) -> None:
        self.tick += 1
        self.phase = 0
        self._answers = []
        self._sealed = None
        self._commits = {}
        self._load_step()

    # ------------------------------------------------------------------ shuffles

    # ------------------------------------------------------------------ keys and opening

    # ------------------------------------------------------------------ decisions

    def _on_decide(self, step: Decide, msgs: list[tuple[Seat, Message]]) -> None:
        if step.sealed and self.phase == 0:
            self._commits = {}
            for seat, msg in msgs:
                commit = body_field(msg, "commit", bytes)
                if len(commit) != 32:
                    raise FaultError(Fault(seat, "a sealed choice's commitment must be 32 bytes", msg.at,
                                           FaultCode.BAD_COMMIT))
                self._commits[seat] = commit
            self.phase = 1
            return
        if self.phase == self._keys_phase - 1:
            knowledge = self.knowledge()
            self._answers = []
            for seat, msg in msgs:
                action = body_field(msg, "action", dict)
                if step.sealed:
                    nonce = body_field(msg, "nonce", bytes)
                    try:
                        opened = beacon.check_commit(self._commits[seat], self._seal_context(seat), encode(action),
                                                     nonce)
                    except NotCanonical:
                        opened = False
                    if not opened:
                        raise FaultError(Fault(seat, "revealed a choice that does not match its commitment", msg.at,
                                               FaultCode.BAD_COMMIT))
                try:
                    self.state.check(seat, action, knowledge)
                except IllegalAction as err:
                    self.show_box = self._lie_box(seat, action)
                    raise FaultError(Fault(seat, f"illegal action {short(action)}: {short(err)}", msg.at,
                                           FaultCode.ILLEGAL_ACTION)) from err
                except Exception as err:  # malformed action data must not crash us
                    raise FaultError(Fault(seat, f"malformed action {short(action)}: {short(err)}", msg.at,
                                           FaultCode.ILLEGAL_ACTION)) from err
                self._answers.append((seat, action))
            for seat, msg in msgs:
                own: list[Slot] = []
                for a_seat, a in self._answers:
                    if a_seat == seat:
                        own += [s for s in self._safe_reveals(seat, a, msg) if self._holds(seat, s)
                                and s not in own]
                self._accept_release(seat, msg, own)
            if any(self._reveal_duty(s) for s in range(self.players)):
                self.phase = self._keys_phase
                return
        else:
            self._on_keys(msgs)
        faces = self._open_public(self._pending_reveals())
        answers = self._answers
        lines = [self._describe(seat, action, faces) for seat, action in answers]
        try:
            self.state.apply(answers, faces)
        except IllegalAction as err:
            culprit = self._first_bad_answer(answers, faces)
            if culprit is None:  # a lie about a face only its liar saw: the audit's full-knowledge check names it
                self.refused_answers = list(answers)
            raise FaultError(Fault(culprit, f"illegal play: {short(err)}", (self.tick, self.phase),
                                   FaultCode.ILLEGAL_ACTION)) from err
        self.events.append(Event(self.tick, step, answers=list(answers), faces=faces, lines=lines))
        self._next_tick()

    def _lie_box(self, seat: Seat, action: Action) -> list[Any] | None:
        """Verified: ``[seq, message key]`` of ``seat``'s private show to us that told us a face its refused
        ``action``'s check needs (the latest such), for our abort (§6.4, v9): with it every peer opens that box,
        whose proven shares open those cards, and checks the action again itself. ``None``: no such show."""
        if self.vdeck is None or self.seat is None:
            return None
        try:
            needed = set(witness.witness_slots(self, self.state, self.public_faces, seat, action))
        except Exception:  # (never crash on a cheater's action)
            return None
        ticks = {e.tick for e in self.events if isinstance(e.step, Show) and e.step.viewer == self.seat
                 and needed & set(e.step.slots)}
        shows = [m for m in self.processed[seat].values() if m.kind == "show" and m.at[0] in ticks
                 and m.body.get("to") == self.seat]
        if not shows:
            return None
        show = max(shows, key=lambda m: m.seq)
        return [show.seq, self._box_key(seat, self.seat, show.seq)]

    def _safe_reveals(self, seat: Seat, action: Action, msg: Message) -> list[Slot]:
        try:
            slots = list(self.state.reveals(seat, action))
        except Exception as err:  # a checked action should not get here, but never crash
            raise FaultError(Fault(seat, f"action {short(action)} cannot be resolved: {short(err)}", msg.at,
                                   FaultCode.ILLEGAL_ACTION)) from err
        for slot in slots:
            if slot not in self.slot_deck or slot in self._spent:
                raise FaultError(Fault(seat, f"action opens slot {short(slot)}, which is no card", msg.at,
                                       FaultCode.ILLEGAL_ACTION))
        return slots

    def _describe(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
        known = {**self.private_faces, **self.public_faces, **faces}
        try:
            return self.state.describe(seat, action, known)
        except Exception:  # a description must never stop the game
            return f"seat {seat}: {action}"

    def _first_bad_answer(self, answers: list[tuple[Seat, Action]], faces: dict[Slot, CardId]) -> Seat | None:
        if len(answers) == 1:
            return answers[0][0]
        # The engine applies answers in order; a failed apply may have changed the
        # state half way, so rebuild it from the event log and try each proper prefix.
        for k in range(1, len(answers)):
            trial = replay_events(self.game, self.players, self.options, self.events)
            try:
                trial.apply(answers[:k], faces)
            except IllegalAction:
                return answers[k - 1][0]
        # Every proper prefix passes. The last answer is to blame only if it fails on its own, checked with every
        # face the answers opened; else the answers fail only together (a lie about a face nobody else sees, say
        # a Minister answering "not_minister"): nobody can be named, and never the last seat for being last.
        trial = replay_events(self.game, self.players, self.options, self.events)
        seat, action = answers[-1]
        try:
            trial.check(seat, action, Knowledge({**self.public_faces, **faces}))
        except IllegalAction:
            return seat
        return None

    # ------------------------------------------------------------------ show, beacon

    def _beacon_body(self) -> dict[str, Any]:
        """Our next chain value; the last value of a chain carries the anchor of the next (§8)."""
        assert self._chain is not None and self.seat is not None
        left = self.chain_left[self.seat]
        body: dict[str, Any] = {"value": self._chain.value(self._chain.length - left + 1)}
        if left == 1:
            assert self.secrets is not None
            binding = chain_binding(self.seat, self.secrets.identity.public.sign_key)
            body["next"] = self.secrets.chain(binding, self._renewals + 1).anchor
        return body

    def _on_beacon(self, msgs: list[tuple[Seat, Message]]) -> None:
        values, heads = [], []
        for seat, msg in msgs:
            value = body_field(msg, "value", bytes)
            binding = chain_binding(seat, self.publics[seat].sign_key)
            if not beacon.verify_next(binding, self.chain_values[seat], value):
                raise FaultError(Fault(seat, "revealed a randomness value that breaks its hash chain", msg.at,
                                       FaultCode.BAD_BEACON))
            values.append(value)
            heads.append(self._next_head(seat, msg, value))
        for (seat, _), head in zip(msgs, heads, strict=True):
            self._move_chain(seat, head)
        self.chain_index += 1
        self._advance(random=beacon.combine(values, encode([self.tick])))

    def _next_head(self, seat: Seat, msg: Message, value: bytes) -> bytes:
        """What the next reveal of ``seat`` must hash to: this value, or the anchor its chain's last value names."""
        last = self.chain_left[seat] == 1
        announced = msg.body.get("next")
        if not last:
            if "next" in msg.body:
                raise FaultError(Fault(seat, "announced a new hash chain before its chain ran out", msg.at,
                                       FaultCode.BAD_BEACON))
            return value
        if not (isinstance(announced, bytes) and len(announced) == 32):
            raise FaultError(Fault(seat, "revealed the last value of its hash chain without a 32-byte anchor "
                                   "for the next", msg.at, FaultCode.BAD_BEACON))
        return announced

    def _move_chain(self, seat: Seat, head: bytes) -> None:
        if self.chain_left[seat] > 1:
            self.chain_left[seat] -= 1
        else:  # renewed: a fresh chain of the length its hello declared
            self.chain_left[seat] = self.table.hellos[seat]["chain"]
            if seat == self.seat and self.secrets is not None:
                self._renewals += 1
                self._chain = self.secrets.chain(chain_binding(seat, self.secrets.identity.public.sign_key),
                                                 self._renewals)
        self.chain_values[seat] = head

    # ------------------------------------------------------------------ faults, abort and audit

