"""The two-pass mental-poker deck: shuffled by everyone, dealt without a dealer.

Every physical card ``i`` of a deck is its own group point ``P_i``
(:func:`card_points`), so two copies of the same face never look alike and nobody
knows a discrete-log relation between any two cards.  Peers ``0 .. m-1`` (seat order)
then transform the deck in two rounds, each peer taking the previous output as input,
and every intermediate deck is broadcast (and should be checked with
:func:`check_deck_shape` on arrival):

1. **Shuffle round** — :func:`shuffle_pass`: peer ``p`` permutes the deck with its
   secret permutation and locks every card with *one* key ``e_p``.  Afterwards
   ``deck[j] = (e_0 ⋯ e_{m-1})·P_{π(j)}`` where ``π`` is the composition of all
   permutations: no coalition missing one honest peer knows it.
2. **Lock round** — :func:`lock_pass`: peer ``p`` multiplies slot ``j`` by
   ``k_{p,j}·e_p⁻¹``, removing its shuffle lock and adding a per-slot lock in one
   multiplication.  Afterwards ``deck[j] = (k_{0,j} ⋯ k_{m-1,j})·P_{π(j)}``.  A
   single key per peer could not be used to deal: revealing it to one player would
   open the whole deck; per-slot keys let each card be opened on its own.

With its lock pass a peer also publishes :func:`key_commitments` (16 bytes each) for its slot keys.
To deal slot ``j`` to player ``q`` every other peer sends ``k_{p,j}`` to ``q``
privately (:mod:`p2php.crypto.channel`); ``q`` checks each key against its
commitment, and :func:`open_point` with all ``m`` keys gives ``P_{π(j)}``, which a
:class:`PointBook` turns back into a card id.  Revealing a card to the table is the
same with the keys broadcast.  A lie is caught at once when a key does not match its
commitment, and at the latest at the audit: every peer derived all its secrets
deterministically from one seed (:meth:`DeckSecrets.derive`), so once the seeds are
revealed anyone recomputes every pass and checks it (:func:`verify_shuffle_pass`,
:func:`verify_lock_pass`), and a card that opened to no card point names its culprit.

**Secret composition** (a trading-card-game deck whose list the opponents must not
see): the owner's first pass runs on its *private* list of card points instead of a
public one; see :func:`owner_mask` and :func:`owner_instances`.

**Hidden hands** can be re-randomised so that positions learnt earlier (a card an
opponent gave you) are forgotten before a "random card from your hand" pick; see
:func:`rerandomise`.

Everything here is pure computation: no I/O and no global randomness (secrets come
from a seed the caller drew at the edge).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from p2php import tags
from p2php.canonical import digest
from p2php.crypto.group import (
    ORDER,
    POINT_SIZE,
    hash_to_point,
    inverse,
    is_point,
    mul,
    mul_many,
    random_scalar,
)
from p2php.rng import DetRng

__all__ = [
    "DeckSecrets",
    "PointBook",
    "card_points",
    "check_deck_shape",
    "check_key_commitment",
    "combine_keys",
    "key_commitment",
    "key_commitments",
    "lock_pass",
    "open_point",
    "owner_instances",
    "owner_mask",
    "pack",
    "rekey_pass",
    "rerandomise",
    "reshuffle_lock_pass",
    "shuffle_pass",
    "unpack",
    "verify_lock_pass",
    "verify_shuffle_pass",
]

SEED_SIZE = 32
COMMITMENT_SIZE: Final = 8  # bytes of a slot key commitment: the head of its digest (see key_commitment; v8)


def _index(i: int) -> bytes:
    """Card, seat and slot numbers as 4 big-endian bytes (unambiguous inside a digest)."""
    return i.to_bytes(4, "big")


# ---------------------------------------------------------------------------- card points


@lru_cache(maxsize=64)
def _card_points(domain: bytes, count: int) -> tuple[bytes, ...]:
    return tuple(hash_to_point(domain, _index(i)) for i in range(count))


def card_points(domain: bytes, count: int) -> list[bytes]:
    """Plaintext points of card instances ``0 .. count-1``: ``hash_to_point(domain, i)``.

    ``domain`` names the deck (game, deck kind, session), so points never repeat across
    decks and a ciphertext from one deck is useless in another.
    """
    if count < 0:
        raise ValueError("count must be >= 0")
    return list(_card_points(domain, count))


class PointBook:
    """The plaintext points of one deck and the reverse map point → card id.

    Opening a slot yields a point; the book says which card instance it is, or
    ``None`` when the point is no card of this deck (someone used a wrong key).
    """

    __slots__ = ("domain", "points", "_ids")

    def __init__(self, domain: bytes, count: int) -> None:
        self.domain = domain
        self.points: list[bytes] = card_points(domain, count)
        self._ids = {p: i for i, p in enumerate(self.points)}

    def __len__(self) -> int:
        return len(self.points)

    def card_of(self, point: bytes) -> int | None:
        """The card id whose point is ``point``, or ``None``."""
        return self._ids.get(point)


# ---------------------------------------------------------------------------- secrets


@dataclass(frozen=True)
class DeckSecrets:
    """One peer's secrets for one deck, all derived from a single 32-byte seed.

    Deriving instead of drawing is what makes the audit possible: revealing the seed
    after the game lets everyone recompute the shuffle key, the permutation and every
    slot key, and check each pass this peer made.  The seed must be fresh for every
    (peer, deck) -- the ``context`` guards against accidental reuse across decks.
    """

    seed: bytes = field(repr=False)
    context: bytes
    shuffle_key: int = field(repr=False)
    permutation: list[int] = field(repr=False)
    slot_keys: list[int] = field(repr=False)
    rekey_key: int = field(default=1, repr=False)  # a reshuffle deck's e' (drawn last; see rekey_pass)

    @property
    def size(self) -> int:
        """Number of cards of the deck these secrets are for."""
        return len(self.permutation)

    @classmethod
    def derive(cls, seed: bytes, context: bytes, size: int) -> DeckSecrets:
        """Secrets for a deck of ``size`` cards, bound to ``context``.

        Draw order (part of the protocol, do not change): the shuffle key, then the
        permutation (Fisher–Yates, :meth:`DetRng.permutation`), then one slot key per
        final slot ``0 .. size-1``, then the rekey key ``e'`` (used only by a reshuffle
        deck, :func:`rekey_pass`; drawn last, so no earlier draw changed when it came).
        """
        if not isinstance(seed, bytes) or len(seed) != SEED_SIZE:
            raise ValueError(f"a deck seed is {SEED_SIZE} random bytes")
        if size < 0:
            raise ValueError("size must be >= 0")
        rng = DetRng(digest(tags.DECK, seed, context))
        shuffle_key = random_scalar(rng)
        permutation = rng.permutation(size)
        slot_keys = [random_scalar(rng) for _ in range(size)]
        rekey_key = random_scalar(rng)
        return cls(seed, context, shuffle_key, permutation, slot_keys, rekey_key)


def _check_size(secrets: DeckSecrets, deck: Sequence[bytes]) -> None:
    if len(deck) != secrets.size:
        raise ValueError(f"secrets are for {secrets.size} cards, the deck has {len(deck)}")


# ---------------------------------------------------------------------------- the passes


def shuffle_pass(secrets: DeckSecrets, deck_in: Sequence[bytes]) -> list[bytes]:
    """Permute and lock under the single shuffle key: ``out[j] = e·in[perm[j]]``."""
    _check_size(secrets, deck_in)
    return mul_many([deck_in[i] for i in secrets.permutation], secrets.shuffle_key)


def lock_pass(secrets: DeckSecrets, deck_in: Sequence[bytes]) -> list[bytes]:
    """Swap the shuffle lock for per-slot locks: ``out[j] = (k_j·e⁻¹)·in[j]``.

    One multiplication per card instead of two, and the intermediate "shuffle lock
    removed" deck never exists, so it cannot leak.
    """
    _check_size(secrets, deck_in)
    e_inv = inverse(secrets.shuffle_key)
    return [mul(p, k * e_inv % ORDER) for p, k in zip(deck_in, secrets.slot_keys, strict=True)]


def rekey_pass(secrets: DeckSecrets, deck_in: Sequence[bytes], old_keys: Sequence[int | None]) -> list[bytes]:
    """A reshuffle's first round (no permutation): swap this seat's old lock of each card for one key ``e'``.

    ``deck_in[i]`` is input ``i`` of the reshuffle (a face-down slot's ciphertext, or a public card's point, or the
    previous seat's output); ``old_keys[i]`` is this seat's slot key of that old slot, or ``None`` for a public
    card. ``out[i] = (e'·k_i⁻¹)·in[i]`` (``e'·in[i]`` for a public card). After every seat's pass each entry is
    ``(e'_0 ⋯ e'_{m-1})·P``, one key per seat for the whole deck, so the ordinary shuffle round can follow.
    """
    _check_size(secrets, deck_in)
    if len(old_keys) != len(deck_in):
        raise ValueError("one old key (or None) per input")
    e = secrets.rekey_key
    return [mul(p, e if k is None else e * inverse(k) % ORDER) for p, k in zip(deck_in, old_keys, strict=True)]


def reshuffle_lock_pass(secrets: DeckSecrets, deck_in: Sequence[bytes]) -> list[bytes]:
    """A reshuffle's lock round: ``out[j] = (k_j·(e·e')⁻¹)·in[j]``, removing both the shuffle and the rekey lock."""
    _check_size(secrets, deck_in)
    strip = inverse(secrets.shuffle_key * secrets.rekey_key % ORDER)
    return [mul(p, k * strip % ORDER) for p, k in zip(deck_in, secrets.slot_keys, strict=True)]


def key_commitment(context: bytes, seat: int, slot_index: int, key: int) -> bytes:
    """Commitment to one slot key, published with the lock pass: the first :data:`COMMITMENT_SIZE` bytes of a digest.

    The key is a uniform 256-bit scalar, so a plain hash hides it; ``context``,
    ``seat`` and ``slot_index`` bind it so a key cannot be replayed for another slot,
    seat or deck.

    Why 8 bytes suffice (v8; 16 in v5 to v7): the commitment only names a wrong key *at once*; it is not what
    keeps a seat honest. A key that matches the commitment but is not the locking key cannot be chosen to open the
    slot to a card of the cheater's choice (that needs a discrete log between card points), so its slot opens to
    no card (named at the audit, ``bad_card`` then ``bad_key``); the audit re-derives every key from the released
    seed and compares it, whatever the commitment says; and such a key is a second preimage of a 64-bit truncated
    SHA-256 under this deck's context, seat and index: about 2^64 hashes, made before the slot's key is due (a
    game waits 30 s), for that one slot. Every commitment goes to every seat with each lock pass, so its size is a
    quarter of a fast deck's pass bytes at 4 seats.
    """
    h = _commitment_prefix(context, seat).copy()
    h.update(_INDEX_LENGTH + _index(slot_index) + _KEY_LENGTH + key.to_bytes(32, "big"))
    return h.digest()[:COMMITMENT_SIZE]


@lru_cache(maxsize=1024)
def _commitment_prefix(context: bytes, seat: int) -> hashlib._Hash:
    """The hash state of ``digest(tags.KEY, context, _index(seat), …)`` after its first three parts (never updated:
    callers copy it). Every key of a deck's seat shares them, and a table checks thousands of keys."""
    h = hashlib.sha256()
    for part in (tags.KEY, context, _index(seat)):
        h.update(len(part).to_bytes(8, "big") + part)
    return h


