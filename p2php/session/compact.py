"""The compact wire form of a signed message on a direct link (protocol.md §5.4): pure, no I/O.

A message's ``seen`` hashes and ``prev`` name messages the receiver already holds, and its ``state`` is the
receiver's own state hash at that tick, so on a direct link whose two ends agreed to it (the ``compact`` link
feature, §3.2) they are left out, and the envelope is a positional list instead of a map::

    {"c": [seq, tick, phase, heads, kind, body, sig]}

``kind`` is the kind's index in :data:`~p2php.session.messages.KINDS`; ``heads[o]`` is, for the seen entry
``[o, q, h]``, how far ``q`` moved on since the sender's previous message (``q - q'`` with ``q'`` that message's
entry for ``o``, or 0 if it had none), nil where ``seen`` has no entry: mostly 0, 1 or 2, one byte each.  The
receiver takes ``q'`` and ``prev`` from its copy of the sender's message ``seq - 1``, ``h`` from its own copy
of seat ``o``'s message ``q``, and ``state`` is its own state hash once it is at that tick (:func:`rebuild`);
then it judges the rebuilt message by the usual rules.  Only the wire changes: what is signed, hashed, logged
and kept in transcripts is the full message.

Why this can never convict anyone: a rebuilt message whose signature does not verify (the receiver's copy of
some message differs from the sender's: a third party equivocated; the states differ; or the frame is
garbage) or that cannot be rebuilt (a copy is missing, the tick has passed) is never judged; the receiver
asks the sender for the full form (``{"want": seq}``, answered ``{"full": message}``) and judges that, as
any direct message.  The bounds on what a remote party can make us hold or answer are :class:`CompactBook`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from p2php.session.messages import KINDS, BadMessage, Message

FEATURE = "compact"
"""The link feature both ends of a link must announce (``"wire"`` in their challenge frames, §3.2)."""
FRAME = "c"
"""The one key of a compact frame."""
WANT = "want"
"""The one key of a full-form request: ``{"want": seq}``."""
FULL = "full"
"""The one key of a full-form answer: ``{"full": message}``, judged as a direct message."""
FULL_ONLY = frozenset({"abort", "audit"})
"""Kinds always sent in full: the messages that stop a game must be judged however the links stand."""
MAX_PENDING = 2048
"""Compact frames of one sender waiting for their tick or a message they name; one more is a flood (as many
as the messages a sender may have queued, :data:`~p2php.session.records.MAX_BACKLOG`: a receiver that lags
behind holds the frames of the ticks it has not reached)."""
MAX_OUTSTANDING = 2048
"""Full forms asked of one sender and not yet received; one more names it (it sends what it does not back).  As
many as the messages of one sender a receiver may hold unprocessed (:data:`MAX_PENDING`): a receiver that
reaches its audit while lagging asks for every frame still waiting, and an honest sender is never named."""
MAX_IDLE_WANTS = 64
"""Requests of one peer that we do not answer (already answered, or for no message of ours); one more names it."""

Lookup = Callable[[int, int], Message | None]
"""``(seat, seq)`` -> the receiver's copy of that message (processed or queued), or None if it holds none."""


@dataclass(frozen=True)
class CompactFrame:
    """A compact frame's fields, shape-checked (nothing about the signature yet)."""

    seq: int
    at: tuple[int, int]
    heads: tuple[tuple[int, int], ...]  # (seat, steps since the sender's previous message), ascending seats
    kind: str
    body: dict[str, Any]
    sig: bytes
    size: int = 0  # bytes it holds, once it waits (the flood limit counts them)


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def _bases(previous: Message | None) -> dict[int, int]:
    """Where each seen head stood in the sender's previous message (0 for a seat it had none for)."""
    return {} if previous is None else {o: q for o, q, _ in previous.seen}


def compact_frame(wire: dict[str, Any], players: int,
                  previous: Callable[[int], Message | None] = lambda seq: None) -> dict[str, Any] | None:
    """The compact frame of a message in its full wire form, or None if it must travel in full.

    ``previous(seq)``: the sender's own message ``seq`` (the heads are sent as steps from its message
    ``seq - 1``).  Only a form the receiver rebuilds byte for byte is made: ``seen`` in strictly ascending
    seats, none the sender's own, plain numbers that never go back; kinds of :data:`FULL_ONLY` and anything
    that is not a message (relays, syncs, chat) stay as they are.
    """
    if not isinstance(wire, dict) or wire.keys() != {"from", "seq", "prev", "at", "state", "seen", "kind",
                                                     "body", "sig"}:
        return None
    sender, at, kind = wire["from"], wire["at"], wire["kind"]
    if not isinstance(kind, str) or kind in FULL_ONLY:
        return None
    if not (isinstance(at, list) and len(at) == 2 and all(_count(x) for x in at)):
        return None
    if not (_count(wire["seq"]) and kind in KINDS):
        return None
    bases = _bases(previous(wire["seq"] - 1) if wire["seq"] > 0 else None)
    heads: list[int | None] = [None] * players
    last = -1
    for entry in wire["seen"]:
        if not (isinstance(entry, list) and len(entry) == 3 and _count(entry[0]) and _count(entry[1])):
            return None
        seat, seq = entry[0], entry[1]
        step = seq - bases.get(seat, 0)
        if not last < seat < players or seat == sender or step < 0:
            return None
        heads[seat] = step
        last = seat
    return {FRAME: [wire["seq"], at[0], at[1], heads, KINDS.index(kind), wire["body"], wire["sig"]]}


