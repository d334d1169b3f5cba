"""Signed messages: the envelope every peer-to-peer message travels in.

Every message after the handshake is a msgpack map::

    {"from": seat, "seq": n, "prev": H(previous message of this sender),
     "at": [tick, phase], "state": state hash at that tick,
     "seen": [[seat, seq, hash], ...], "kind": str, "body": {...}, "sig": 64 bytes}

``sig`` is an Ed25519 signature over ``digest("p2php/msg/v1", session_id,
encode(message without sig))``, so a message cannot be moved to another session,
reordered within its sender's chain (``seq``/``prev``), or altered.  ``seen``
lists the head of every other sender's chain as the sender has processed it:
if two peers report different hashes for the same ``(sender, seq)``, that sender
showed different messages to different peers (equivocation).  See protocol.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

import msgpack

from p2php import tags
from p2php.canonical import digest, encode
from p2php.errors import P2phpError
from p2php.net.framing import body_values

KINDS = ("shuffle", "lock", "keys", "commit", "action", "beacon", "show", "abort", "audit", "deckkey", "pass")
"""Every message kind; ``deckkey`` and ``pass`` exist only in a verified deck (``crypto=verified``, §6.4)."""

BODY_FIELDS = frozenset({
    "action", "nonce", "commit", "keys", "shares", "proofs", "to", "box", "cards", "commits", "digest", "key",
    "proof", "value", "next", "culprit", "reason", "code", "at", "evidence", "claims", "boxes", "decks",
})
"""Every body field some kind of message has (§6.4). A message's fields its own kind does not have
(:data:`KIND_FIELDS`) are ignored, and may be at most :data:`MAX_UNKNOWN_BODY` bytes."""

KIND_FIELDS: dict[str, frozenset[str]] = {
    "shuffle": frozenset({"cards", "digest"}),
    "lock": frozenset({"cards", "commits", "digest"}),
    "keys": frozenset({"keys", "shares", "proofs"}),
    "commit": frozenset({"commit"}),
    "action": frozenset({"action", "keys", "shares", "proofs", "nonce"}),
    "beacon": frozenset({"value", "next"}),
    "show": frozenset({"to", "box"}),
    "abort": frozenset({"culprit", "reason", "code", "at", "evidence", "claims", "box"}),
    "audit": frozenset({"decks", "boxes", "evidence", "shares", "proofs"}),
    "deckkey": frozenset({"key", "proof"}),
    "pass": frozenset({"cards", "proof", "digest"}),
}
"""The body fields each kind of message has (§6.4, either deck). A field of another kind counts as one no kind has
(:data:`MAX_UNKNOWN_BODY`): a cheater that padded every message it signed with 200 KiB of ``proof`` and ``reason``
(fields of other kinds) had them accepted, kept in every honest transcript and resume log, and a clean game's
records past ``MAX_FILE`` (301 MiB for a 3-seat UNO game), which ``p2php verify`` and ``p2php resume`` refuse
(red-team rt7-newcode)."""

assert frozenset().union(*KIND_FIELDS.values()) == BODY_FIELDS and set(KIND_FIELDS) == set(KINDS)

DECK_FIELDS: dict[str, dict[str, frozenset[str]]] = {
    "fast": {**KIND_FIELDS, "keys": frozenset({"keys"}), "action": frozenset({"action", "keys", "nonce"}),
             "audit": frozenset({"decks", "boxes", "evidence"})},
    "verified": {**KIND_FIELDS, "keys": frozenset({"shares", "proofs"}),
                 "action": frozenset({"action", "shares", "proofs", "nonce"}),
                 "audit": frozenset({"boxes", "evidence", "shares", "proofs"}), "pass": frozenset({"cards", "proof"})},
}
""":data:`KIND_FIELDS` for each deck (§5.2 check 6): a field of the message's kind that its deck never sends counts
as unknown too. A fast deck's ``keys`` and ``action`` carry no ``shares`` or ``proofs`` and its ``audit`` none either,
a verified deck's no ``keys``, ``decks`` or pass ``digest``: those were read by nobody, so a cheater that padded every
message it signed with 3 MiB of one had them accepted, kept in every honest record, and a clean game's records past
``MAX_FILE`` (432 MiB for a 3-seat fast UNO game with 0.5 MiB a message), as rt7-newcode's fields of other kinds
did (red-team rt8-red)."""

MAX_ACTION_VALUES = 4096
MAX_ACTION_BYTES = 64 * 1024
"""An action (the ``action`` field of an ``action`` message) holds at most this many msgpack values and bytes: our
own, since its message must fit a frame (65 536 values, 4 MiB) with its keys and envelope, relayed too, and a
game's rules ignore keys they do not read, so a decider's stray field could be any size (signed and recorded before
the frame refused it, it ended this peer with no verdict); another seat's, on arrival (§5.2 check 6), since no
honest peer signs a larger one: HP Sha's checks take an action with a key they do not read, and a cheater that put
3.5 MiB of one in each action its own check of the rules took had them kept in every honest record, a clean 4-seat
game's 283 MiB, which ``p2php verify`` refuses (red-team rt8-red)."""

