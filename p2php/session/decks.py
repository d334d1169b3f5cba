"""The lockstep machine's cards: shuffle passes, key duties and releases, opening slots.

Every slot of a mental-poker deck is locked by one key per seat.  This part knows
who still holds which lock (``released``), what each seat must release at each
step (its *duty*), checks every released key against its commitment, and opens a
slot once every lock is off — for everyone (a reveal) or for one seat (a deal or a
private show).
"""

from __future__ import annotations

from collections.abc import Mapping

from p2php import tags
from p2php.canonical import decode, digest
from p2php.crypto import channel, deck
from p2php.crypto.group import POINT_SIZE, InvalidPoint
from p2php.engine.contract import (
    CardId,
    Deal,
    Decide,
    Reshuffle,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
)
from p2php.session.handshake import deck_seed
from p2php.session.messages import (
    BadMessage,
    Message,
    body_field,
    key_list,
    slot_entries,
)
from p2php.session.pass_digests import PassDigests
from p2php.session.records import DeckRecord, Fault, FaultCode, FaultError, short

MAX_DECK = 1024
"""Most cards a Reshuffle may hold (the verified deck's bound, B.8, in both modes)."""


class DerivedSecrets:
    """The real deck secrets: every key and permutation derived from the seat's decks secret."""

    def derive(self, seat: Seat, rec: DeckRecord, decks_secret: bytes) -> deck.DeckSecrets:
        return deck.DeckSecrets.derive(deck_seed(decks_secret, rec.number), rec.context, rec.size)

    def pass_permutation(self, seat: Seat, rec: DeckRecord) -> list[int] | None:
        return None  # drawn from the seat's secrets inside its proven pass


DERIVED = DerivedSecrets()
"""The deck secrets source of every real game (see :class:`~p2php.session.records.DeckSecretsSource`)."""


_NONE: dict[Seat, int] = {}


