"""The verified deck: every key, shuffle pass and opening share proven when it is made (protocol.md Appendix B.10).

Why a second deck: the SRA deck of :mod:`p2php.crypto.deck` checks its passes only at the audit, so one cheater can
plant a relation between two cards (``Y = 2·X``) that every honest pass preserves, and find the pair afterwards;
and its audit must reveal every seat's secrets, hence every unplayed card. Here each step carries a proof checked
on arrival, so a bad step is named at the step, and the audit needs no secret at all. Built only from the landed
primitives (:mod:`~p2php.crypto.elgamal`, :mod:`~p2php.crypto.proofs`, :mod:`~p2php.crypto.bayer_groth`).

1. **Key round.** Seat ``p`` derives ``x_p`` from its deck seed (:meth:`SeatSecrets.derive`) and publishes
   :func:`make_key_share`: ``Y_p = x_p·G`` with a Schnorr proof. :func:`joint_key` checks every share and proof
   and returns ``Y = Σ Y_p``.
2. **Initial deck.** :func:`public_deck`: card ``c`` is the point ``M_c`` of the deck's :class:`CardBook`, and the
   deck is ``(G, M_c + Y)``, which everyone computes alike.
3. **Passes.** Seats in order: :func:`make_pass` permutes and re-masks the whole deck and proves it (Bayer–
   Groth, since v7); every other seat runs :func:`check_pass` on the received outputs before taking them as the next
   input. A deck is hidden from a coalition as long as one seat's pass was honest *and secret*.
4. **Opening a slot** needs every seat's decryption share ``D_p = x_p·a`` (:func:`make_shares`, with one
   Chaum–Pedersen proof for all of a seat's shares under one key); :func:`check_shares` verifies them against
   ``Y_p``; :func:`open_slot` combines all of them and looks the point up in the book. Who sends what to whom
   (:func:`deal_duties`, :func:`reveal_duties`, :func:`show_duties`): a deal sends the other shares privately to
   the recipient, *which verifies each proof* and adds its own share itself, so nobody else can ever open the
   card; a reveal broadcasts every share and everyone verifies; a private show sends the viewer every share but
   the owner's first, and the owner's last.
5. **Secret composition** (a trading-card deck): the owner's first pass is a *selection*: a proven pass
   (:func:`make_pass` with its own permutation) over the public encryption of the game's pool for that deck,
   whose first ``size`` outputs are its deck. The proof shows they are distinct cards of the pool, and the game
   states its deck rules as that pool, so the rules are proven at the step and nothing about the composition is
   ever opened; only the other seats' passes hide the order from the owner.
6. **Rerandomise a hidden hand**: :func:`rerandomise_hand` is a pass over the hand's slots, proven the same way.

Contexts are built by the caller with :func:`deck_context` (session id, deck number, phase, engine step, pass or
slot index, prover seat, transcript hash), so no proof replays into another game, deck, step, pass, slot or seat.
Failures raise :class:`DeckFault`, whose ``why`` is the session's ``FaultCode`` value and whose ``seat`` is the
culprit; malformed remote input is refused with it before any group operation. Pure and deterministic: every secret
and nonce comes from the seat's seed, through :meth:`SeatSecrets.rng`, which hashes in the proof's context and
statement so that no nonce ever answers two challenges (that would reveal the key).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from p2php import tags
from p2php.canonical import digest
from p2php.crypto.bayer_groth import MAX_SHUFFLE, BgShuffleProof, prove_shuffle, verify_shuffle, verify_shuffles
from p2php.crypto.elgamal import Ciphertext, card_point, combine_shares, initial_deck, remask
from p2php.crypto.proofs import (
    KeyProof,
    ShareProof,
    proof_context,
    prove_key,
    prove_shares,
    verify_key,
    verify_shares,
)
from p2php.crypto.secp256k1 import (
    POINT_SIZE,
    SCALAR_SIZE,
    InvalidEncoding,
    Point,
    base_mul,
    decode_point,
    random_scalar,
    sum_points,
)
from p2php.crypto.shuffle_statement import check_statement
from p2php.errors import P2phpError
from p2php.rng import DetRng

__all__ = [
    "BAD_CARD", "BAD_KEY", "BAD_PASS", "BAD_SECRET_DECK", "MAX_SHUFFLE", "PHASES", "CardBook", "DeckFault",
    "KeyShare", "Pass", "ReceivedPass", "SeatSecrets", "check_pass", "check_passes", "read_pass",
    "check_shares", "deal_duties", "deck_context", "joint_key", "make_key_share", "make_pass",
    "make_shares", "open_slot", "public_deck", "rerandomise_hand", "reveal_duties",
    "show_duties",
]

#: ``DeckFault.why`` values: equal to the session's ``FaultCode`` values (crypto must not import the session).
BAD_KEY: Final = "bad_key"  # a key share or decryption share whose proof fails, or that is missing
BAD_PASS: Final = "bad_pass"  # a pass that is malformed or whose shuffle proof fails
BAD_CARD: Final = "bad_card"  # a slot that opened to no card of the book
BAD_SECRET_DECK: Final = "bad_secret_deck"  # a secret deck not drawn from its pool (its selection pass fails)

#: The phases of :func:`deck_context`: what a proof is for, hashed into its context.
PHASES: Final = frozenset({"key", "pass", "open", "hand", "witness"})

SEED_SIZE: Final = 32


class DeckFault(P2phpError, ValueError):
    """A step of a verified deck that is refused: ``why`` (a ``FaultCode`` value), the culprit ``seat``, a reason."""

    def __init__(self, why: str, seat: int | None, reason: str) -> None:
        super().__init__(reason)
        self.why = why
        self.seat = seat


def _u32(i: int) -> bytes:
    return i.to_bytes(4, "big")


def deck_context(session_id: bytes, deck: int, phase: str, step: int, index: int, seat: int,
                 transcript: bytes = b"") -> bytes:
    """The 32-byte proof context of one step: ``proof_context(D(DECK tag, session, u32(deck), phase), …)``.

    ``phase`` is one of :data:`PHASES`; ``step`` the engine step (tick); ``index`` the pass number for ``"pass"``
    and ``"hand"``, the deck slot index for ``"open"``, 0 otherwise; ``seat`` the prover; ``transcript`` a hash every
    peer holds alike at that point (the session uses the head of the signed transcript the step answers).
    """
    if phase not in PHASES:
        raise ValueError(f"deck_context: phase must be one of {sorted(PHASES)}, got {phase!r}")
    return proof_context(_deck_game(session_id, deck, phase), step, index, seat, transcript)


@lru_cache(maxsize=256)
def _deck_game(session_id: bytes, deck: int, phase: str) -> bytes:
    """``D(DECK tag, session, u32(deck), phase)``: the same for every slot and seat of a deck's phase."""
    return digest(tags.VERIFIED_DECK, session_id, _u32(deck), phase.encode())