def past_action_bound(wire: bytes) -> bool:
    """Whether an action whose canonical form is ``wire`` holds more than :data:`MAX_ACTION_VALUES` values or
    :data:`MAX_ACTION_BYTES` bytes: what a seat refuses to sign, another seat's refused on arrival, and the kit's
    density check reports (one test for the three)."""
    return len(wire) > MAX_ACTION_BYTES or body_values(wire) > MAX_ACTION_VALUES


FIXED_SIZE: dict[str, int] = {"nonce": 32, "digest": 32, "value": 32}
"""Body fields of one size whenever they are present (§6.4): a sealed answer's nonce, a fast pass's digest, a
randomness reveal. A kind may carry them where nothing reads them (an unsealed decision's ``nonce``, a fast last
pass's ``digest``), so their size is checked on arrival with the shape (§5.2 check 6), not by the step that reads
them; and a reveal's hash chain bound only the hash of its ``value``: a seat whose hello declares a chain of one
value (allowed, 1 .. 2^20) revealed at each draw a value of its choosing, of any size, whose hash it had announced
as its next anchor -- 0.5 MB at each of 725 draws of a Hogwarts game, a clean game's honest records 348 MiB, which
``p2php verify`` refuses (rt8-red)."""

MAX_UNKNOWN_BODY = 1024
"""Bytes of body fields its kind does not have (:data:`KIND_FIELDS`) that a message may carry: a cheater's own
signed messages padded with 4 MiB of them were kept by every peer for the rest of the game, four copies each, and
written to its transcript (1 GiB held, and a record too big to verify)."""

PAIR_SIZE = 97
"""A point and a sigma proof on the wire (``pair97``): a key share (Appendix B.10)."""

SHARE_SIZE = 33
"""A decryption share on the wire (``pt33``); its proof is its batch's (Appendix B.6)."""

BATCH_PROOF_SIZE = 64
"""A batch proof of decryption shares on the wire: ``c ‖ s`` (Appendix B.6)."""

CIPHERTEXT_SIZE = 66
"""A ciphertext ``a ‖ b`` on the wire (``ct66``, Appendix B.1)."""


_T = TypeVar("_T")


class _cached(Generic[_T]):
    """:func:`functools.cached_property` without its lock: computed at the first read, then an instance attribute.

    Python 3.11's takes an ``RLock`` at every first read (removed in 3.12); a message reads up to five of them
    once each, on every copy a peer receives. Messages live on one thread, so the lock guarded nothing here."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> _cached[_T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> _T | _cached[_T]:
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.name] = value  # (a frozen dataclass still has its __dict__: read first there)
        return value


class BadMessage(P2phpError, ValueError):
    """A message that is malformed, wrongly signed, replayed or out of place."""

    def __init__(self, text: str, sender: int | None = None) -> None:
        super().__init__(text)
        self.sender = sender


@dataclass(frozen=True)
class Message:
    """A decoded, signature-checked message."""

    sender: int
    seq: int
    prev: bytes
    at: tuple[int, int]
    state: bytes
    seen: tuple[tuple[int, int, bytes], ...]
    kind: str
    body: dict[str, Any]
    sig: bytes

    def fields(self) -> dict[str, Any]:
        """The signed fields, as sent."""
        return {
            "from": self.sender,
            "seq": self.seq,
            "prev": self.prev,
            "at": list(self.at),
            "state": self.state,
            "seen": [list(s) for s in self.seen],
            "kind": self.kind,
            "body": self.body,
        }

    def to_wire(self) -> dict[str, Any]:
        d = self.fields()
        d["sig"] = self.sig
        return d

    @_cached
    def body_bytes(self) -> bytes:
        """The canonical encoding of ``body``: the one part of the envelope that needs :func:`encode`'s walk."""
        return encode(self.body)

    @_cached
    def _encoded_fields(self) -> tuple[bytes, bytes]:
        """The encoded envelope fields before ``sig`` and after it (see :func:`_envelope`), made once for
        :attr:`signed_bytes` and :attr:`wire_bytes`."""
        return _envelope(self)

    @_cached
    def signed_bytes(self) -> bytes:
        """``encode(self.fields())``, byte for byte, assembled from the encoded fields (see :func:`_envelope`)."""
        before, after = self._encoded_fields
        return b"".join((b"\x88", before, after))

    @_cached
    def wire_bytes(self) -> bytes:
        """The canonical encoding of the whole message (its size bounds what a sender may buffer).

        Equal to ``encode(self.to_wire())``; the body is encoded once for this and :attr:`signed_bytes`.
        """
        before, after = self._encoded_fields
        return b"".join((b"\x89", before, _KEY["sig"], _packed(self.sig), after))

    def signing_digest(self, session_id: bytes) -> bytes:
        """What ``sig`` signs: :func:`signing_bytes` of :meth:`fields`, without walking the body twice."""
        return digest(tags.MSG, session_id, self.signed_bytes)

    @_cached
    def msg_hash(self) -> bytes:
        """Identifies the message (chains ``prev`` and the ``seen`` heads)."""
        return digest(tags.MSGID, self.wire_bytes)