_INDEX_LENGTH: Final = (4).to_bytes(8, "big")  # the length prefix of a slot index's 4 bytes in a commitment's digest
_KEY_LENGTH: Final = (32).to_bytes(8, "big")  # the length prefix of a key's 32 bytes in a commitment's digest


def key_commitments(secrets: DeckSecrets, context: bytes, seat: int) -> list[bytes]:
    """Commitments to all of ``secrets.slot_keys``, slot by slot (:func:`key_commitment` of each)."""
    return [key_commitment(context, seat, j, k) for j, k in enumerate(secrets.slot_keys)]


def check_key_commitment(commitment: bytes, context: bytes, seat: int, slot_index: int, key: int) -> bool:
    """Whether ``key`` is the key committed to; never raises on a malformed key."""
    if not isinstance(key, int) or isinstance(key, bool) or not 1 <= key < ORDER:
        return False
    return key_commitment(context, seat, slot_index, key) == commitment


def pack(items: Sequence[bytes]) -> bytes:
    """Equal-size byte strings as one: ``items[0] ‖ items[1] ‖ …`` (a pass's points, a lock's commitments).

    One msgpack bin for a whole deck instead of one per entry saves the entries' headers (§6.4); the receiver
    splits it again with :func:`unpack`, knowing the item size.
    """
    if items and any(len(item) != len(items[0]) for item in items):
        raise ValueError("pack needs items of one size")
    return b"".join(items)