@dataclass(frozen=True)
class SeatSecrets:
    """One seat's secrets for one deck, all derived from a 32-byte seed (reproducible, so a seat can resume)."""

    seed: bytes = field(repr=False)
    context: bytes
    x: int = field(repr=False)

    @classmethod
    def derive(cls, seed: bytes, context: bytes) -> SeatSecrets:
        """The key share ``x`` from ``D(DECK_SECRET tag, seed, context, "key")``; ``context`` names the deck."""
        if not isinstance(seed, bytes) or len(seed) != SEED_SIZE:
            raise ValueError(f"a deck seed is {SEED_SIZE} random bytes")
        return cls(seed, context, random_scalar(DetRng(digest(tags.VERIFIED_DECK_SECRET, seed, context, b"key"))))

    def rng(self, purpose: bytes, ctx: bytes, *statement: bytes) -> DetRng:
        """The generator of one proof: from the seed, the deck, the purpose, the proof context and the statement.

        Deriving the nonces from the context and statement (as RFC 6979 does from the message) means two different
        challenges never meet one nonce, which would reveal ``x``.
        """
        return DetRng(digest(tags.VERIFIED_DECK_SECRET, self.seed, self.context, purpose, ctx, *statement))


# ----------------------------------------------------------------------------- key round


@dataclass(frozen=True, slots=True)
class KeyShare:
    """``Y_p`` and the Schnorr proof that its seat knows ``x_p``."""

    y: Point
    proof: KeyProof

    def encode(self) -> bytes:
        """97 bytes: ``Y_p`` then ``c || s``."""
        return self.y.encode() + self.proof.encode()


