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
from p2php.crypto.group import InvalidPoint
from p2php.engine.contract import (
    CardId,
    Deal,
    Decide,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
)
from p2php.session.base import LockstepBase
from p2php.session.handshake import deck_seed
from p2php.session.messages import (
    Message,
    body_field,
    key_list,
    points_list,
)
from p2php.session.records import DeckRecord, Fault, FaultCode, FaultError, short


class DerivedSecrets:
    """The real deck secrets: every key and permutation derived from the seat's decks secret."""

    def derive(self, seat: Seat, rec: DeckRecord, decks_secret: bytes) -> deck.DeckSecrets:
        return deck.DeckSecrets.derive(deck_seed(decks_secret, rec.number), rec.context, rec.size)

    def pass_permutation(self, seat: Seat, rec: DeckRecord) -> list[int] | None:
        return None  # drawn from the seat's secrets inside its proven pass


DERIVED = DerivedSecrets()
"""The deck secrets source of every real game (see :class:`~p2php.session.records.DeckSecretsSource`)."""


class DeckSteps(LockstepBase):
    """Shuffles, key duties, key releases and opening (a part of ``Lockstep``)."""

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

    def _deck_for(self, step: Shuffle) -> DeckRecord:
        if self.decks and self.decks[-1].tick == self.tick:
            return self.decks[-1]
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

    def _on_pass(self, step: Shuffle, msg: Message) -> None:
        rec = self._deck_for(step)
        cards = points_list(msg)
        previous = rec.current if rec.passes else None
        problem = deck.check_deck_shape(cards, rec.size, previous=previous, on_curve=False)
        if problem is not None:
            raise FaultError(Fault(msg.sender, f"{msg.kind} pass of deck {rec.number}: {problem}", msg.at,
                                   FaultCode.BAD_PASS))
        if msg.kind == "lock":
            commits = points_list(msg, "commits")
            if len(commits) != rec.size or any(len(c) != 32 for c in commits):
                raise FaultError(Fault(msg.sender, f"lock pass of deck {rec.number}: bad key commitments", msg.at,
                                       FaultCode.BAD_PASS))
            rec.commits[msg.sender] = commits
        rec.passes.append((msg.sender, msg.kind, cards))
        self.phase += 1
        if self.phase == 2 * self.players:
            for index in range(rec.size):
                slot = rec.first_slot + index
                self.slot_deck[slot] = (rec.number, index)
                self.released[slot] = {}
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

    def _on_verified_shuffle(self, step: Shuffle, msgs: list[tuple[Seat, Message]]) -> None:
        """A phase of a verified Shuffle: the key round, then one checked pass per seat (§6.3)."""
        assert self.vdeck is not None
        rec = self._deck_for(step)
        final = self.vdeck.on_shuffle(rec, msgs)
        self.phase += 1
        if final:
            for index in range(rec.size):
                slot = rec.first_slot + index
                self.slot_deck[slot] = (rec.number, index)
                self.released[slot] = {}
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
        if other is not None and other != slot or (rec.owner is None and card not in rec.cards):
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
                keys = [(int(s), int.from_bytes(k, "big")) for s, k in raw]
            except FaultError:
                if opened:
                    self.show_box = [msg.seq, key]
                raise
            except Exception as err:
                if opened:
                    self.show_box = [msg.seq, key]
                raise FaultError(Fault(seat, f"private show could not be opened: {short(err)}", msg.at,
                                       FaultCode.BAD_SHOW)) from err
            duty = self._key_duty(seat)
            self._accept_keys_private(seat, msg, keys, duty)
        if self.seat == step.viewer:
            for slot in step.slots:
                if slot in self.public_faces or slot in self.private_faces:
                    continue
                if self.vdeck is not None:
                    points = dict(self.vdeck.shown.get(slot, {}))
                    if self.seat in self._unreleased(slot):
                        points[self.seat] = self.vdeck.own_point(slot)
                    self.private_faces[slot] = self.vdeck.open(slot, points)
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