def unpack(blob: bytes, item_size: int) -> list[bytes]:
    """``blob`` cut into ``item_size``-byte items, in order: the inverse of :func:`pack`.

    Raises ``ValueError`` unless ``len(blob)`` is a whole multiple of ``item_size`` (an empty blob is zero
    items; the caller checks the count it expects).
    """
    if item_size <= 0:
        raise ValueError("item_size must be > 0")
    if len(blob) % item_size:
        raise ValueError(f"{len(blob)} bytes are not a whole number of {item_size}-byte items")
    return [blob[i : i + item_size] for i in range(0, len(blob), item_size)]


def combine_keys(keys: Sequence[int]) -> int:
    """The product of ``keys`` mod ``ORDER``: one scalar with the effect of all of them.

    A player who holds every key of a slot can hand a single combined key to someone
    else (e.g. after :func:`rerandomise`) without revealing the individual keys.
    """
    product = 1
    for k in keys:
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k < ORDER:
            raise ValueError("a key must be an int with 1 <= k < ORDER")
        product = product * k % ORDER
    return product


def open_point(cipher: bytes, keys: Sequence[int]) -> bytes:
    """Remove all ``keys`` from ``cipher`` at once: ``(∏keys)⁻¹·cipher``.

    With every lock of the slot the result is a card point (look it up in a
    :class:`PointBook`); with one missing it is a random-looking point that is no card.
    """
    return mul(cipher, inverse(combine_keys(keys)))