def make_key_share(ctx: bytes, secrets: SeatSecrets) -> KeyShare:
    """This seat's key share under its ``"key"`` context."""
    return KeyShare(base_mul(secrets.x), prove_key(ctx, secrets.x, secrets.rng(b"key", ctx)))


_PAIR_SIZE: Final = POINT_SIZE + 2 * SCALAR_SIZE  # a point and a sigma proof: a KeyShare on the wire


def _point(raw: object, who: int, why: str, what: str) -> Point:
    if isinstance(raw, Point) and not raw.is_identity:
        return raw
    try:
        return decode_point(raw)
    except InvalidEncoding as exc:
        raise DeckFault(why, who, f"{what}: {exc}") from None


def _key_share(raw: object, seat: int) -> KeyShare:
    """A :class:`KeyShare` given as the object or its 97 bytes, its point checked (its proof by the verifier)."""
    what = f"seat {seat}'s key share"
    if isinstance(raw, bytes) and len(raw) == _PAIR_SIZE:
        try:
            return KeyShare(decode_point(raw[:POINT_SIZE]), KeyProof.decode(raw[POINT_SIZE:]))
        except InvalidEncoding as exc:
            raise DeckFault(BAD_KEY, seat, f"{what}: {exc}") from None
    if isinstance(raw, KeyShare):
        return KeyShare(_point(raw.y, seat, BAD_KEY, what), raw.proof)
    raise DeckFault(BAD_KEY, seat, f"{what} is not a key share nor its {_PAIR_SIZE} bytes")


def _ciphertext(raw: object) -> Ciphertext:
    """A ciphertext given as the object (both parts points other than the identity) or its 66 bytes."""
    if isinstance(raw, Ciphertext) and all(isinstance(p, Point) and not p.is_identity for p in (raw.a, raw.b)):
        return raw
    return Ciphertext.decode(raw)


def joint_key(contexts: Sequence[bytes], shares: Sequence[object]) -> Point:
    """``Y = Σ Y_p`` once every seat's share and proof is checked; ``shares[p]`` is seat ``p``'s :class:`KeyShare`
    (or its 97 bytes).

    The Schnorr proofs, each bound to its seat's context, stop a rogue-key share (``Y_q − Y_p`` chosen to cancel
    the others' keys). A share that repeats another seat's is refused as well.
    """
    if len(contexts) != len(shares) or not 1 <= len(shares) <= 1 << 16:
        raise ValueError("joint_key needs one context and one share per seat")
    seen: dict[Point, int] = {}
    for seat, (ctx, share) in enumerate(zip(contexts, shares, strict=True)):
        checked = _key_share(share, seat)
        y = checked.y
        try:
            ok = verify_key(ctx, y, checked.proof)
        except InvalidEncoding as exc:
            raise DeckFault(BAD_KEY, seat, f"seat {seat}'s key proof: {exc}") from None
        if not ok:
            raise DeckFault(BAD_KEY, seat, f"seat {seat}'s key proof does not verify")
        if y in seen:
            raise DeckFault(BAD_KEY, seat, f"seat {seat}'s key share repeats seat {seen[y]}'s")
        seen[y] = seat
    y = sum_points(seen)
    if y.is_identity:  # unreachable with valid proofs unless keys were chosen to cancel
        raise DeckFault(BAD_KEY, len(shares) - 1, "the key shares sum to the identity")
    return y


# ----------------------------------------------------------------------------- cards


@lru_cache(maxsize=32)
def _book(domain: bytes, count: int) -> tuple[tuple[Point, ...], dict[Point, int]]:
    points = tuple(card_point(domain, i) for i in range(count))
    return points, {p: i for i, p in enumerate(points)}