def parse_compact(raw: Any, players: int, sender: int) -> CompactFrame:
    """Check a compact frame's shape (the value of its ``"c"`` key).  Raises :class:`BadMessage`."""
    what = f"compact message from seat {sender}"
    if not isinstance(raw, list) or len(raw) != 7:
        raise BadMessage(f"{what}: not a list of 7 fields")
    seq, tick, phase, heads_raw, kind, body, sig = raw
    if not (_count(seq) and _count(tick) and _count(phase)):
        raise BadMessage(f"{what}: seq, tick and phase must be non-negative integers")
    what = f"compact message {seq} from seat {sender}"
    if not (isinstance(heads_raw, list) and len(heads_raw) == players):
        raise BadMessage(f"{what}: seen heads must list {players} entries")
    heads = []
    for seat, q in enumerate(heads_raw):
        if q is None:
            continue
        if not _count(q) or seat == sender:
            raise BadMessage(f"{what}: bad seen head for seat {seat}")
        heads.append((seat, q))
    if not (_count(kind) and kind < len(KINDS) and KINDS[kind] not in FULL_ONLY):
        raise BadMessage(f"{what}: kind {str(kind)[:20]!r} cannot travel compact")
    if not isinstance(body, dict):
        raise BadMessage(f"{what}: body must be a map")
    if not (isinstance(sig, bytes) and len(sig) == 64):
        raise BadMessage(f"{what}: signature must be 64 bytes")
    return CompactFrame(seq, (tick, phase), tuple(heads), KINDS[kind], body, sig)


def rebuild(frame: CompactFrame, sender: int, session_id: bytes, held: Lookup,
            state: bytes | None) -> Message | None:
    """The full message, with ``prev``, the seen numbers and hashes taken from the receiver's copies (``held``)
    and ``state`` the receiver's own state hash at the frame's tick.

    None if the receiver lacks one of them (``state`` None: it is not at that tick).  The result is
    unverified: its signature proves the sender signed exactly these values, and a failing one says only
    that some copy or the state differs (or the frame is garbage), never who is to blame.
    """
    previous = held(sender, frame.seq - 1) if frame.seq > 0 else None
    if state is None or (frame.seq > 0 and previous is None):
        return None
    prev = session_id if previous is None else previous.msg_hash
    bases = _bases(previous)
    seen = []
    for seat, step in frame.heads:
        q = bases.get(seat, 0) + step
        copy = held(seat, q)
        if copy is None:
            return None
        seen.append((seat, q, copy.msg_hash))
    return Message(sender, frame.seq, prev, frame.at, state, tuple(seen), frame.kind, frame.body, frame.sig)


@dataclass
class CompactBook:
    """What one receiver keeps about compact frames and full-form requests, each bounded (sans-IO).

    ``pending``: per sender, frames waiting for a message they name.  ``asked``: full forms requested (at
    most one per (sender, seq), ever).  ``wants``: requests to send, drained by the I/O edge.  ``answered`` and
    ``idle``: per requester, the numbers we answered and how many requests we did not.
    """

    pending: dict[int, list[CompactFrame]] = field(default_factory=dict)
    asked: set[tuple[int, int]] = field(default_factory=set)
    wants: list[tuple[int, int]] = field(default_factory=list)
    answered: dict[int, set[int]] = field(default_factory=dict)
    idle: dict[int, int] = field(default_factory=dict)

    def hold(self, sender: int, frame: CompactFrame) -> bool:
        """Keep ``frame`` until what it names arrives; False if that makes more than :data:`MAX_PENDING`."""
        waiting = self.pending.setdefault(sender, [])
        waiting.append(frame)
        return len(waiting) <= MAX_PENDING

    def held_bytes(self, sender: int) -> int:
        return sum(f.size for f in self.pending.get(sender, ()))

    def take(self) -> list[list[tuple[int, CompactFrame]]]:
        """Every pending frame, per sender in seq order; the caller holds again the ones still waiting."""
        out = [[(s, f) for f in sorted(self.pending[s], key=lambda f: f.seq)] for s in sorted(self.pending)]
        self.pending = {}
        return out

    def want(self, sender: int, seq: int, held_up_to: int) -> bool:
        """Ask ``sender`` for its full message ``seq`` (once); False if too many are outstanding."""
        if (sender, seq) in self.asked:
            return True
        self.asked.add((sender, seq))
        self.wants.append((sender, seq))
        outstanding = sum(1 for s, q in self.asked if s == sender and q > held_up_to)
        return outstanding <= MAX_OUTSTANDING

    def answer(self, requester: int, seq: Any, own: Callable[[int], Message | None]) -> Message | None | bool:
        """Our message asked for by ``requester``; None to ignore the request; False once it asked too often.

        Each number is answered once per requester; a request for a message we never sent, or asked again,
        counts against :data:`MAX_IDLE_WANTS`.
        """
        done = self.answered.setdefault(requester, set())
        msg = own(seq) if _count(seq) and seq not in done else None
        if msg is None:
            self.idle[requester] = self.idle.get(requester, 0) + 1
            return False if self.idle[requester] > MAX_IDLE_WANTS else None
        done.add(seq)
        return msg