# ---------------------------------------------------------------------------- checks


def check_deck_shape(
    deck: Sequence[bytes], size: int, *, previous: Sequence[bytes] | None = None, on_curve: bool = True
) -> str | None:
    """Checks anyone can make on a pass output as soon as it arrives.

    Returns a reason string naming the problem, or ``None``.  A deck must have
    ``size`` entries, each a valid 32-byte point, all distinct (equal entries would
    mean equal cards or a copied ciphertext).  If ``previous`` (the pass input) is
    given, no output may equal an input entry: an honest pass changes every point
    except with negligible probability, so a hit means the pass was skipped or a card
    was passed through unlocked.

    ``on_curve=False`` skips the curve check (≈26 µs a point): the lockstep session
    uses it because the next peer's multiplication validates every point anyway and
    names the sender of an invalid one, so every receiver need not pay for it again.
    """
    if not isinstance(deck, list | tuple):
        return f"a deck is a list of points, got {type(deck).__name__}"
    if len(deck) != size:
        return f"expected {size} cards, got {len(deck)}"
    seen: dict[bytes, int] = {}
    for i, p in enumerate(deck):
        if not isinstance(p, bytes) or len(p) != POINT_SIZE:
            return f"entry {i} is not a {POINT_SIZE}-byte point"
        if on_curve and not is_point(p):
            return f"entry {i} is not on the curve"
        if p in seen:
            return f"entries {seen[p]} and {i} are equal"
        seen[p] = i
    if previous is not None:
        for i, p in enumerate(previous):
            if p in seen:
                return f"entry {seen[p]} equals input entry {i}: the pass did not lock it"
    return None


def verify_shuffle_pass(deck_in: Sequence[bytes], deck_out: Sequence[bytes], shuffle_key: int) -> bool:
    """Audit: ``e⁻¹·deck_out`` is ``deck_in`` up to order (the permutation is not needed)."""
    if len(deck_in) != len(deck_out):
        return False
    try:
        back = mul_many(deck_out, inverse(shuffle_key))
    except ValueError:
        return False
    return Counter(back) == Counter(deck_in)