class CardBook:
    """The card points of one deck domain, ids ``0 … count-1``, and the way back from a point to its card id."""

    __slots__ = ("domain", "points", "_ids")

    def __init__(self, domain: bytes, count: int) -> None:
        if not 0 <= count <= 1 << 20:
            raise ValueError("a card book holds 0 to 2^20 cards")
        self.domain = domain
        self.points, self._ids = _book(domain, count)

    def __len__(self) -> int:
        return len(self.points)

    def card_of(self, point: Point, slot: int | None = None) -> int:
        """The card id of ``point``; :class:`DeckFault` ``bad_card`` ("no such card") if it is none of the book's."""
        card = self._ids.get(point)
        if card is None:
            where = "" if slot is None else f"slot {slot} "
            raise DeckFault(BAD_CARD, None, f"{where}opened to no such card: a share or a ciphertext was wrong")
        return card


def _check_cards(book: CardBook, cards: Sequence[int]) -> list[Point]:
    if not 1 <= len(cards) <= MAX_SHUFFLE:
        raise ValueError(f"a verified deck holds 1 to {MAX_SHUFFLE} cards, not {len(cards)}")
    if len(set(cards)) != len(cards) or not all(isinstance(c, int) and 0 <= c < len(book) for c in cards):
        raise ValueError("a verified deck needs distinct card ids of its book")
    return [book.points[c] for c in cards]


def public_deck(book: CardBook, cards: Sequence[int], y: Point) -> list[Ciphertext]:
    """The public initial deck ``(G, M_c + Y)`` for the (distinct) card ids ``cards``; everyone computes the same."""
    return initial_deck(y, _check_cards(book, cards))


# ----------------------------------------------------------------------------- passes


@dataclass(frozen=True, slots=True)
class Pass:
    """One seat's pass: the permuted, re-masked deck and its proof of a shuffle."""

    outputs: tuple[Ciphertext, ...]
    proof: BgShuffleProof

    def wire(self) -> tuple[list[bytes], bytes]:
        """``(ciphertexts, proof)`` as bytes: 66 bytes per card and :meth:`BgShuffleProof.encode`."""
        return [ct.encode() for ct in self.outputs], self.proof.encode()


def _prove(ctx: bytes, y: Point, deck: Sequence[Ciphertext], rng: DetRng,
           perm: Sequence[int] | None = None) -> tuple[Pass, list[int]]:
    perm = rng.permutation(len(deck)) if perm is None else _checked_permutation(perm, len(deck))
    rhos = [random_scalar(rng) for _ in deck]
    outputs = [remask(y, deck[j], rho) for j, rho in zip(perm, rhos, strict=True)]
    return Pass(tuple(outputs), prove_shuffle(ctx, y, deck, outputs, perm, rhos, rng)), perm


def _deck_digest(deck: Sequence[Ciphertext]) -> bytes:
    return digest(*(ct.hash_bytes() for ct in deck))


def make_pass(ctx: bytes, y: Point, deck: Sequence[Ciphertext], secrets: SeatSecrets,
              permutation: Sequence[int] | None = None) -> Pass:
    """Shuffle and re-mask the whole ``deck`` under ``Y`` and prove it, in this seat's ``"pass"`` context.

    ``permutation`` (output ``j`` holds input ``permutation[j]``) replaces the one drawn from the seat's secrets:
    only a stacked test deck passes one (:mod:`p2php.testing.stacking`). The proof is the same either way — it
    shows that *a* permutation was applied, never which — so a receiver cannot tell and need not.
    """
    # A given permutation is part of the statement the randomness answers: the same step made again with another
    # one (an own deck's list edited between a crash and its resume) must not re-mask with the same values, which
    # would let anyone holding both passes compare them.
    given = () if permutation is None else (b"".join(int(j).to_bytes(2, "big") for j in permutation),)
    return _prove(ctx, y, deck, secrets.rng(b"pass", ctx, _deck_digest(deck), *given), permutation)[0]