def signing_bytes(session_id: bytes, fields: dict[str, Any]) -> bytes:
    return digest(tags.MSG, session_id, encode(fields))


_pack = msgpack.Packer(use_bin_type=True).pack
"""``msgpack.packb(value, use_bin_type=True)`` without making a Packer per call (it resets after each pack)."""


def _packed(value: Any) -> bytes:
    packed: bytes = _pack(value)
    return packed


_KEY = {k: _packed(k) for k in ("at", "body", "from", "kind", "prev", "seen", "seq", "sig", "state")}


def _envelope(msg: Message) -> tuple[bytes, bytes]:
    """The canonical encoding of the envelope's fields without its map header, in two parts: the fields whose keys
    sort before ``sig``, and ``state`` after it (keys in sorted order, as :func:`encode` puts them).

    Every envelope field but ``body`` is an int, bytes, str or a list of those, which msgpack already encodes
    canonically (lists stay lists, no map inside), so only the body goes through :func:`encode`; the map header
    and the keys are constants. ``tests/test_envelope_bytes.py`` holds this equal to ``encode`` on every kind of
    envelope, hostile field types included.
    """
    k = _KEY
    before = b"".join((
        k["at"], _packed(msg.at),  # (msgpack writes a tuple as the array a list is: no list built)
        k["body"], msg.body_bytes,
        k["from"], _packed(msg.sender),
        k["kind"], _packed(msg.kind),
        k["prev"], _packed(msg.prev),
        k["seen"], _packed(msg.seen),
        k["seq"], _packed(msg.seq),
    ))
    return before, k["state"] + _packed(msg.state)


def _need(d: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in d:
        raise BadMessage(f"{what}: missing field {key!r}")
    value = d[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise BadMessage(f"{what}: field {key!r} has type {type(value).__name__}")
    return value


def _hash32(value: Any, what: str, name: str) -> bytes:
    """``value`` if it is a 32-byte hash; else ``"{what}: {name} must be 32 bytes"`` (formatted only then: a
    message has up to a dozen of them)."""
    if not isinstance(value, bytes) or len(value) != 32:
        raise BadMessage(f"{what}: {name} must be 32 bytes")
    return value


ATT = "att"
"""The one field of a wire message outside what is signed and hashed: a fast pass's points, sent to the seat that
makes the next pass only (protocol.md §6.4, *pass digests*). Its body's ``digest`` binds them."""


def attachment(frame: dict[str, Any]) -> bytes | None:
    """A wire message's ``att`` (``None`` without one); raises :class:`BadMessage` if it is not a bin."""
    att = frame.get(ATT)
    if att is not None and not isinstance(att, bytes):
        raise BadMessage(f"message field 'att' has type {type(att).__name__}")
    return att


_WIRE_FIELDS = frozenset({"from", "seq", "prev", "at", "state", "seen", "kind", "body", "sig", ATT})


def _natural(x: Any) -> bool:
    """An int (not a bool) >= 0: a tick or a phase."""
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def parse_message(frame: dict[str, Any]) -> Message:
    """Check the envelope's shape (not the signature).  Raises :class:`BadMessage`.

    A message's ``att`` (:data:`ATT`) is not part of it: read it with :func:`attachment`."""
    what = "message"
    sender = _need(frame, "from", int, what)
    what = f"message from seat {sender}"
    seq = _need(frame, "seq", int, what)
    what = f"message {seq} from seat {sender}"
    prev = _hash32(_need(frame, "prev", bytes, what), what, "prev")
    at = _need(frame, "at", list, what)
    if len(at) != 2 or not (_natural(at[0]) and _natural(at[1])):
        raise BadMessage(f"{what}: 'at' must be [tick, phase]")
    state = _hash32(_need(frame, "state", bytes, what), what, "state")
    seen_raw = _need(frame, "seen", list, what)
    seen = []
    for item in seen_raw:
        if (
            not isinstance(item, list)
            or len(item) != 3
            or not isinstance(item[0], int)
            or not isinstance(item[1], int)
        ):
            raise BadMessage(f"{what}: bad 'seen' entry")
        seen.append((item[0], item[1], _hash32(item[2], what, "seen hash")))
    kind = _need(frame, "kind", str, what)
    if kind not in KINDS:
        raise BadMessage(f"{what}: unknown kind {kind[:20]!r}")
    body = _need(frame, "body", dict, what)
    sig = _need(frame, "sig", bytes, what)
    if len(sig) != 64:
        raise BadMessage(f"{what}: signature must be 64 bytes")
    if not _WIRE_FIELDS.issuperset(frame):
        extra = sorted(set(frame) - _WIRE_FIELDS)
        shown = ", ".join(repr(k[:20]) for k in extra[:5])
        raise BadMessage(f"{what}: unexpected field(s) {shown}{' …' if len(extra) > 5 else ''}")
    return Message(sender, seq, prev, (at[0], at[1]), state, tuple(seen), kind, body, sig)


# ----------------------------------------------------------------------------- body helpers


def body_field(msg: Message, key: str, kind: type | tuple[type, ...]) -> Any:
    try:
        return _need(msg.body, key, kind, f"{msg.kind} message {msg.seq} from seat {msg.sender}")
    except BadMessage as err:
        raise BadMessage(str(err), msg.sender) from None


def slot_entries(raw: object, size: int) -> list[tuple[int, bytes]] | None:
    """``raw`` as ``[(slot, bytes)]`` if it is a list of ``[int, bin size]`` pairs, else ``None``.

    The one shape check of every ``[slot, key]`` / ``[slot, share]`` list, in a body or in an opened show box. A
    boolean slot is refused: ``True == 1`` would pass a duty check.
    """
    if not isinstance(raw, list):
        return None
    out = []
    for item in raw:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)
                and not isinstance(item[0], bool) and isinstance(item[1], bytes) and len(item[1]) == size):
            return None
        out.append((item[0], item[1]))
    return out