class DeckSteps(PassDigests):
    """Shuffles, key duties, key releases and opening (a part of ``Lockstep``)."""

    def _unreleased(self, slot: Slot) -> list[Seat]:
        done = self.released.get(slot, {})
        return [s for s in range(self.players) if s not in done]

    def _holds(self, seat: Seat, slot: Slot) -> bool:
        """``seat in self._unreleased(slot)`` in one lookup: the duty checks ask it for every slot and seat."""
        return 0 <= seat < self.players and seat not in self.released.get(slot, _NONE)

    def _key_duty(self, seat: Seat) -> list[Slot]:
        """Slots whose key ``seat`` must release in the current keys phase."""
        step = self._step
        out: list[Slot] = []
        if isinstance(step, Deal):
            listed: set[Slot] = set()
            for slot, to in step.to:
                if to != seat and slot not in listed and self._holds(seat, slot):
                    listed.add(slot)
                    out.append(slot)
        elif isinstance(step, Reveal):
            out = [s for s in step.slots if self._holds(seat, s)]
        elif isinstance(step, Decide) and self.phase == self._keys_phase:
            out = self._reveal_duty(seat)
        elif isinstance(step, Show):
            out = [s for s in step.slots if seat != step.viewer and self._holds(seat, s)]
        return out

    def _owes_keys(self, seat: Seat) -> bool:
        """``bool(self._key_duty(seat))``, stopping at the first slot: who is expected to send ``keys`` is asked
        for every seat at every poll, and a deal lists every card dealt."""
        step = self._step
        if isinstance(step, Deal):
            return any(to != seat and self._holds(seat, slot) for slot, to in step.to)
        if isinstance(step, Reveal):
            return any(self._holds(seat, slot) for slot in step.slots)
        return bool(self._key_duty(seat))

    def _reveal_duty(self, seat: Seat) -> list[Slot]:
        """Slots the current answers open whose key ``seat`` still holds."""
        return [slot for slot in self._pending_reveals() if self._holds(seat, slot)]

    def _pending_reveals(self) -> list[Slot]:
        out: list[Slot] = []
        for seat, action in self._answers:
            for slot in self.state.reveals(seat, action):
                if slot not in out:
                    out.append(slot)
        return out

    def _my_key(self, slot: Slot) -> int:
        d, index = self.slot_deck[slot]
        return self._deck_secrets(d).slot_keys[index]

    def secrets_of(self, seat: Seat, rec: DeckRecord, decks_secret: bytes) -> deck.DeckSecrets:
        """A seat's secrets for one deck, from its (released or own) decks secret, by the deck source."""
        return self.deck_source.derive(seat, rec, decks_secret)

    def _deck_secrets(self, number: int) -> deck.DeckSecrets:
        assert self.secrets is not None
        cache: dict[int, deck.DeckSecrets] = self.__dict__.setdefault("_secret_cache", {})
        if number not in cache:
            rec = self.decks[number]
            assert self.seat is not None
            cache[number] = self.secrets_of(self.seat, rec, self.secrets.decks_secret)
        return cache[number]

    def _first_input(self, rec: DeckRecord) -> list[bytes]:
        """The plaintext points the first pass starts from (a secret deck: the owner's list)."""
        if rec.hidden:
            return rec.start
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
            tags.SHOW, self.session_id, sender.to_bytes(2, "big"),
            viewer.to_bytes(2, "big"), seq.to_bytes(8, "big"),
        )
        return channel.message_key(self.secrets.identity, self.publics[other].box_key, context)

    def _deck_for(self, step: Shuffle | Reshuffle) -> DeckRecord:
        if self.decks and self.decks[-1].tick == self.tick:
            return self.decks[-1]
        if isinstance(step, Reshuffle):
            return self._reshuffle_for(step)
        number = len(self.decks)
        rec = DeckRecord(
            number=number,
            context=digest(tags.DECK, self.session_id, number.to_bytes(4, "big")),
            first_slot=step.first_slot,
            tick=self.tick,
            cards=tuple(step.cards),
            owner=step.owner,
            secret_size=step.size,
            purpose=step.purpose,
        )
        self.decks.append(rec)
        return rec

    # ------------------------------------------------------------------ reshuffles (protocol.md §7.6)

    @property
    def _spent(self) -> set[Slot]:
        """Slots whose card a Reshuffle moved into a new deck: no later step may name them."""
        spent: set[Slot] = self.__dict__.setdefault("_spent_slots", set())
        return spent

    def _engine_bug(self, why: str) -> FaultError:
        return FaultError(Fault(None, f"engine bug at step {self.tick}: {why}", (self.tick, self.phase),
                                FaultCode.INTERNAL))

    def check_live(self, slots: tuple[Slot, ...] | list[Slot], what: str, *, held: bool = False) -> None:
        """A step that names a slot a Reshuffle spent (or, with ``held``, one no deck holds) is an engine bug."""
        for slot in slots:
            if held and slot not in self.slot_deck:
                raise self._engine_bug(f"{what} names slot {short(slot)}, which no deck holds")
            if slot in self._spent:
                raise self._engine_bug(f"{what} names slot {slot}, whose card a reshuffle moved to a new deck")

    def _key_root(self, rec: DeckRecord) -> int:
        """The deck whose joint key (verified) a deck's slots are under: itself, or a reshuffle's source."""
        return rec.number if rec.key_deck is None else rec.key_deck

    def _reshuffle_for(self, step: Reshuffle) -> DeckRecord:
        """Record the new deck of a Reshuffle: its inputs, what its first pass starts from, what it may hold."""
        try:
            return self._new_reshuffle(step)
        except FaultError:
            self.__dict__["_broken_tick"] = self.tick  # nothing is due at this step: the fault ends the game
            raise

    def broken_step(self) -> bool:
        """Whether the current step is a Reshuffle the engine got wrong (see :meth:`_reshuffle_for`)."""
        return self.__dict__.get("_broken_tick") == self.tick

    def _new_reshuffle(self, step: Reshuffle) -> DeckRecord:
        slots = tuple(step.slots)
        if not isinstance(step.first_slot, int) or isinstance(step.first_slot, bool) or step.first_slot < 0:
            raise self._engine_bug(f"a reshuffle's first slot must be an int >= 0, not {short(step.first_slot)}")
        if not 1 <= len(slots) <= MAX_DECK:
            raise self._engine_bug(f"a reshuffle holds 1 to {MAX_DECK} slots, not {len(slots)}")
        if len(set(slots)) != len(slots):
            raise self._engine_bug("a reshuffle names one slot twice")
        self.check_live(slots, "the reshuffle", held=True)
        new = range(step.first_slot, step.first_slot + len(slots))
        if any(s in self.slot_deck for s in new):
            raise self._engine_bug(f"the reshuffle's new slots {new.start}..{new.stop - 1} overlap existing slots")
        faces = tuple(self.public_faces.get(s) for s in slots)
        shown = [f for f in faces if f is not None]
        if len(set(shown)) != len(shown):
            raise self._engine_bug("the reshuffle holds one public card twice")
        number = len(self.decks)
        hidden = [s for s, f in zip(slots, faces, strict=True) if f is None]
        rec = DeckRecord(
            number=number,
            context=digest(tags.DECK, self.session_id, number.to_bytes(4, "big")),
            first_slot=step.first_slot,
            tick=self.tick,
            cards=() if hidden else tuple(shown),  # every face public: a plain shuffle of those faces
            purpose=step.purpose,
            inputs=slots,
            hidden=bool(hidden),
            input_faces=faces,
        )
        if hidden:
            sources = [self.decks[self.slot_deck[s][0]] for s in hidden]
            roots = sorted({self._key_root(src) for src in sources})
            if len(roots) != 1:
                raise self._engine_bug(f"the reshuffle mixes face-down cards of decks {roots} (their cards are under "
                                       "different joint keys; reshuffle one deck's cards at a time)")
            rec.key_deck = roots[0]
            allowed: set[CardId] | None = set(shown)
            for src in sources:
                may = self._may_hold(src)
                allowed = None if allowed is None or may is None else allowed | may
            rec.allowed = None if allowed is None else frozenset(allowed)
            rec.seen_faces = self._merge_seen(sources)
            moved, coming = set(slots), set(shown)
            # A card we saw (public or shown) moves to a new, unknown place: whether it was seen at one of the
            # inputs, or, a public input, at a slot of this family that it left earlier (it may have travelled
            # through a plain deck of public faces and come back).
            for card in [c for c, where in rec.seen_faces.items() if where in moved or c in coming]:
                del rec.seen_faces[card]
            if self.vdeck is None:
                rec.start = [self.points.points[f] if f is not None else self._ciphertext(s)
                             for s, f in zip(slots, faces, strict=True)]
            else:
                self.vdeck.start_reshuffle(rec)
        self.decks.append(rec)
        return rec

    def _ciphertext(self, slot: Slot) -> bytes:
        d, index = self.slot_deck[slot]
        return self.decks[d].current[index]

    def _may_hold(self, rec: DeckRecord) -> set[CardId] | None:
        """The cards a deck's slots may open to (``None``: any card; a fast secret deck, checked at the audit)."""
        if rec.hidden:
            return None if rec.allowed is None else set(rec.allowed)
        if rec.owner is None:
            return set(rec.cards)
        if self.vdeck is not None:
            return set(self.vdeck._pool(rec))
        return None

    def _merge_seen(self, sources: list[DeckRecord]) -> dict[CardId, Slot]:
        """One "seen once" record for a deck and its reshuffles: a card may open at one slot of them all."""
        families: list[dict[CardId, Slot]] = []
        for src in sources:
            if not any(f is src.seen_faces for f in families):
                families.append(src.seen_faces)
        if len(families) == 1:
            return families[0]
        merged: dict[CardId, Slot] = {}
        for f in families:
            merged.update(f)
        for rec in self.decks:
            if any(rec.seen_faces is f for f in families):
                rec.seen_faces = merged
        return merged

    def _fast_expected(self, rec: DeckRecord) -> dict[Seat, str]:
        """Who sends the pass of the current phase of a fast (re)shuffle (§6.3)."""
        seat, kind = self._fast_pass(rec, self.phase)
        return {seat: kind}

    def _old_keys(self, rec: DeckRecord) -> list[int | None]:
        """Our slot keys of a reshuffle's face-down inputs (``None`` for a public card), for our rekey pass."""
        return [None if f is not None else self._my_key(s) for s, f in zip(rec.inputs, rec.input_faces, strict=True)]

    def _bind(self, rec: DeckRecord) -> None:
        """The deck is final: its slots exist, and a reshuffle's old slots are spent."""
        for index in range(rec.size):
            slot = rec.first_slot + index
            self.slot_deck[slot] = (rec.number, index)
            self.released[slot] = {}
        self._spent.update(rec.inputs)

    def _on_pass(self, step: Shuffle | Reshuffle, msg: Message) -> None:
        rec = self._deck_for(step)
        what = ("rekey pass" if rec.hidden and self.phase < self.players else f"{msg.kind} pass") + \
            (" of reshuffled deck" if rec.inputs else " of deck")
        if self.points_in_body(rec, self.phase):
            blob: bytes | None = body_field(msg, "cards", bytes)  # the points packed in slot order (§6.4)
            named = None
        else:
            named = body_field(msg, "digest", bytes)  # v8: the points went to the next passer only
            if len(named) != 32:
                raise BadMessage(f"{what} {rec.number}: its digest is not 32 bytes", msg.sender)
            blob = self.points_of(msg)
        cards: list[bytes] | None = None
        if blob is not None:
            try:
                cards = deck.unpack(blob, POINT_SIZE)
            except ValueError:
                raise FaultError(Fault(msg.sender, f"{what} {rec.number}: {len(blob)} bytes are not whole "
                                       f"{POINT_SIZE}-byte points", msg.at, FaultCode.BAD_PASS)) from None
            previous = rec.passes[-1][2] if rec.passes else (rec.start or None)  # None: it went to another seat
            problem = deck.check_deck_shape(cards, rec.size, previous=previous, on_curve=False)
            if problem is not None:
                raise FaultError(Fault(msg.sender, f"{what} {rec.number}: {problem}", msg.at, FaultCode.BAD_PASS))
        if msg.kind == "lock":
            packed = body_field(msg, "commits", bytes)
            if len(packed) != rec.size * deck.COMMITMENT_SIZE:
                raise FaultError(Fault(msg.sender, f"lock pass of deck {rec.number}: bad key commitments", msg.at,
                                       FaultCode.BAD_PASS))
            rec.commits[msg.sender] = deck.unpack(packed, deck.COMMITMENT_SIZE)
        rec.passes.append((msg.sender, msg.kind, cards))
        rec.digests.append(named)
        self.phase += 1
        if self.phase == self.pass_count(rec):
            self._bind(rec)
            self._advance()

    def _on_keys(self, msgs: list[tuple[Seat, Message]]) -> None:
        for seat, msg in msgs:
            self._accept_release(seat, msg, self._key_duty(seat))

    def _accept_release(self, seat: Seat, msg: Message, duty: list[Slot]) -> None:
        """``seat``'s public release for ``duty``: keys (fast) or proven shares (verified), checked and stored."""
        if self.vdeck is not None:
            self.vdeck.accept(seat, msg, duty)
        else:
            self._accept_keys(seat, msg, key_list(msg), duty)

    def _on_verified_shuffle(self, step: Shuffle | Reshuffle, msgs: list[tuple[Seat, Message]]) -> None:
        """A phase of a verified (re)shuffle: the key round (if it has its own key), then one checked pass per seat
        (§6.3)."""
        assert self.vdeck is not None
        rec = self._deck_for(step)
        final = self.vdeck.on_shuffle(rec, msgs)
        self.phase += 1
        if final:
            self._bind(rec)
            self._advance()

    def _accept_keys(self, seat: Seat, msg: Message, keys: list[tuple[int, int]], duty: list[Slot]) -> None:
        if [s for s, _ in keys] != duty:
            raise FaultError(
                Fault(seat, f"released keys for slots {short([s for s, _ in keys])}, expected {short(duty)}", msg.at,
                      FaultCode.BAD_KEY)
            )
        for slot, key in keys:
            d, index = self.slot_deck[slot]
            rec = self.decks[d]
            commit = deck.key_commitment(rec.context, seat, index, key)
            if commit != rec.commits[seat][index]:
                raise FaultError(Fault(seat, f"released a wrong key for slot {slot}", msg.at, FaultCode.BAD_KEY))
        for slot, key in keys:
            self.released[slot][seat] = key
            self.released_at.setdefault((slot, seat), self.tick)

    def _open(self, slot: Slot, extra: Mapping[Seat, int] | None = None) -> CardId:
        if self.vdeck is not None:
            assert not extra
            return self.vdeck.open(slot)
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
                      "was bad (the audit names who)", (self.tick, self.phase), FaultCode.BAD_CARD)
            )
        other = rec.seen_faces.get(card)
        if other is not None and other != slot or not rec.may_hold(card):
            raise FaultError(
                Fault(None, f"slot {slot} opened to a card that is not in its place in deck {d} "
                      "(the audit names who)", (self.tick, self.phase), FaultCode.BAD_CARD)
            )
        rec.seen_faces[card] = slot
        return card

    def _open_deal(self, step: Deal) -> None:
        if self.seat is None:
            return
        for slot, to in step.to:
            if to == self.seat and slot not in self.private_faces:
                if self.vdeck is not None:
                    self.private_faces[slot] = self.vdeck.open(slot, {self.seat: self.vdeck.own_point(slot)})
                    continue
                self.private_faces[slot] = self._open(slot, {self.seat: self._my_key(slot)})

    def _open_public(self, slots: tuple[Slot, ...] | list[Slot]) -> dict[Slot, CardId]:
        faces = {}
        for slot in slots:
            card = self._open(slot)
            faces[slot] = card
            self.public_faces[slot] = card
        return faces

    def _on_show(self, step: Show, msgs: list[tuple[Seat, Message]]) -> None:
        for seat, msg in msgs:
            to = body_field(msg, "to", int)
            box = body_field(msg, "box", bytes)
            if to != step.viewer:
                raise FaultError(Fault(seat, f"showed cards to seat {to}, not {step.viewer}", msg.at,
                                       FaultCode.BAD_SHOW))
            if self.seat != step.viewer:
                continue
            key = self._box_key(seat, step.viewer, msg.seq)
            opened = False
            try:
                payload = channel.open_sealed(key, box, self.session_id)
                opened = self.vdeck is not None  # from here on, a fault is one anyone can re-check with the key
                raw = decode(payload)
                if self.vdeck is not None:
                    self.vdeck.accept(seat, msg, self._key_duty(seat), items=raw, private=True)
                    continue
                entries = slot_entries(raw, 32)  # the same shape check as a public key list: no "5", no True
                if entries is None:
                    raise ValueError("its keys are not a list of [slot, 32-byte key] pairs")
                keys = [(slot, int.from_bytes(k, "big")) for slot, k in entries]
            except FaultError:
                if opened:
                    self.show_box = [msg.seq, key]
                raise
            except Exception as err:
                if opened:
                    self.show_box = [msg.seq, key]
                what = "opened to something that is not its keys" if opened else "could not be opened"
                raise FaultError(Fault(seat, f"private show {what}: {short(err) or type(err).__name__}", msg.at,
                                       FaultCode.BAD_SHOW)) from err
            duty = self._key_duty(seat)
            self._accept_keys_private(seat, msg, keys, duty)
        if self.seat == step.viewer:
            for slot in step.slots:
                if slot in self.public_faces or slot in self.private_faces:
                    continue
                if self.vdeck is not None:
                    points = dict(self.vdeck.shown.get(slot, {}))
                    if self._holds(self.seat, slot):
                        points[self.seat] = self.vdeck.own_point(slot)
                    self.private_faces[slot] = self.vdeck.open(slot, points)
                    continue
                extra = dict(self._shown.get(slot, {}))
                if self._holds(self.seat, slot):
                    extra[self.seat] = self._my_key(slot)
                self.private_faces[slot] = self._open(slot, extra)

    @property
    def _shown(self) -> dict[Slot, dict[Seat, int]]:
        shown: dict[Slot, dict[Seat, int]] = self.__dict__.setdefault("_shown_keys", {})
        return shown

    def _accept_keys_private(self, seat: Seat, msg: Message, keys: list[tuple[int, int]], duty: list[Slot]) -> None:
        if [s for s, _ in keys] != duty:
            shown = short([s for s, _ in keys])
            raise FaultError(Fault(seat, f"privately showed slots {shown}, expected {short(duty)}",
                                   msg.at, FaultCode.BAD_SHOW))
        for slot, key in keys:
            d, index = self.slot_deck[slot]
            rec = self.decks[d]
            if deck.key_commitment(rec.context, seat, index, key) != rec.commits[seat][index]:
                raise FaultError(Fault(seat, f"privately showed a wrong key for slot {slot}", msg.at,
                                       FaultCode.BAD_SHOW))
            self._shown.setdefault(slot, {})[seat] = key