def _checked_permutation(perm: Sequence[int], n: int) -> list[int]:
    out = [int(j) for j in perm]
    if sorted(out) != list(range(n)):
        raise ValueError(f"not a permutation of {n} entries")
    return out


@dataclass(frozen=True)
class ReceivedPass:
    """A received pass whose form is checked (sizes, encodings) and whose proof is not yet: see :func:`check_passes`."""

    ctx: bytes
    y: Point
    inputs: tuple[Ciphertext, ...]
    outputs: tuple[Ciphertext, ...]
    proof: BgShuffleProof
    seat: int
    name: str  # "seat S's pass k of deck D", for the fault's reason


def read_pass(ctx: bytes, y: Point, deck: Sequence[Ciphertext], outputs: object, proof: object, *,
              seat: int, label: str = "pass") -> ReceivedPass:
    """The received pass decoded, everything but its proof checked: :class:`DeckFault` ``bad_pass`` if not well formed.

    ``outputs`` is a list of :class:`Ciphertext` or of 66-byte encodings, ``proof`` a :class:`BgShuffleProof` or its
    bytes. Sizes are checked before anything is decoded, and encodings before any group operation.
    """
    name = f"seat {seat}'s {label}"
    n = len(deck)
    if not isinstance(outputs, list | tuple) or len(outputs) != n:
        got = len(outputs) if isinstance(outputs, list | tuple) else type(outputs).__name__
        raise DeckFault(BAD_PASS, seat, f"{name}: expected {n} ciphertexts, got {got}")
    try:
        cts = tuple(_ciphertext(ct) for ct in outputs)
        if not isinstance(proof, BgShuffleProof):
            proof = BgShuffleProof.decode(proof)
        check_statement(ctx, y, deck, cts)
        if proof.count != n:
            raise InvalidEncoding(f"a proof for {proof.count} ciphertexts cannot prove a shuffle of {n}")
    except InvalidEncoding as exc:
        raise DeckFault(BAD_PASS, seat, f"{name} is malformed: {exc}") from None
    return ReceivedPass(ctx, y, tuple(deck), cts, proof, seat, name)


def check_passes(passes: Sequence[ReceivedPass]) -> None:
    """Every pass's proof holds, or :class:`DeckFault` ``bad_pass`` naming the sender of the first that fails.

    The proofs are checked together (:func:`~p2php.crypto.bayer_groth.verify_shuffles`: a deck that one pass outputs
    and the next takes in is multiplied once, not twice); only if that fails is each checked alone, in order, to
    know whose fails first. So the culprit is the one a check on arrival would have named.
    """
    if not passes:
        return
    try:
        if verify_shuffles([(p.ctx, p.y, p.inputs, p.outputs, p.proof) for p in passes]):
            return
    except InvalidEncoding:
        pass  # some proof is malformed: the checks one by one say whose
    for p in passes:
        try:
            ok = verify_shuffle(p.ctx, p.y, p.inputs, p.outputs, p.proof)
        except InvalidEncoding as exc:
            raise DeckFault(BAD_PASS, p.seat, f"{p.name} is malformed: {exc}") from None
        if not ok:
            raise DeckFault(BAD_PASS, p.seat, f"{p.name}: the shuffle proof does not verify")
    raise AssertionError("a batch failed whose proofs hold one by one")  # pragma: no cover - their sum holds too


def check_pass(ctx: bytes, y: Point, deck: Sequence[Ciphertext], outputs: object, proof: object, *,
               seat: int, label: str = "pass") -> list[Ciphertext]:
    """The received pass's outputs once its proof holds; :class:`DeckFault` ``bad_pass`` naming ``label`` if not
    (:func:`read_pass` then :func:`check_passes` of that one pass)."""
    received = read_pass(ctx, y, deck, outputs, proof, seat=seat, label=label)
    check_passes([received])
    return list(received.outputs)