def key_list(msg: Message, key: str = "keys") -> list[tuple[int, int]]:
    """A body list of ``[slot, key]`` pairs (keys as 32-byte big-endian scalars)."""
    entries = slot_entries(body_field(msg, key, list), 32)
    if entries is None:
        raise _bad(msg, "bad key entry")
    return [(slot, int.from_bytes(raw, "big")) for slot, raw in entries]


def scalar_bytes(k: int) -> bytes:
    return k.to_bytes(32, "big")


def _bad(msg: Message, what: str) -> BadMessage:
    return BadMessage(f"{msg.kind} message {msg.seq} from seat {msg.sender}: {what}", msg.sender)


def bytes_list(msg: Message, key: str, size: int, item_len: int) -> list[bytes]:
    """A body list of exactly ``size`` byte strings of ``item_len`` bytes each (the count checked first)."""
    raw = body_field(msg, key, list)
    if len(raw) != size:
        raise _bad(msg, f"'{key}' must hold {size} entries, not {len(raw)}")
    if not all(isinstance(b, bytes) and len(b) == item_len for b in raw):
        raise _bad(msg, f"'{key}' entries must be {item_len} bytes each")
    return list(raw)


def share_lists(fields: object) -> tuple[list[tuple[int, bytes]], list[bytes]] | None:
    """``fields["shares"]`` as ``[(slot, pt33)]`` and ``fields["proofs"]`` as 64-byte bins, else ``None``.

    The shape of a verified release (a ``keys`` or ``action`` body, or an opened show box, §6.4): the shares, then
    one batch proof per key they are under; whether the proofs match the shares is the verifier's question. An
    empty release leaves both fields out (most actions release nothing).
    """
    if not isinstance(fields, dict):
        return None
    if "shares" not in fields and "proofs" not in fields:
        return [], []
    entries = slot_entries(fields.get("shares"), SHARE_SIZE)
    proofs = fields.get("proofs")
    if entries is None or not isinstance(proofs, list) or len(proofs) > len(entries):
        return None
    if not all(isinstance(p, bytes) and len(p) == BATCH_PROOF_SIZE for p in proofs):
        return None
    return entries, proofs


def body_only(msg: Message, forbidden: frozenset[str]) -> None:
    """Refuse a body that carries a field of the other deck mode (``forbidden``).

    Receivers ignore unknown fields (§6.4), but a field that belongs to the *other* mode (``keys`` or
    ``commits`` in a verified deck, ``shares`` in a fast one) is ``bad_message``: one body never means two things.
    """
    wrong = sorted(set(msg.body) & forbidden)
    if wrong:
        raise _bad(msg, f"field(s) {', '.join(repr(k) for k in wrong)} do not belong to this deck mode")
