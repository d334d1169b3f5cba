"""The verified deck in the session (``crypto=verified``; protocol.md §6.3, §6.4 and Appendix B.10).

The lockstep machine keeps its schedule and its key duties in both modes; only what a "key" is changes. In a
verified deck a seat's key of a slot is its *decryption share* ``D_p = x_p·a`` with a Chaum–Pedersen proof, and a
``Shuffle`` is a key round (``deckkey``) then one proven ``pass`` per seat. Every key share and share is checked
when it arrives, against the receiver's own copy of the deck, so a bad step is named at the step
(:func:`deck_fault`) and the audit needs no secret. A pass is checked for its form when it arrives and for its
proof with the deck's other received passes at the deck's last pass (one batch: a deck one pass outputs and the
next takes in is multiplied once), before the deck is bound and any slot of it opened; the first failing pass is
named, as a check on arrival would have named it, and a peer that stops mid-shuffle checks the passes it holds
first (:meth:`VerifiedDeck.check_held_passes`, from the audit). :class:`VerifiedDeck` is the part of one
:class:`~p2php.session.lockstep.Lockstep` that does it; the lockstep calls it wherever the fast deck would use
keys and commitments.

Proof contexts: ``deck_context(session_id, deck, phase, tick, index, seat, transcript=state hash)``, where the
state hash is the ``state`` field of the message that carries the proof (checked equal to ours in ``_take``), so
prover and verifiers hold the same bytes and a resumed seat re-makes the same proofs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from p2php import tags
from p2php.canonical import digest
from p2php.crypto import verified_deck as vd
from p2php.crypto.elgamal import Ciphertext
from p2php.crypto.secp256k1 import (
    POINT_SIZE,
    Point,
    decode_point,
)
from p2php.engine.contract import CardId, Seat, Slot
from p2php.session.handshake import deck_seed
from p2php.session.messages import (
    CIPHERTEXT_SIZE,
    BadMessage,
    Message,
    body_field,
    body_only,
    bytes_list,
    share_lists,
)
from p2php.session.records import DeckRecord, Fault, FaultCode, FaultError, short

if TYPE_CHECKING:
    from p2php.session.decks import DeckSteps

__all__ = ["FAST_FIELDS", "VerifiedDeck", "deck_fault"]

FAST_FIELDS = frozenset({"keys", "commits"})
"""Body fields of the fast deck: a verified body that carries one is ``bad_message``."""


@dataclass(frozen=True)
class _HeldPass:
    """Another seat's pass checked for its form, its proof not yet: where it came (``at``), the code of its fault
    (``bad_secret_deck`` for a selection pass, else that of the check) and the deck it took in."""

    received: vd.ReceivedPass
    at: tuple[int, int]
    code: FaultCode | None
    before: list[Ciphertext]


def deck_fault(err: vd.DeckFault, at: tuple[int, int], code: FaultCode | None = None) -> FaultError:
    """The session fault of a refused deck step: ``FaultCode(err.why)`` (or ``code``), naming ``err.seat``."""
    return FaultError(Fault(err.seat, str(err), at, code or FaultCode(err.why)))


class VerifiedDeck:
    """One peer's verified decks: key rounds, proven passes, checked shares and opening."""

    def __init__(self, ls: DeckSteps) -> None:
        self.ls = ls
        self._book: vd.CardBook | None = None
        self._secrets: dict[int, vd.SeatSecrets] = {}
        self.shares: dict[Slot, dict[Seat, Point]] = {}  # checked public shares (the fast deck's released keys)
        self.shown: dict[Slot, dict[Seat, Point]] = {}  # checked shares sealed to us in a private show
        self._own_pass: tuple[list[bytes], tuple[Ciphertext, ...]] | None = None  # the wire and points of our last pass
        self._held: dict[int, list[_HeldPass]] = {}  # per deck: others' passes whose proofs are not checked yet

    # ------------------------------------------------------------------ helpers

    @property
    def book(self) -> vd.CardBook:
        """The card points of this table (built on the first verified deck)."""
        if self._book is None:
            ls = self.ls
            self._book = vd.CardBook(digest(tags.CARDS, ls.session_id, ls.game.name.encode()),
                                     ls.game.universe_size(ls.options))
        return self._book

    def ctx(self, rec: DeckRecord, phase: str, index: int, seat: Seat, when: tuple[int, bytes] | None = None) -> bytes:
        """The proof context of a step made now (the current tick and state hash), or at ``when``."""
        ls = self.ls
        tick, state = when if when is not None else (ls.tick, ls._state_hash)
        return vd.deck_context(ls.session_id, rec.number, phase, tick, index, seat, state)

    def secrets(self, number: int) -> vd.SeatSecrets:
        """Our secrets for deck ``number``, from the same seed derivation as the fast deck (so a resume agrees)."""
        ls = self.ls
        assert ls.secrets is not None
        rec = ls.decks[number]
        if rec.key_deck is not None:  # a reshuffle keeps its source deck's joint key, so our share of it too
            return self.secrets(rec.key_deck)
        if number not in self._secrets:
            self._secrets[number] = vd.SeatSecrets.derive(deck_seed(ls.secrets.decks_secret, rec.number),
                                                          rec.context)
        return self._secrets[number]

    def _slot(self, slot: Slot) -> tuple[DeckRecord, int, Ciphertext]:
        d, index = self.ls.slot_deck[slot]
        rec = self.ls.decks[d]
        return rec, index, rec.cts[index]

    def _initial(self, rec: DeckRecord) -> list[Ciphertext]:
        """The input of pass 0: the public deck, or for a secret deck the public encryption of its owner's pool."""
        if rec.hidden:
            return rec.start_cts
        assert rec.y is not None
        return vd.public_deck(self.book, self._pool(rec) if rec.owner is not None else rec.cards, rec.y)

    def start_reshuffle(self, rec: DeckRecord) -> None:
        """A reshuffle of face-down cards: it keeps their deck's joint key, and starts from their ciphertexts.

        A public card among them enters as ``(G, M_c + Y)``, the encryption with randomness 1 that anyone can
        compute; the first pass re-masks it with the rest, so after it nobody can tell it from the others.
        """
        ls = self.ls
        assert rec.key_deck is not None
        key = ls.decks[rec.key_deck]
        rec.y, rec.y_shares = key.y, dict(key.y_shares)
        assert rec.y is not None
        start: list[Ciphertext] = []
        for slot, face in zip(rec.inputs, rec.input_faces, strict=True):
            if face is not None:
                start.append(vd.public_deck(self.book, [face], rec.y)[0])
            else:
                start.append(self._slot(slot)[2])
        rec.start_cts = start

    def _pass_index(self, rec: DeckRecord) -> int:
        """The pass number of the current phase: after the key round, or from phase 0 in a reshuffle that keeps
        its source deck's key."""
        return self.ls.phase if rec.hidden else self.ls.phase - 1

    # ------------------------------------------------------------------ secret-composition decks

    def _pool(self, rec: DeckRecord) -> list[CardId]:
        """The card ids a secret deck's owner may choose from (:meth:`~p2php.engine.contract.Game.private_pool`).

        Any ``rec.size`` distinct ids of the pool make a legal deck, so the owner's proven selection pass proves
        the deck rules at the step, and nothing about the composition need ever be opened.
        """
        ls = self.ls
        assert rec.owner is not None
        raw = ls.game.private_pool(ls.options, rec.owner, rec.purpose)
        pool = list(range(len(self.book))) if raw is None else list(raw)
        if not rec.size <= len(pool) <= vd.MAX_SHUFFLE or len(set(pool)) != len(pool) or not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c < len(self.book) for c in pool
        ):
            raise FaultError(Fault(None, f"the game's pool for seat {rec.owner}'s {rec.purpose!r} deck must be "
                                   f"{rec.size} to {vd.MAX_SHUFFLE} distinct card ids", (ls.tick, ls.phase),
                                   FaultCode.INTERNAL))
        return pool

    def _selection(self, rec: DeckRecord) -> list[int]:
        """Our selection pass's permutation: our own list's places in the pool first, then the rest of the pool."""
        pool = self._pool(rec)
        cards = list(self.ls.private_decks.get(rec.purpose, ()))
        where = {c: i for i, c in enumerate(pool)}
        if len(cards) != rec.size or len(set(cards)) != len(cards) or not all(c in where for c in cards):
            raise ValueError(f"our private {rec.purpose!r} deck must be {rec.size} distinct card ids of the game's "
                             f"pool for it (the deck rules)")
        chosen = [where[c] for c in cards]
        taken = set(chosen)
        return chosen + [i for i in range(len(pool)) if i not in taken]

    # ------------------------------------------------------------------ shuffle

    def shuffle_expected(self, rec: DeckRecord) -> dict[Seat, str]:
        """Phase 0: every seat's key share; phase ``1 … n``: the pass of ``pass_order[phase − 1]``."""
        ls = self.ls
        if ls.phase == 0 and not rec.hidden:
            return {s: "deckkey" for s in range(ls.players)}
        return {rec.pass_order(ls.players)[self._pass_index(rec)]: "pass"}

    def own_shuffle_body(self, rec: DeckRecord, kind: str) -> dict[str, Any]:
        """Our ``deckkey`` or our ``pass`` over the current checked deck."""
        ls = self.ls
        assert ls.seat is not None
        secrets = self.secrets(rec.number)
        if kind == "deckkey":
            return {"key": vd.make_key_share(self.ctx(rec, "key", 0, ls.seat), secrets).encode()}
        assert rec.y is not None
        k = self._pass_index(rec)
        source = rec.cts if k > 0 else self._initial(rec)
        if k == 0 and rec.owner is not None:  # we own this secret deck: our selection pass over the whole pool
            perm: list[int] | None = self._selection(rec)
        else:
            perm = ls.deck_source.pass_permutation(ls.seat, rec)  # None but for a stacked test deck
        made = vd.make_pass(self.ctx(rec, "pass", k, ls.seat), rec.y, source, secrets, perm)
        cards, proof = made.wire()
        self._own_pass = (cards, made.outputs)  # our pass comes back to us: its points need not be decoded again
        return {"cards": cards, "proof": proof}

    def on_shuffle(self, rec: DeckRecord, msgs: list[tuple[Seat, Message]]) -> bool:
        """Check and store one Shuffle phase; True when the deck is final (its last pass checked)."""
        ls = self.ls
        if ls.phase == 0 and not rec.hidden:
            raw = []
            for _, msg in msgs:
                body_only(msg, FAST_FIELDS)
                raw.append(body_field(msg, "key", bytes))
            contexts = [self.ctx(rec, "key", 0, s) for s, _ in msgs]
            try:
                rec.y = vd.joint_key(contexts, raw)
            except vd.DeckFault as err:
                raise deck_fault(err, msgs[0][1].at if err.seat is None else msgs[err.seat][1].at) from None
            rec.y_shares = {s: _y_of(r) for (s, _), r in zip(msgs, raw, strict=True)}
            return False
        seat, msg = msgs[0]
        assert rec.y is not None
        body_only(msg, FAST_FIELDS)
        k = self._pass_index(rec)
        selection = k == 0 and rec.owner is not None  # the owner's pass over its whole pool; the deck is its head
        source = rec.cts if k > 0 else self._initial(rec)
        size = len(source)
        cards = bytes_list(msg, "cards", size, CIPHERTEXT_SIZE)
        proof = body_field(msg, "proof", bytes)
        if seat == ls.seat:  # our own pass (made here, or logged by us before a resume): decode, no proof run
            own, self._own_pass = self._own_pass, None
            outputs = list(own[1]) if own is not None and own[0] == cards else [Ciphertext.decode(c) for c in cards]
        else:
            label = (f"secret deck {rec.number}: its selection from the game's pool (the deck rules)" if selection
                     else f"pass {k} of {'reshuffled ' if rec.inputs else ''}deck {rec.number}")
            code = FaultCode.BAD_SECRET_DECK if selection else None
            try:
                received = vd.read_pass(self.ctx(rec, "pass", k, seat), rec.y, source, cards, proof, seat=seat,
                                        label=label)
            except vd.DeckFault as err:
                raise deck_fault(err, msg.at, code) from None
            self._held.setdefault(rec.number, []).append(_HeldPass(received, msg.at, code, rec.cts))
            outputs = list(received.outputs)
        rec.cts = outputs[:rec.size] if selection else outputs  # the rest of the pool is never used nor opened
        rec.passes.append((seat, "pass", cards))
        if k < ls.players - 1:
            return False
        self._check_held(rec)  # the deck's last pass: every proof before the deck is bound
        return True

    def _check_held(self, rec: DeckRecord) -> None:
        """Check the proofs of the passes of ``rec`` we hold unchecked, in one batch; the first bad one is the fault.

        Its outputs never stay the deck: ``rec.cts`` goes back to what the refused pass took in."""
        held = self._held.pop(rec.number, [])
        try:
            vd.check_passes([h.received for h in held])
        except vd.DeckFault as err:
            bad = next(h for h in held if h.received.seat == err.seat)  # one pass per seat and deck
            rec.cts = bad.before
            raise deck_fault(err, bad.at, bad.code) from None

    def check_held_passes(self) -> list[Fault]:
        """The faults of every pass we hold unchecked (a peer that stops mid-shuffle, §6.8), deck by deck."""
        faults = []
        for number in sorted(self._held):
            try:
                self._check_held(self.ls.decks[number])
            except FaultError as err:
                faults.append(err.fault)
        return faults

    # ------------------------------------------------------------------ shares

    def own_items(self, slots: list[Slot], phase: str = "open") -> dict[str, list[Any]]:
        """Our shares of ``slots`` with their batch proofs: ``{"shares": [[slot, pt33], …], "proofs": [bin64, …]}``,
        the fields of a ``keys`` or ``action`` body and the content of a ``show`` box (§6.4); ``{}`` for no slot.
        ``phase="witness"``: the witness shares of an ``audit`` body (B.10), proven under the audit's own context."""
        ls = self.ls
        assert ls.seat is not None
        if not slots:
            return {}
        groups = self._groups(slots)
        shares: dict[Slot, bytes] = {}
        proofs: list[bytes] = []
        for root, members in groups.items():
            cts = [ct for _, _, _, ct in members]
            ctxs = [self.ctx(rec, phase, index, ls.seat) for _, rec, index, _ in members]
            ds, proof = vd.make_shares(ctxs, self.secrets(root), cts)
            shares.update((slot, d.encode()) for (slot, _, _, _), d in zip(members, ds, strict=True))
            proofs.append(proof)
        return {"shares": [[slot, shares[slot]] for slot in slots], "proofs": proofs}

    def _groups(self, slots: list[Slot]) -> dict[int, list[tuple[Slot, DeckRecord, int, Ciphertext]]]:
        """``slots`` by the deck whose joint key they are under (a reshuffle keeps its source's), in order of first
        appearance, each group in list order: one batch proof per group (a seat's key share differs per key)."""
        groups: dict[int, list[tuple[Slot, DeckRecord, int, Ciphertext]]] = {}
        for slot in slots:
            rec, index, ct = self._slot(slot)
            groups.setdefault(self.ls._key_root(rec), []).append((slot, rec, index, ct))
        return groups

    def own_point(self, slot: Slot) -> Point:
        """Our own share ``x·a`` of a slot dealt or shown to us (never sent, so only we can open it)."""
        rec, _, ct = self._slot(slot)
        return ct.a * self.secrets(rec.number).x

    def accept(self, seat: Seat, msg: Message, duty: list[Slot], *, items: object = None,
               private: bool = False) -> None:
        """Check ``seat``'s shares (its body's ``shares`` and ``proofs``, or the opened box ``items``) against its
        duty."""
        ls = self.ls
        if items is None:
            body_only(msg, FAST_FIELDS)
            release = share_lists(msg.body)
            if release is None:
                raise BadMessage(f"{msg.kind} message {msg.seq} from seat {seat}: bad shares or proofs", seat)
        else:
            release = _box_items(items, seat, msg)
        for slot, d in self._checked(seat, msg, duty, release, private):
            if private:
                self.shown.setdefault(slot, {})[seat] = d
            else:
                self.shares.setdefault(slot, {})[seat] = d
                ls.released[slot][seat] = 0  # released: the share itself is in ``self.shares``
                ls.released_at.setdefault((slot, seat), ls.tick)

    def _checked(self, seat: Seat, msg: Message, duty: list[Slot],
                 release: tuple[list[tuple[Slot, bytes]], list[bytes]], private: bool,
                 when: tuple[int, bytes] | None = None, phase: str = "open",
                 code: FaultCode | None = None) -> list[tuple[Slot, Point]]:
        """``seat``'s shares checked against its duty and their batch proofs (no side effect): ``[(slot, x·a)]``.

        ``when``: the tick and state hash the shares were made at, if not now (an audit judging a show or the
        witness shares of an audit, ``phase="witness"``)."""
        code = code or (FaultCode.BAD_SHOW if private else FaultCode.BAD_KEY)
        pairs, proofs = release
        slots = [s for s, _ in pairs]
        if slots != duty:
            what = "privately showed" if private else "released shares for"
            raise FaultError(Fault(seat, f"{what} slots {short(slots)}, expected {short(duty)}", msg.at, code))
        groups = self._groups(slots)
        if len(proofs) != len(groups):
            raise FaultError(Fault(seat, f"sent {len(proofs)} share proofs for {len(groups)} keys", msg.at, code))
        raw = dict(pairs)
        checked: dict[Slot, Point] = {}
        own = when is None and seat == self.ls.seat
        try:
            for (root, members), proof in zip(groups.items(), proofs, strict=True):
                ds = [vd.share_point(raw[slot], seat=seat, slot=slot) for slot, _, _, _ in members]
                if not own:  # our own shares (made here, or logged by us before a resume): decoded, no proof run
                    vd.check_shares([self.ctx(rec, phase, index, seat, when) for _, rec, index, _ in members],
                                    self.ls.decks[root].y_shares[seat], [ct for _, _, _, ct in members], ds, proof,
                                    seat=seat, slots=[slot for slot, _, _, _ in members])
                checked.update((slot, d) for (slot, _, _, _), d in zip(members, ds, strict=True))
        except vd.DeckFault as err:
            raise deck_fault(err, msg.at, code) from None
        return [(slot, checked[slot]) for slot in slots]

    def box_fault(self, seat: Seat, msg: Message, duty: list[Slot], items: object) -> Fault | None:
        """What is wrong with the opened box of ``seat``'s private show ``msg`` (``None``: nothing).

        This is how every peer, spectator and verifier judges a ``bad_show`` abort: the viewer's abort publishes
        the box's message key (protocol.md §6.4), the box is in the sender's signed message, and the shares in it
        carry their own proofs, so the viewer's word is not needed.
        """
        try:
            # The proofs bind the tick and state hash of the show; its signed envelope says both (and every
            # peer checked that state hash against its own when the show arrived).
            self._checked(seat, msg, duty, _box_items(items, seat, msg), True, (msg.at[0], msg.state))
        except FaultError as err:
            return err.fault
        return None

    def witness_shares(self, seat: Seat, msg: Message, duty: list[Slot]) -> list[tuple[Slot, Point]]:
        """The witness shares of ``seat``'s verified ``audit`` ``msg`` (§6.4, B.10), checked: its ``shares`` must
        list exactly ``duty`` and each batch proof hold under ``ctx(witness, j, seat)`` at the audit's own tick and
        state. Anything else is ``bad_audit`` naming ``seat``: the audit is its signed message, and the duty follows
        from its own signed answer, so the check is the same at every peer, spectator and verifier."""
        release = share_lists(msg.body)
        if release is None:
            raise FaultError(Fault(seat, "its audit's witness shares are malformed", msg.at, FaultCode.BAD_AUDIT))
        checked = self._checked(seat, msg, duty, release, False, (msg.at[0], msg.state), "witness",
                                FaultCode.BAD_AUDIT)
        return checked

    def open_witness(self, slot: Slot, extra: Mapping[Seat, Point]) -> CardId | None:
        """The card of ``slot`` from every seat's checked share (public ones plus an audit's ``extra``), or ``None``
        when some seat's share is missing or the point is no card (nothing is proven then)."""
        shares = {**self.shares.get(slot, {}), **extra}
        if len(shares) != self.ls.players:
            return None
        _, _, ct = self._slot(slot)
        try:
            return vd.open_slot(self.book, ct, shares, self.ls.players, slot=slot)
        except vd.DeckFault:
            return None

    def release_shares(self, seat: Seat, msg: Message, duty: list[Slot]) -> list[tuple[Slot, Point]] | None:
        """The shares of ``seat``'s public release ``msg`` (an ``action`` or ``keys`` body) checked against ``duty``
        and their batch proofs, as :meth:`accept` checks them at its tick and state (``msg``'s), without storing
        them; ``None`` when :meth:`accept` would refuse them. For an audit that re-applies a decision it stopped at
        before it took the answers (§6.4)."""
        release = share_lists(msg.body)
        if release is None or set(msg.body) & FAST_FIELDS:
            return None
        try:
            return self._checked(seat, msg, duty, release, False, (msg.at[0], msg.state))
        except FaultError:
            return None

    def peek(self, slot: Slot, extra: Mapping[Seat, Point], seen: dict[tuple[int, CardId], Slot]) -> CardId | None:
        """The card :meth:`open` would give ``slot`` with the public shares and ``extra``, without its side effects;
        ``None`` when a share is missing or :meth:`open` would refuse it (no card, or a card not in its place: a
        ``bad_card``). ``seen``: the faces opened before in the same batch (updated)."""
        card = self.open_witness(slot, extra)
        if card is None:
            return None
        rec, _, _ = self._slot(slot)
        other = seen.get((rec.number, card), rec.seen_faces.get(card))
        if other is not None and other != slot or not rec.may_hold(card):
            return None
        seen[(rec.number, card)] = slot
        return card

    def box_shares(self, seat: Seat, msg: Message, duty: list[Slot], items: object) -> list[tuple[Slot, Point]]:
        """The checked shares in the opened box of ``seat``'s private show ``msg`` (one :meth:`box_fault` passed)."""
        return self._checked(seat, msg, duty, _box_items(items, seat, msg), True, (msg.at[0], msg.state))

    # ------------------------------------------------------------------ opening

    def open(self, slot: Slot, extra: Mapping[Seat, Point] | None = None) -> CardId:
        """The card of ``slot`` from every seat's checked share (public ones plus ``extra``)."""
        ls = self.ls
        shares = dict(self.shares.get(slot, {}))
        if extra:
            shares.update(extra)
        rec, _, ct = self._slot(slot)
        try:
            card = vd.open_slot(self.book, ct, shares, ls.players, slot=slot)
        except vd.DeckFault as err:
            if err.why == vd.BAD_KEY:
                raise AssertionError(f"slot {slot} is not fully unlocked") from None
            raise FaultError(Fault(rec.owner, f"slot {slot} opened to no card of the game", (ls.tick, ls.phase),
                                   FaultCode.BAD_CARD if rec.owner is not None else FaultCode.INTERNAL)) from None
        other = rec.seen_faces.get(card)
        if other is not None and other != slot or not rec.may_hold(card):
            raise FaultError(Fault(rec.owner, f"slot {slot} opened to a card that is not in its place in deck "
                                   f"{rec.number}", (ls.tick, ls.phase),
                                   FaultCode.BAD_CARD if rec.owner is not None else FaultCode.INTERNAL))
        rec.seen_faces[card] = slot
        return card


def _y_of(raw: bytes) -> Point:
    """``Y_p`` of a key share's 97 bytes (already checked by :func:`~p2php.crypto.verified_deck.joint_key`)."""
    return decode_point(raw[:POINT_SIZE])


def _box_items(items: object, seat: Seat, msg: Message) -> tuple[list[tuple[Slot, bytes]], list[bytes]]:
    release = share_lists(items)
    if release is None:
        raise FaultError(Fault(seat, "private show is not a map of shares and their proofs", msg.at,
                               FaultCode.BAD_SHOW))
    return release