def rerandomise_hand(ctx: bytes, y: Point, hand: Sequence[Ciphertext],
                     secrets: SeatSecrets) -> tuple[Pass, list[int]]:
    """A proven pass over a hidden hand's ciphertexts (``"hand"`` context) and its permutation.

    Why: positions leak over a game (who gave you which card); after this pass, checked by everyone with
    :func:`check_pass`, they are unlinkable. The owner keeps the permutation: new slot ``i`` holds the card of old
    slot ``perm[i]``, so it still knows its hand without new shares. Opening a new slot to anyone else needs fresh
    shares from every seat (the old ones open only the old ciphertexts).
    """
    return _prove(ctx, y, hand, secrets.rng(b"hand", ctx, _deck_digest(hand)))


# ----------------------------------------------------------------------------- opening


def make_shares(ctxs: Sequence[bytes], secrets: SeatSecrets, cts: Sequence[Ciphertext]) -> tuple[list[Point], bytes]:
    """This seat's shares of opening ``cts`` (all under the key of ``secrets``) and their one batch proof (64 bytes),
    each share in the ``"open"`` context of its slot (``ctxs``, in the same order)."""
    points = [ct.a for ct in cts]
    rng = secrets.rng(b"shares", b"".join(ctxs), *(ct.hash_bytes() for ct in cts))
    ds, proof = prove_shares(ctxs, secrets.x, points, rng)
    return ds, proof.encode()


def share_point(raw: object, *, seat: int, slot: int) -> Point:
    """A decryption share's point from its 33 bytes (strictly decoded, never the identity), else ``bad_key``."""
    return _point(raw, seat, BAD_KEY, f"seat {seat}'s share for slot {slot}")


def check_shares(ctxs: Sequence[bytes], y_p: Point, cts: Sequence[Ciphertext], ds: Sequence[Point], proof: object,
                 *, seat: int, slots: Sequence[int]) -> None:
    """Nothing if one batch ``proof`` shows every ``ds[i] = x_p·a_i`` for seat ``seat``'s ``Y_p``; else
    :class:`DeckFault` ``bad_key`` naming the seat (``slots`` say which shares, for the message)."""
    what = f"seat {seat}'s shares for slot {', '.join(map(str, slots[:8]))}{', …' if len(slots) > 8 else ''}"
    try:
        ok = verify_shares(ctxs, y_p, [ct.a for ct in cts], ds, ShareProof.decode(proof))
    except InvalidEncoding as exc:
        raise DeckFault(BAD_KEY, seat, f"{what}: {exc}") from None
    if not ok:
        raise DeckFault(BAD_KEY, seat, f"{what} fail their proof")


def open_slot(book: CardBook, ct: Ciphertext, shares: Mapping[int, Point], players: int, *, slot: int) -> int:
    """The card id of ``ct`` from every seat's (checked) share: ``M = b − Σ D_p``, then the book.

    A missing seat is a ``bad_key`` fault naming it (the caller decides whether it is late or withheld); a point
    that is no card is ``bad_card`` (impossible with checked shares and passes: a forged secret list).
    """
    missing = [s for s in range(players) if s not in shares]
    if missing:
        raise DeckFault(BAD_KEY, missing[0], f"slot {slot} lacks the shares of seats {missing}")
    return book.card_of(combine_shares(ct, [shares[s] for s in range(players)]), slot)


def deal_duties(players: int, to: int) -> list[int]:
    """Seats that send ``to`` their share privately: all others. ``to`` verifies each proof and adds its own."""
    return [s for s in range(players) if s != to]


def reveal_duties(players: int) -> list[int]:
    """Seats that broadcast their share of a reveal: all of them; every seat verifies every proof."""
    return list(range(players))


def show_duties(players: int, owner: int, viewer: int) -> tuple[list[int], list[int]]:
    """A private show of the owner's card to ``viewer``: ``(first, then)`` rounds of shares sent to the viewer.

    First every seat but the owner and the viewer, then the owner. The owner's share is the last lock of a card in
    its hand: it leaves only once the viewer holds every other checked share, so a show that fails (a wrong or
    withheld share, named on arrival) never leaves the viewer with the owner's share. The viewer adds its own.
    """
    if owner == viewer:
        raise ValueError("a private show is to another seat than the owner")
    return [s for s in range(players) if s not in (owner, viewer)], [owner]