def verify_lock_pass(
    deck_in: Sequence[bytes], deck_out: Sequence[bytes], shuffle_key: int, slot_keys: Sequence[int]
) -> bool:
    """Audit: every ``deck_out[j]`` is ``(k_j·e⁻¹)·deck_in[j]``."""
    if not len(deck_in) == len(deck_out) == len(slot_keys):
        return False
    try:
        e_inv = inverse(shuffle_key)
        for p, q, k in zip(deck_in, deck_out, slot_keys, strict=True):
            if mul(p, combine_keys([k, e_inv])) != q:
                return False
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------- secret composition


def owner_instances(card_types: Sequence[int], max_copies: int, rng: DetRng) -> list[int]:
    """Instance ids for an owner's private deck list, one distinct id per copy.

    The pool of a secret-composition game has ``max_copies`` points per card type
    (``PointBook(pool_domain, n_types * max_copies)``, instance ``t*max_copies + c``
    is copy ``c`` of type ``t``).  Each copy must be its own point: masking equal
    points gives equal ciphertexts and would show how many copies the deck holds.
    The copy numbers are picked at random (not ``0, 1, 2 ...``) so that revealing
    "copy 3 of X" tells nothing about how many X the deck has.  The type of an
    instance is ``instance // max_copies``.
    """
    counts = Counter(card_types)
    pick: dict[int, list[int]] = {}
    for t in sorted(counts):
        if counts[t] > max_copies:
            raise ValueError(f"{counts[t]} copies of card type {t}, at most {max_copies}")
        pick[t] = rng.permutation(max_copies)[: counts[t]]
    return [t * max_copies + pick[t].pop() for t in card_types]


def owner_mask(secrets: DeckSecrets, points: Sequence[bytes]) -> list[bytes]:
    """The owner's first shuffle pass over its *private* deck list (secret composition).

    How a hidden-list deck runs: the owner maps its list to pool points
    (:func:`owner_instances`), and broadcasts ``owner_mask(secrets, points)``, which is
    just :func:`shuffle_pass` on an input nobody else sees.  Under DDH the output
    reveals only the deck size.  The other peers then make their shuffle passes and
    everyone (owner included) its lock pass exactly as for a public deck, and slots
    open to pool points.  The owner's pass cannot be checked when made (its input is
    private); at the audit ``mul_many(output, inverse(e_owner))`` recovers the owner's
    list, which is checked against the deck-building rules and any commitment the
    owner made to it.  Input points must be distinct (see :func:`owner_instances`).
    """
    if len(set(points)) != len(points):
        raise ValueError("an owner's deck needs one distinct point per card (see owner_instances)")
    return shuffle_pass(secrets, points)


def rerandomise(secrets: DeckSecrets, ciphers: Sequence[bytes]) -> list[bytes]:
    """Re-shuffle a hidden hand: ``out[j] = k_j·ciphers[perm[j]]`` (a lock-like pass).

    Why: slot positions leak over a game (an opponent who passed you a card knows
    where it sits).  Before a "random card from your hand" pick the owner applies this
    pass with fresh secrets (a new context); the new ciphertexts are unlinkable to the
    old ones under DDH, so the others forget every position.  The owner knows its
    permutation, so new slot ``j`` opens with ``combine_keys([k_j, *old keys of slot
    perm[j]])``, a single scalar the owner can hand to whoever must see the card; any
    scalar that opens a published ciphertext to a card point proves that card (another
    card would need a discrete log between card points).

    Other peers may add their own ``rerandomise`` passes after the owner's (a Shuffle
    of the hand by the owner + others), each then handing the owner its permutation
    and keys privately, so that the positions are uniform even if the owner arranged
    its pass badly.  To hide positions from the owner too, re-deal the hand as a
    secret-composition deck instead: :func:`owner_mask` on the hand's plaintext
    points, others' :func:`shuffle_pass`, everyone's :func:`lock_pass`.

    Audit: ``rerandomise(DeckSecrets.derive(seed, ...), ciphers) == output``.
    """
    _check_size(secrets, ciphers)
    return [mul(ciphers[i], k) for i, k in zip(secrets.permutation, secrets.slot_keys, strict=True)]
