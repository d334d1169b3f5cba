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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from p2php.canonical import NotCanonical, decode, digest, encode
from p2php.crypto import beacon, channel, deck
from p2php.crypto.group import InvalidPoint
from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    Game,
    GameOver,
    GameState,
    IllegalAction,
    Knowledge,
    Randomness,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
    Step,
)
from p2php.session.handshake import CHAIN_LENGTH, LocalSecrets, Table, chain_binding, deck_seed
from p2php.session.messages import (
    BadMessage,
    Message,
    body_field,
    key_list,
    parse_message,
    points_list,
    scalar_bytes,
    signing_bytes,
)

if TYPE_CHECKING:
    from p2php.session.audit import Verdict

Stacker = Callable[[int, "DeckRecord", deck.DeckSecrets], deck.DeckSecrets]

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


class _Gap(Exception):
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


class Lockstep:
    """One peer's lockstep state machine (or a spectator's, with ``seat=None``)."""

    def __init__(
        self,
        game: Game,
        table: Table,
        seat: Seat | None = None,
        secrets: LocalSecrets | None = None,
        private_decks: Mapping[str, list[CardId]] | None = None,
    ) -> None:
        self.game = game
        self.table = table
        self.players = table.players
        self.seat = seat
        self.secrets = secrets
        self.private_decks = dict(private_decks or {})  # secret deck lists this seat owns, by purpose
        self.stacker: Stacker | None = None  # TEST ONLY: see p2php.session.stacking
        self.session_id = table.session_id
        self.options = game.parse_options(table.options)
        self.state: GameState = game.new_state(self.players, self.options)
        self.points = deck.PointBook(
            digest(b"p2php/cards/v1", self.session_id, game.name.encode()),
            game.universe_size(self.options),
        )
        self.publics = [table.public(s) for s in range(self.players)]
        self.tick = 0
        self.phase = 0
        self._step: Step = self.state.step()
        self._state_hash = self.state.state_hash()
        # Message bookkeeping.
        self.inbox: dict[Seat, deque[Message]] = {s: deque() for s in range(self.players)}
        self.last_seq: dict[Seat, int] = {s: -1 for s in range(self.players)}
        self.last_hash: dict[Seat, bytes] = {s: self.session_id for s in range(self.players)}
        self.processed: dict[Seat, dict[int, Message]] = {s: {} for s in range(self.players)}
        self.seen_claims: dict[tuple[Seat, int], list[tuple[bytes, Message]]] = {}
        self.transcript: list[Message] = []
        self.outbox: list[Message] = []
        self._own_points: set[tuple[int, int]] = set()  # points where we have sent our message
        self.parked: dict[Seat, list[dict[str, Any]]] = {}  # frames waiting for a missed earlier one
        self.record: Callable[[dict[str, Any]], None] | None = None  # sees every accepted frame (resume log)
        self._my_seq = 0
        # Cards.
        self.decks: list[DeckRecord] = []
        self.slot_deck: dict[Slot, tuple[int, int]] = {}
        self.released: dict[Slot, dict[Seat, int]] = {}
        self.public_faces: dict[Slot, CardId] = {}
        self.private_faces: dict[Slot, CardId] = {}
        self.chain_values: dict[Seat, bytes] = {
            s: table.hellos[s]["anchor"] for s in range(self.players)
        }
        self.chain_index = 0
        self._chain = (
            secrets.chain(chain_binding(seat, secrets.identity.public.sign_key))
            if secrets is not None and seat is not None
            else None
        )
        # Decide bookkeeping.
        self._answers: list[tuple[Seat, Action]] = []
        self._sealed: tuple[Action, bytes] | None = None  # our committed answer and its nonce
        self._commits: dict[Seat, bytes] = {}
        self.events: list[Event] = []
        # Ending.
        self.verdict: Verdict | None = None
        self.fault: Fault | None = None
        self.auditing = False
        self.audit_bodies: dict[Seat, dict[str, Any]] = {}
        self.abort_messages: list[Message] = []
        self.fault_from: Seat | None = None  # the seat whose abort told us of the fault (None: we saw it)
        self.waiting_at_abort: list[Seat] = []
        self.suspicions: list[Suspicion] = []
        self.disputed: list[tuple[Seat, int]] = []
        self.finished = False
        self.result: GameOver | None = None

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

    def legal_actions(self) -> list[Action]:
        assert self.seat is not None
        return self.state.legal_actions(self.seat, self.knowledge())

    # ------------------------------------------------------------------ expectations

    def _unreleased(self, slot: Slot) -> list[Seat]:
        done = self.released.get(slot, {})
        return [s for s in range(self.players) if s not in done]

    def _key_duty(self, seat: Seat) -> list[Slot]:
        """Slots whose key ``seat`` must release in the current keys phase."""
        step = self._step
        out: list[Slot] = []
        if isinstance(step, Deal):
            for slot, to in step.to:
                if to != seat and seat in self._unreleased(slot) and slot not in out:
                    out.append(slot)
        elif isinstance(step, Reveal):
            out = [s for s in step.slots if seat in self._unreleased(s)]
        elif isinstance(step, Decide) and self.phase == self._keys_phase:
            out = self._reveal_duty(seat)
        elif isinstance(step, Show):
            out = [s for s in step.slots if seat != step.viewer and seat in self._unreleased(s)]
        return out

    @property
    def _keys_phase(self) -> int:
        """The Decide phase in which other seats release keys for opened cards."""
        return 2 if isinstance(self._step, Decide) and self._step.sealed else 1

    def _reveal_duty(self, seat: Seat) -> list[Slot]:
        """Slots the current answers open whose key ``seat`` still holds."""
        return [slot for slot in self._pending_reveals() if seat in self._unreleased(slot)]

    def _pending_reveals(self) -> list[Slot]:
        out: list[Slot] = []
        for seat, action in self._answers:
            for slot in self.state.reveals(seat, action):
                if slot not in out:
                    out.append(slot)
        return out

    def expected(self) -> dict[Seat, str]:
        """Which seat must send which kind of message at the current point, in order."""
        if self.finished:
            return {}
        if self.auditing:
            return {s: "audit" for s in self.audit_required()}
        step = self._step
        n = self.players
        if isinstance(step, Shuffle):
            if self.phase < n:
                return {self._deck_for(step).pass_order(n)[self.phase]: "shuffle"}
            return {2 * n - 1 - self.phase: "lock"}
        if isinstance(step, Deal | Reveal):
            return {s: "keys" for s in range(n) if self._key_duty(s)}
        if isinstance(step, Show):
            return {s: "show" for s in range(n) if self._key_duty(s)}
        if isinstance(step, Decide):
            if step.sealed and self.phase == 0:
                return {s: "commit" for s in step.seats}
            if self.phase == self._keys_phase - 1:
                return {s: "action" for s in step.seats}
            return {s: "keys" for s in range(n) if self._key_duty(s)}
        if isinstance(step, Randomness):
            return {s: "beacon" for s in range(n)}
        return {}  # GameOver: the audit phase takes over

    def waiting_for(self) -> list[Seat]:
        """Seats whose message for the current point has not arrived yet."""
        return [s for s in self.expected() if not self._has_current(s)]

    def _has_current(self, seat: Seat) -> bool:
        q = self.inbox[seat]
        return bool(q) and q[0].at == (self.tick, self.phase) and q[0].kind not in ("abort", "audit")

    # ------------------------------------------------------------------ receiving

    def receive(self, sender: Seat, frame: Any) -> None:
        """Take one frame that arrived from ``sender``'s connection.

        Checks the envelope, signature and chain at once; a bad frame becomes a
        :class:`Fault` naming ``sender`` (it never raises).
        """
        if self.finished:
            return
        try:
            if not isinstance(frame, dict):
                raise BadMessage("frame is not a map")
            msg = parse_message(frame)
            if msg.sender != sender:
                raise BadMessage(f"message claims to be from seat {msg.sender}")
            self._check_envelope(msg)
        except _Gap:
            # A message we missed (a link dropped) comes first; keep this one until the
            # gap is filled by a relay.  If it never is, the timeout names the sender.
            parked = self.parked.setdefault(sender, [])
            parked.append(frame)
            if len(parked) > MAX_BACKLOG:
                self._raise_fault(Fault(sender, "flooded us with messages", (self.tick, self.phase)))
            return
        except (BadMessage, NotCanonical) as err:
            self._raise_fault(Fault(sender, f"bad message: {err}", (self.tick, self.phase)))
            return
        self._accept(msg)
        if len(self.inbox[sender]) > MAX_BACKLOG:
            self._raise_fault(Fault(sender, "flooded us with messages", (self.tick, self.phase)))

    def _accept(self, msg: Message) -> None:
        self.inbox[msg.sender].append(msg)
        if msg.sender == self.seat:
            # Our own message coming back (resume): never send another for that point.
            self._own_points.add(msg.at)
            self._my_seq = max(self._my_seq, msg.seq + 1)
        if self.record is not None:
            self.record(msg.to_wire())
        parked = self.parked.get(msg.sender)
        if parked:
            # The gap may be filled now: retry what waited, in order.
            waiting, self.parked[msg.sender] = parked, []
            for frame in sorted(waiting, key=lambda f: f.get("seq", 0) if isinstance(f.get("seq"), int) else 0):
                self.receive(msg.sender, frame)

    def restore_sealed(self, tick: int, action: Action) -> None:
        """Resume: our committed, not yet revealed answer of a sealed decision."""
        assert self.secrets is not None
        nonce = digest(b"p2php/seal-nonce/v1", self.secrets.master, self.session_id, tick.to_bytes(8, "big"))
        self._sealed = (action, nonce)

    def known_seq(self, seat: Seat) -> int:
        """The highest message number of ``seat`` we hold (processed or queued), or -1."""
        q = self.inbox[seat]
        return q[-1].seq if q else self.last_seq[seat]

    def messages_after(self, seat: Seat, seq: int) -> list[dict[str, Any]]:
        """``seat``'s messages numbered above ``seq`` that we hold, in order (for catching up)."""
        held = [m for q, m in sorted(self.processed[seat].items()) if q > seq]
        held += [m for m in self.inbox[seat] if m.seq > seq]
        return [m.to_wire() for m in held]

    def receive_relayed(self, frame: Any) -> bool:
        """Take a message relayed by another peer while catching up (any author).

        Its signature proves its author; one we already hold is ignored, one that
        does not continue its author's chain is refused (returns False) — a relay
        can fill a gap, never rewrite history.
        """
        if self.finished or not isinstance(frame, dict):
            return False
        try:
            msg = parse_message(frame)
            if not 0 <= msg.sender < self.players:
                return False
            if msg.seq <= self.known_seq(msg.sender):
                return True
            self._check_envelope(msg)
        except _Gap:
            self.parked.setdefault(msg.sender, []).append(frame)
            return True
        except (BadMessage, NotCanonical):
            return False
        self._accept(msg)
        return True

    def _check_envelope(self, msg: Message) -> None:
        s = msg.sender
        if not self.publics[s].verify(msg.sig, signing_bytes(self.session_id, msg.fields())):
            raise BadMessage(f"message {msg.seq}: signature does not verify")
        expected_seq = self.last_seq[s] + 1 + sum(1 for _ in self.inbox[s])
        if msg.seq < expected_seq:
            raise BadMessage(f"message {msg.seq} replayed (expected {expected_seq})")
        if msg.seq != expected_seq:
            raise _Gap()
        prev = self.inbox[s][-1].msg_hash if self.inbox[s] else self.last_hash[s]
        if msg.prev != prev:
            # The sender signed another message numbered seq - 1 than the one we got:
            # our copy goes out as evidence, whoever holds the other proves equivocation.
            self.disputed.append((s, msg.seq - 1))
            raise BadMessage(f"message {msg.seq}: 'prev' does not chain to its previous message")
        if msg.at < (self.tick, self.phase) and msg.kind not in ("abort", "audit"):
            raise BadMessage(
                f"{msg.kind} message for step {msg.at[0]}.{msg.at[1]} arrived after that step closed"
            )

    # ------------------------------------------------------------------ acting

    def act(self, action: Action) -> None:
        """Send the local seat's answer to the current decision."""
        if not self.awaiting_me():
            raise IllegalAction("it is not this seat's turn to act")
        assert self.seat is not None and self.secrets is not None
        self.state.check(self.seat, action, self.knowledge())
        if isinstance(self._step, Decide) and self._step.sealed:
            nonce = digest(b"p2php/seal-nonce/v1", self.secrets.master, self.session_id,
                           self.tick.to_bytes(8, "big"))
            self._sealed = (action, nonce)
            if self.record is not None:
                self.record({"local": "sealed", "tick": self.tick, "action": action})
            self._send("commit", {"commit": beacon.commit(self._seal_context(self.seat), encode(action), nonce)})
            return
        self._send("action", self._action_body(action))

    def _action_body(self, action: Action) -> dict[str, Any]:
        assert self.seat is not None
        keys = [
            [slot, scalar_bytes(self._my_key(slot))]
            for slot in self.state.reveals(self.seat, action)
            if self.seat in self._unreleased(slot)
        ]
        return {"action": action, "keys": keys}

    def _seal_context(self, seat: Seat) -> bytes:
        return digest(b"p2php/seal/v1", self.session_id, self.tick.to_bytes(8, "big"), seat.to_bytes(2, "big"))

    def _send(self, kind: str, body: dict[str, Any]) -> Message:
        assert self.secrets is not None and self.seat is not None
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
        self._my_seq += 1
        self._own_points.add(msg.at)
        self.outbox.append(msg)
        self.inbox[self.seat].append(msg)
        if self.record is not None:
            self.record(msg.to_wire())
        return msg

    def _my_prev(self) -> bytes:
        assert self.seat is not None
        q = self.inbox[self.seat]
        return q[-1].msg_hash if q else self.last_hash[self.seat]

    def _my_key(self, slot: Slot) -> int:
        d, index = self.slot_deck[slot]
        return self._deck_secrets(d).slot_keys[index]

    def secrets_of(self, seat: Seat, rec: DeckRecord, decks_secret: bytes) -> deck.DeckSecrets:
        """A seat's secrets for one deck, derived from its (released or own) decks secret."""
        ds = deck.DeckSecrets.derive(deck_seed(decks_secret, rec.number), rec.context, rec.size)
        if self.stacker is not None:
            ds = self.stacker(seat, rec, ds)
        return ds

    def _deck_secrets(self, number: int) -> deck.DeckSecrets:
        assert self.secrets is not None
        cache: dict[int, deck.DeckSecrets] = self.__dict__.setdefault("_secret_cache", {})
        if number not in cache:
            rec = self.decks[number]
            assert self.seat is not None
            cache[number] = self.secrets_of(self.seat, rec, self.secrets.decks_secret)
        return cache[number]

    # ------------------------------------------------------------------ the loop

    def poll(self) -> list[Message]:
        """Advance as far as the messages at hand allow; return messages to broadcast."""
        while not self.finished:
            try:
                if self.auditing:
                    self._audit_round()
                    break
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
                                        f"{type(err).__name__}: {err}", (self.tick, self.phase)))
        out, self.outbox = self.outbox, []
        return out

    def _aborted_by_peer(self) -> bool:
        """A peer that aborted sends nothing more: stop waiting and audit."""
        for seat, queue in self.inbox.items():
            if seat != self.seat and any(m.kind == "abort" for m in queue):
                self._start_audit()
                return True
        return False

    def _produce_own(self) -> bool:
        """Send the local seat's message for this point, if one is due and automatic."""
        if self.seat is None or self.secrets is None or (self.tick, self.phase) in self._own_points:
            return False
        kind = self.expected().get(self.seat)
        if kind is None or kind == "commit":
            return False
        if kind == "action":
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
        if kind in ("shuffle", "lock"):
            assert isinstance(step, Shuffle)
            rec = self._deck_for(step)
            secrets = self._deck_secrets(rec.number)
            source = rec.current if rec.passes else self._first_input(rec)
            try:
                if kind == "shuffle":
                    return {"cards": deck.shuffle_pass(secrets, source)}
                return {
                    "cards": deck.lock_pass(secrets, source),
                    "commits": deck.key_commitments(secrets, rec.context, self.seat),
                }
            except InvalidPoint as err:
                culprit = rec.passes[-1][0] if rec.passes else None
                raise FaultError(
                    Fault(culprit, f"its pass of deck {rec.number} holds a point that is not on the curve: {err}",
                          (self.tick, self.phase))
                ) from err
        if kind == "keys":
            return {"keys": [[s, scalar_bytes(self._my_key(s))] for s in self._key_duty(self.seat)]}
        if kind == "show":
            assert isinstance(step, Show)
            payload = encode([[s, scalar_bytes(self._my_key(s))] for s in self._key_duty(self.seat)])
            key = self._box_key(self.seat, step.viewer, self._my_seq)
            return {"to": step.viewer, "box": channel.seal(key, payload, self.session_id)}
        if kind == "beacon":
            assert self._chain is not None
            if self.chain_index >= CHAIN_LENGTH:
                raise FaultError(Fault(None, "the game needed more joint random draws than the hash chains hold",
                                       (self.tick, self.phase)))
            return {"value": self._chain.value(self.chain_index + 1)}
        raise AssertionError(kind)

    def _first_input(self, rec: DeckRecord) -> list[bytes]:
        """The plaintext points the first pass starts from (a secret deck: the owner's list)."""
        if rec.owner is None:
            return [self.points.points[c] for c in rec.cards]
        purpose = rec.purpose
        cards = list(self.private_decks.get(purpose, ()))
        if len(cards) != rec.size or len(set(cards)) != len(cards) or not all(
            isinstance(c, int) and 0 <= c < len(self.points) for c in cards
        ):
            raise ValueError(f"our private {purpose!r} deck must be {rec.size} distinct card ids")
        return [self.points.points[c] for c in cards]

    def _box_key(self, sender: Seat, viewer: Seat, seq: int) -> bytes:
        assert self.secrets is not None
        other = viewer if sender == self.seat else sender
        context = digest(
            b"p2php/show/v1", self.session_id, sender.to_bytes(2, "big"),
            viewer.to_bytes(2, "big"), seq.to_bytes(8, "big"),
        )
        return channel.message_key(self.secrets.identity, self.publics[other].box_key, context)

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
                          "where none was due", msg.at)
                )

    # ------------------------------------------------------------------ completing phases

    def _take(self, seat: Seat, kind: str) -> Message:
        msg = self.inbox[seat].popleft()
        if msg.kind != kind:
            raise FaultError(
                Fault(seat, f"sent a {msg.kind!r} message where a {kind!r} was due", msg.at)
            )
        self._consume(msg)
        if msg.state != self._state_hash:
            raise FaultError(
                Fault(seat, f"state hash differs from ours at step {self.tick} (desync)", msg.at)
            )
        return msg

    def _consume(self, msg: Message) -> None:
        s = msg.sender
        self.last_seq[s] = msg.seq
        self.last_hash[s] = msg.msg_hash
        self.processed[s][msg.seq] = msg
        self.transcript.append(msg)
        for other, seq, h in msg.seen:
            if 0 <= other < self.players and other != s:
                self.seen_claims.setdefault((other, seq), []).append((h, msg))
        self._check_equivocation()

    def _check_equivocation(self) -> None:
        for (other, seq), claims in list(self.seen_claims.items()):
            mine = self.processed[other].get(seq)
            if mine is None:
                continue
            for h, claimer in claims:
                if h != mine.msg_hash:
                    # Either ``other`` signed two messages numbered ``seq`` or the claimer
                    # lies about what it saw; the signed copies released with the abort
                    # and the audit decide which (see p2php.session.audit).
                    self.suspicions.append(Suspicion(other, seq, claimer.sender, h))
                    raise FaultError(
                        Fault(
                            None,
                            f"equivocation: seat {claimer.sender} saw a different message {seq} "
                            f"from seat {other} than we did",
                            (self.tick, self.phase),
                        )
                    )
            del self.seen_claims[(other, seq)]

    def _complete_phase(self) -> None:
        step = self._step
        exp = self.expected()
        msgs = [(s, self._take(s, kind)) for s, kind in exp.items()]
        if isinstance(step, Shuffle):
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
            raise FaultError(Fault(None, f"engine refused step {self.tick}: {err}", (self.tick, 0))) from err
        self.events.append(Event(self.tick, step, faces=dict(faces or {}), random=random))
        self._next_tick()

    def _next_tick(self) -> None:
        self.tick += 1
        self.phase = 0
        self._answers = []
        self._sealed = None
        self._commits = {}
        self._step = self.state.step()
        self._state_hash = self.state.state_hash()
        if isinstance(self._step, Shuffle):
            self._deck_for(self._step)
        elif isinstance(self._step, GameOver):
            self._start_audit()

    # ------------------------------------------------------------------ shuffles

    def _deck_for(self, step: Shuffle) -> DeckRecord:
        if self.decks and self.decks[-1].tick == self.tick:
            return self.decks[-1]
        number = len(self.decks)
        rec = DeckRecord(
            number=number,
            context=digest(b"p2php/deck/v1", self.session_id, number.to_bytes(4, "big")),
            first_slot=step.first_slot,
            tick=self.tick,
            cards=tuple(step.cards),
            owner=step.owner,
            secret_size=step.size,
            purpose=step.purpose,
        )
        self.decks.append(rec)
        return rec

    def _on_pass(self, step: Shuffle, msg: Message) -> None:
        rec = self._deck_for(step)
        cards = points_list(msg)
        previous = rec.current if rec.passes else None
        problem = deck.check_deck_shape(cards, rec.size, previous=previous, on_curve=False)
        if problem is not None:
            raise FaultError(Fault(msg.sender, f"{msg.kind} pass of deck {rec.number}: {problem}", msg.at))
        if msg.kind == "lock":
            commits = points_list(msg, "commits")
            if len(commits) != rec.size or any(len(c) != 32 for c in commits):
                raise FaultError(Fault(msg.sender, f"lock pass of deck {rec.number}: bad key commitments", msg.at))
            rec.commits[msg.sender] = commits
        rec.passes.append((msg.sender, msg.kind, cards))
        self.phase += 1
        if self.phase == 2 * self.players:
            for index in range(rec.size):
                slot = rec.first_slot + index
                self.slot_deck[slot] = (rec.number, index)
                self.released[slot] = {}
            self._advance()

    # ------------------------------------------------------------------ keys and opening

    def _on_keys(self, msgs: list[tuple[Seat, Message]]) -> None:
        for seat, msg in msgs:
            self._accept_keys(seat, msg, key_list(msg), self._key_duty(seat))

    def _accept_keys(self, seat: Seat, msg: Message, keys: list[tuple[int, int]], duty: list[Slot]) -> None:
        if [s for s, _ in keys] != duty:
            raise FaultError(
                Fault(seat, f"released keys for slots {[s for s, _ in keys]}, expected {duty}", msg.at)
            )
        for slot, key in keys:
            d, index = self.slot_deck[slot]
            rec = self.decks[d]
            commit = deck.key_commitment(rec.context, seat, index, key)
            if commit != rec.commits[seat][index]:
                raise FaultError(Fault(seat, f"released a wrong key for slot {slot}", msg.at))
        for slot, key in keys:
            self.released[slot][seat] = key

    def _open(self, slot: Slot, extra: Mapping[Seat, int] | None = None) -> CardId:
        keys = dict(self.released[slot])
        if extra:
            keys.update(extra)
        if len(keys) != self.players:
            raise AssertionError(f"slot {slot} is not fully unlocked")
        d, index = self.slot_deck[slot]
        rec = self.decks[d]
        try:
            point: bytes | None = deck.open_point(rec.current[index], [keys[s] for s in range(self.players)])
        except InvalidPoint:
            point = None
        card = None if point is None else self.points.card_of(point)
        if card is None:
            raise FaultError(
                Fault(None, f"slot {slot} opened to a point that is no card: a shuffle pass or a key "
                      "was bad (the audit names who)", (self.tick, self.phase))
            )
        other = rec.seen_faces.get(card)
        if other is not None and other != slot or (rec.owner is None and card not in rec.cards):
            raise FaultError(
                Fault(None, f"slot {slot} opened to a card that is not in its place in deck {d} "
                      "(the audit names who)", (self.tick, self.phase))
            )
        rec.seen_faces[card] = slot
        return card

    def _open_deal(self, step: Deal) -> None:
        if self.seat is None:
            return
        for slot, to in step.to:
            if to == self.seat and slot not in self.private_faces:
                self.private_faces[slot] = self._open(slot, {self.seat: self._my_key(slot)})

    def _open_public(self, slots: tuple[Slot, ...] | list[Slot]) -> dict[Slot, CardId]:
        faces = {}
        for slot in slots:
            card = self._open(slot)
            faces[slot] = card
            self.public_faces[slot] = card
        return faces

    # ------------------------------------------------------------------ decisions

    def _on_decide(self, step: Decide, msgs: list[tuple[Seat, Message]]) -> None:
        if step.sealed and self.phase == 0:
            self._commits = {}
            for seat, msg in msgs:
                commit = body_field(msg, "commit", bytes)
                if len(commit) != 32:
                    raise FaultError(Fault(seat, "a sealed choice's commitment must be 32 bytes", msg.at))
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
                        raise FaultError(Fault(seat, "revealed a choice that does not match its commitment", msg.at))
                try:
                    self.state.check(seat, action, knowledge)
                except IllegalAction as err:
                    raise FaultError(Fault(seat, f"illegal action {action}: {err}", msg.at)) from err
                except Exception as err:  # malformed action data must not crash us
                    raise FaultError(Fault(seat, f"malformed action {action!r:.120}: {err}", msg.at)) from err
                self._answers.append((seat, action))
            for seat, msg in msgs:
                own: list[Slot] = []
                for a_seat, a in self._answers:
                    if a_seat == seat:
                        own += [s for s in self._safe_reveals(seat, a, msg) if seat in self._unreleased(s)
                                and s not in own]
                self._accept_keys(seat, msg, key_list(msg), own)
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
            raise FaultError(Fault(culprit, f"illegal play: {err}", (self.tick, self.phase))) from err
        self.events.append(Event(self.tick, step, answers=list(answers), faces=faces, lines=lines))
        self._next_tick()

    def _safe_reveals(self, seat: Seat, action: Action, msg: Message) -> list[Slot]:
        try:
            slots = list(self.state.reveals(seat, action))
        except Exception as err:  # a checked action should not get here, but never crash
            raise FaultError(Fault(seat, f"action {action!r:.80} cannot be resolved: {err}", msg.at)) from err
        for slot in slots:
            if slot not in self.slot_deck:
                raise FaultError(Fault(seat, f"action opens slot {slot}, which is no card", msg.at))
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
        # state half way, so rebuild it from the event log and try each prefix.
        from p2php.session.replay import replay_events

        for k in range(1, len(answers) + 1):
            trial = replay_events(self.game, self.players, self.options, self.events)
            try:
                trial.apply(answers[:k], faces)
            except IllegalAction:
                return answers[k - 1][0]
        return None

    # ------------------------------------------------------------------ show, beacon

    def _on_show(self, step: Show, msgs: list[tuple[Seat, Message]]) -> None:
        for seat, msg in msgs:
            to = body_field(msg, "to", int)
            box = body_field(msg, "box", bytes)
            if to != step.viewer:
                raise FaultError(Fault(seat, f"showed cards to seat {to}, not {step.viewer}", msg.at))
            if self.seat != step.viewer:
                continue
            key = self._box_key(seat, step.viewer, msg.seq)
            try:
                payload = channel.open_sealed(key, box, self.session_id)
                raw = decode(payload)
                keys = [(int(s), int.from_bytes(k, "big")) for s, k in raw]
            except Exception as err:
                raise FaultError(Fault(seat, f"private show could not be opened: {err}", msg.at)) from err
            duty = self._key_duty(seat)
            self._accept_keys_private(seat, msg, keys, duty)
        if self.seat == step.viewer:
            for slot in step.slots:
                if slot in self.public_faces or slot in self.private_faces:
                    continue
                extra = dict(self._shown.get(slot, {}))
                if self.seat in self._unreleased(slot):
                    extra[self.seat] = self._my_key(slot)
                self.private_faces[slot] = self._open(slot, extra)

    @property
    def _shown(self) -> dict[Slot, dict[Seat, int]]:
        shown: dict[Slot, dict[Seat, int]] = self.__dict__.setdefault("_shown_keys", {})
        return shown

    def _accept_keys_private(self, seat: Seat, msg: Message, keys: list[tuple[int, int]], duty: list[Slot]) -> None:
        if [s for s, _ in keys] != duty:
            raise FaultError(Fault(seat, f"privately showed slots {[s for s, _ in keys]}, expected {duty}", msg.at))
        for slot, key in keys:
            d, index = self.slot_deck[slot]
            rec = self.decks[d]
            if deck.key_commitment(rec.context, seat, index, key) != rec.commits[seat][index]:
                raise FaultError(Fault(seat, f"privately showed a wrong key for slot {slot}", msg.at))
            self._shown.setdefault(slot, {})[seat] = key

    def _on_beacon(self, msgs: list[tuple[Seat, Message]]) -> None:
        values = []
        for seat, msg in msgs:
            value = body_field(msg, "value", bytes)
            binding = chain_binding(seat, self.publics[seat].sign_key)
            if not beacon.verify_next(binding, self.chain_values[seat], value):
                raise FaultError(Fault(seat, "revealed a randomness value that breaks its hash chain", msg.at))
            values.append(value)
        for (seat, _), value in zip(msgs, values, strict=True):
            self.chain_values[seat] = value
        self.chain_index += 1
        self._advance(random=beacon.combine(values, encode([self.tick])))

    # ------------------------------------------------------------------ faults, abort and audit

    def _raise_fault(self, fault: Fault) -> None:
        """Record the first fault, tell the others, and move to the audit."""
        if self.fault is None and not self.auditing:
            self.fault = fault
            if self.secrets is not None and self.seat is not None and not self._have_own("abort"):
                self._send(
                    "abort",
                    {"culprit": -1 if fault.culprit is None else fault.culprit, "reason": fault.reason,
                     "at": list(fault.at), "evidence": self._evidence(),
                     "claims": [[s.seat, s.seq, s.claimer, s.claimed] for s in self.suspicions]},
                )
        self._start_audit()

    def _evidence(self) -> list[Any]:
        """Our signed copies of every message whose content is in dispute.

        Disputes come from our own suspicions and from evidence in others' aborts:
        two validly signed messages with one sender and number but different
        contents prove that sender equivocated.
        """
        wanted: list[tuple[Seat, int]] = [(s.seat, s.seq) for s in self.suspicions] + self.disputed
        for queue in self.inbox.values():
            for msg in queue:
                if msg.kind == "abort":
                    for item in msg.body.get("claims", []) if isinstance(msg.body.get("claims"), list) else []:
                        if isinstance(item, list) and len(item) == 4 and all(isinstance(x, int) for x in item[:2]):
                            wanted.append((item[0], item[1]))
                    for wire in msg.body.get("evidence", []) if isinstance(msg.body.get("evidence"), list) else []:
                        if isinstance(wire, dict) and isinstance(wire.get("from"), int) \
                                and isinstance(wire.get("seq"), int):
                            wanted.append((wire["from"], wire["seq"]))
        out = []
        for seat, seq in wanted:
            mine = self.processed.get(seat, {}).get(seq)
            if mine is None:
                mine = next((m for m in self.inbox.get(seat, ()) if m.seq == seq), None)
            if mine is not None and mine.to_wire() not in out:
                out.append(mine.to_wire())
        return out

    def _start_audit(self) -> None:
        if self.auditing:
            return
        self.waiting_at_abort = self.waiting_for()
        self.auditing = True
        if isinstance(self._step, GameOver) and self.fault is None:
            self.result = self._step
        if self.secrets is not None and self.seat is not None and not self._have_own("audit"):
            self._send(
                "audit",
                {"decks": self.secrets.decks_secret, "boxes": self._own_box_keys(), "evidence": self._evidence()},
            )

    def _have_own(self, kind: str) -> bool:
        assert self.seat is not None
        return any(m.kind == kind for m in self.processed[self.seat].values()) or any(
            m.kind == kind for m in self.inbox[self.seat]
        )

    def _own_box_keys(self) -> list[list[Any]]:
        """The message keys of every private show we sent (re-derived, so a resumed peer has them too)."""
        assert self.seat is not None
        own = list(self.processed[self.seat].values()) + list(self.inbox[self.seat])
        return [[m.seq, self._box_key(self.seat, m.body["to"], m.seq)] for m in own
                if m.kind == "show" and isinstance(m.body.get("to"), int)]

    def audit_required(self) -> list[Seat]:
        """Seats whose audit message is still awaited (not a seat known to be silent)."""
        gone = self.fault.culprit if self.fault is not None and self.fault.silent else None
        return [s for s in range(self.players) if s not in self.audit_bodies and s != gone]

    def _audit_round(self) -> None:
        for seat in range(self.players):
            queue = self.inbox[seat]
            while queue:
                msg = queue.popleft()
                self._consume_late(msg)
        if not self.audit_required():
            self._finish()

    def _consume_late(self, msg: Message) -> None:
        s = msg.sender
        self.last_seq[s] = msg.seq
        self.last_hash[s] = msg.msg_hash
        self.processed[s][msg.seq] = msg
        self.transcript.append(msg)
        if msg.kind == "abort":
            self.abort_messages.append(msg)
            if self.fault is None:
                self.fault = self._abort_fault(msg)
                self.fault_from = msg.sender
            claims = msg.body.get("claims")
            for item in claims if isinstance(claims, list) else []:
                if (isinstance(item, list) and len(item) == 4 and all(isinstance(x, int) for x in item[:3])
                        and isinstance(item[3], bytes)):
                    self.suspicions.append(Suspicion(item[0], item[1], item[2], item[3]))
        elif msg.kind == "audit":
            secret = msg.body.get("decks")
            boxes = msg.body.get("boxes")
            if isinstance(secret, bytes) and len(secret) == 32 and isinstance(boxes, list):
                self.audit_bodies[s] = msg.body
            else:
                self.audit_bodies[s] = {"invalid": True}

    def _abort_fault(self, msg: Message) -> Fault:
        culprit = msg.body.get("culprit", -1)
        reason = msg.body.get("reason", "")
        if not isinstance(culprit, int) or not isinstance(reason, str):
            return Fault(msg.sender, "sent a malformed abort", msg.at)
        silent = "went silent" in reason or "connection lost" in reason
        return Fault(None if culprit < 0 else culprit, f"seat {msg.sender} reported: {reason}", msg.at, silent)

    def _finish(self) -> None:
        from p2php.session.audit import run_audit

        self.verdict = run_audit(self)
        self.finished = True

    def timeout(self) -> list[Seat]:
        """The wait timed out: name the silent seats and move on (to the audit, or its end)."""
        if self.finished:
            return []
        if self.auditing:
            silent = [s for s in self.audit_required() if s != self.seat]
            for s in silent:
                self.audit_bodies[s] = {"refused": True}
            self.poll()
            return silent
        silent = [s for s in self.waiting_for() if s != self.seat]
        if silent:
            kind = self.expected()[silent[0]]
            self._raise_fault(Fault(silent[0], f"went silent (no {kind} message in time)",
                                    (self.tick, self.phase), silent=True))
            self.poll()
        return silent
