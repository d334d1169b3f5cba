"""The verified deck (p2php/crypto/verified_deck.py, protocol.md Appendix B.10): a whole table from every seat's view.

Each seat is simulated apart: it knows only its own :class:`SeatSecrets`, and takes a remote step only after its own
check of it. A deck of ~20 cards at 3 and 4 seats runs the key round, every pass, a deal of 5 cards to one seat,
a reveal to all and a private show; then every cheat of the catalogue is tried and must be named at its step.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

pytest.importorskip("coincurve")

from p2php.crypto import verified_deck as vd  # noqa: E402
from p2php.crypto.bayer_groth import BgShuffleProof, prove_shuffle  # noqa: E402
from p2php.crypto.elgamal import Ciphertext, combine_shares  # noqa: E402
from p2php.crypto.proofs import KeyProof, ShareProof  # noqa: E402
from p2php.crypto.secp256k1 import Q, base_mul, generator  # noqa: E402
from p2php.session.records import FaultCode  # noqa: E402

SESSION = b"session-id"
DECK = 3
BOOK = vd.CardBook(b"test deck domain", 24)
CARDS = list(range(2, 22))  # 20 card ids of the book


def _ctx(phase: str, index: int, seat: int, step: int = 5) -> bytes:
    return vd.deck_context(SESSION, DECK, phase, step, index, seat, b"transcript head")


@dataclass
class Table:
    """All seats' public state after set-up, and each seat's own secrets (used only for its own steps)."""

    secrets: list[vd.SeatSecrets]
    shares: list[vd.KeyShare]
    y: vd.Point
    decks: list[list[Ciphertext]]  # the initial deck, then each pass's checked output

    @property
    def players(self) -> int:
        return len(self.secrets)

    @property
    def final(self) -> list[Ciphertext]:
        return self.decks[-1]


def _secrets(players: int, seed: bytes = b"seed") -> list[vd.SeatSecrets]:
    return [vd.SeatSecrets.derive((seed + bytes([p])).ljust(32, b"\0"), b"deck 3") for p in range(players)]


def _set_up(players: int, seed: bytes = b"seed") -> Table:
    secrets = _secrets(players, seed)
    key_ctxs = [_ctx("key", 0, p) for p in range(players)]
    shares = [vd.make_key_share(key_ctxs[p], secrets[p]) for p in range(players)]
    keys = {vd.joint_key(key_ctxs, shares) for _ in range(players)}  # every seat checks every share
    assert len(keys) == 1
    y = keys.pop()
    decks = [vd.public_deck(BOOK, CARDS, y)]
    for p in range(players):
        ctx = _ctx("pass", p, p)
        made = vd.make_pass(ctx, y, decks[-1], secrets[p])
        cts, proof = made.wire()  # what travels
        views = [vd.check_pass(ctx, y, decks[-1], cts, proof, seat=p) for q in range(players) if q != p]
        assert all(v == list(made.outputs) for v in views)
        decks.append(views[0])
    return Table(secrets, shares, y, decks)


@pytest.fixture(scope="module", params=[3, 4])
def table(request: pytest.FixtureRequest) -> Table:
    return _set_up(request.param)


@dataclass(frozen=True)
class OneShare:
    """A seat's share of one slot and its batch proof (a batch of one), as a release carries them."""

    d: vd.Point
    proof: bytes


def _share(t: Table, seat: int, slot: int, step: int = 9) -> OneShare:
    ds, proof = vd.make_shares([_ctx("open", slot, seat, step)], t.secrets[seat], [t.final[slot]])
    return OneShare(ds[0], proof)


def _checked(t: Table, seat: int, slot: int, share: OneShare, step: int = 9) -> vd.Point:
    """The share's point once its proof holds; as the session does, the point is decoded first (``bad_key``)."""
    d = vd.share_point(share.d, seat=seat, slot=slot)
    vd.check_shares([_ctx("open", slot, seat, step)], t.shares[seat].y, [t.final[slot]], [d], share.proof,
                    seat=seat, slots=[slot])
    return d


def _plaintext_order(t: Table) -> list[int]:
    """What the table would see with every secret: the card id in each final slot (test oracle only)."""
    return [vd.open_slot(BOOK, ct, {p: ct.a * s.x for p, s in enumerate(t.secrets)}, t.players, slot=i)
            for i, ct in enumerate(t.final)]


# ----------------------------------------------------------------------------- the honest table


def test_set_up_shuffles_every_card_into_place(table: Table) -> None:
    order = _plaintext_order(table)
    assert sorted(order) == CARDS and order != CARDS
    for before, after in zip(table.decks, table.decks[1:], strict=False):
        assert not set(before) & set(after)  # every pass re-masked every card


def test_deal_five_cards_opens_them_only_at_the_recipient(table: Table) -> None:
    to, slots = 1, [0, 1, 2, 3, 4]
    order = _plaintext_order(table)
    dealt = []
    for slot in slots:
        received = {p: _checked(table, p, slot, _share(table, p, slot)) for p in vd.deal_duties(table.players, to)}
        assert to not in received
        own = table.final[slot].a * table.secrets[to].x  # the recipient's share never leaves it
        dealt.append(vd.open_slot(BOOK, table.final[slot], {**received, to: own}, table.players, slot=slot))
        # every other seat holds at most the shares it made and saw on the way: never the recipient's
        for seat in range(table.players):
            if seat == to:
                continue
            with pytest.raises(vd.DeckFault) as info:
                vd.open_slot(BOOK, table.final[slot], received, table.players, slot=slot)
            assert info.value.why == vd.BAD_KEY and info.value.seat == to
            assert combine_shares(table.final[slot], list(received.values())) not in BOOK.points
    assert dealt == order[:5]


def test_reveal_to_all_every_seat_verifies_every_share(table: Table) -> None:
    slot = 7
    broadcast = {p: _share(table, p, slot) for p in vd.reveal_duties(table.players)}
    broadcast = {p: OneShare(s.d.encode(), s.proof) for p, s in broadcast.items()}  # the wire form
    views = set()
    for _viewer in range(table.players):
        checked = {p: _checked(table, p, slot, s) for p, s in broadcast.items()}
        views.add(vd.open_slot(BOOK, table.final[slot], checked, table.players, slot=slot))
    assert views == {_plaintext_order(table)[slot]}


def test_private_show_owner_share_comes_last(table: Table) -> None:
    owner, viewer, slot = 0, table.players - 1, 2
    first, then = vd.show_duties(table.players, owner, viewer)
    assert then == [owner] and owner not in first and viewer not in first
    got = {p: _checked(table, p, slot, _share(table, p, slot, step=11), step=11) for p in first}
    got[viewer] = table.final[slot].a * table.secrets[viewer].x
    with pytest.raises(vd.DeckFault):  # without the owner's share the viewer sees nothing yet
        vd.open_slot(BOOK, table.final[slot], got, table.players, slot=slot)
    got[owner] = _checked(table, owner, slot, _share(table, owner, slot, step=11), step=11)
    assert vd.open_slot(BOOK, table.final[slot], got, table.players, slot=slot) == _plaintext_order(table)[slot]
    with pytest.raises(ValueError):
        vd.show_duties(table.players, 1, 1)


def test_rerandomise_hand(table: Table) -> None:
    hand = table.final[:5]
    ctx = _ctx("hand", 0, 1, step=20)
    made, perm = vd.rerandomise_hand(ctx, table.y, hand, table.secrets[1])
    new = vd.check_pass(ctx, table.y, hand, list(made.outputs), made.proof, seat=1, label="hand pass")
    assert not set(new) & set(hand) and sorted(perm) == list(range(5))
    order = _plaintext_order(table)
    for i, ct in enumerate(new):  # the owner still knows its hand: new slot i is old slot perm[i]
        full = {p: ct.a * s.x for p, s in enumerate(table.secrets)}
        assert vd.open_slot(BOOK, ct, full, table.players, slot=i) == order[perm[i]]
    with pytest.raises(vd.DeckFault) as info:  # old shares do not open the new ciphertexts
        old = {p: hand[perm[0]].a * s.x for p, s in enumerate(table.secrets)}
        vd.open_slot(BOOK, new[0], old, table.players, slot=0)
    assert info.value.why == vd.BAD_CARD and "no such card" in str(info.value)


def test_determinism_from_a_seed() -> None:
    a, b, c = _set_up(3, b"same"), _set_up(3, b"same"), _set_up(3, b"other")
    assert a.final == b.final and a.y == b.y and a.shares == b.shares
    assert c.y != a.y and not set(c.final) & set(a.final)
    assert _share(a, 0, 0) == _share(b, 0, 0)


def test_a_nonce_never_answers_two_challenges(table: Table) -> None:
    """The same slot opened in two steps: two different proofs, so no two challenges share a nonce."""
    one, two = _share(table, 0, 0, step=9), _share(table, 0, 0, step=10)
    p1, p2 = ShareProof.decode(one.proof), ShareProof.decode(two.proof)
    assert one.d == two.d and p1.c != p2.c
    # s1 - s2 = c1·x - c2·x would hold only if the nonces were equal: check it does not
    x = table.secrets[0].x
    assert (p1.s - p2.s) % Q != (p1.c - p2.c) * x % Q


def test_fault_codes_are_the_sessions() -> None:
    for why in (vd.BAD_KEY, vd.BAD_PASS, vd.BAD_CARD, vd.BAD_SECRET_DECK):
        assert FaultCode(why).value == why


# ----------------------------------------------------------------------------- cheating passes


def _honest(t: Table, seat: int = 1) -> tuple[bytes, list[Ciphertext], vd.Pass]:
    ctx = _ctx("pass", seat, seat)
    deck_in = t.decks[seat]
    return ctx, deck_in, vd.make_pass(ctx, t.y, deck_in, t.secrets[seat])


def _reject(t: Table, ctx: bytes, deck_in: list[Ciphertext], outputs: object, proof: object,
            seat: int = 1, why: str = vd.BAD_PASS) -> vd.DeckFault:
    with pytest.raises(vd.DeckFault) as info:
        vd.check_pass(ctx, t.y, deck_in, outputs, proof, seat=seat, label=f"pass {seat} of deck {DECK}")
    assert info.value.why == why and info.value.seat == seat
    assert f"seat {seat}'s pass {seat} of deck {DECK}" in str(info.value)
    return info.value


def _doubled(ct: Ciphertext) -> Ciphertext:
    return Ciphertext(ct.a * 2, ct.b * 2)


def test_relation_planting_is_rejected_at_the_pass(table: Table) -> None:
    """The issue's attack: one output replaced by twice another (Y = 2·X), with a proof for the honest witness."""
    ctx, deck_in, made = _honest(table)
    outputs = list(made.outputs)
    outputs[3] = _doubled(outputs[0])
    _reject(table, ctx, deck_in, outputs, made.proof)
    # nor can the cheater prove the planted deck with any witness of its own: the proof is for other outputs
    perm = list(range(len(deck_in)))
    forged = prove_shuffle(ctx, table.y, deck_in, outputs, perm, [1] * len(deck_in), table.secrets[1].rng(b"x", ctx))
    _reject(table, ctx, deck_in, outputs, forged)


def test_dropped_or_duplicated_card_is_rejected(table: Table) -> None:
    ctx, deck_in, made = _honest(table)
    outputs = list(made.outputs)
    assert "expected 20 ciphertexts, got 19" in str(_reject(table, ctx, deck_in, outputs[:-1], made.proof))
    duplicated = outputs[:-1] + [outputs[0]]
    _reject(table, ctx, deck_in, duplicated, made.proof)


@pytest.mark.parametrize("field", ["phase", "step", "index", "seat", "session", "transcript"])
def test_a_proof_from_another_context_is_rejected(table: Table, field: str) -> None:
    _, deck_in, made = _honest(table)
    args = {"session": SESSION, "phase": "pass", "step": 5, "index": 1, "seat": 1, "transcript": b"transcript head"}
    args[field] = {"phase": "hand", "step": 6, "index": 2, "seat": 2, "session": b"other", "transcript": b"x"}[field]
    other = vd.deck_context(args["session"], DECK, args["phase"], args["step"], args["index"],  # type: ignore[arg-type]
                            args["seat"], args["transcript"])  # type: ignore[arg-type]
    _reject(table, other, deck_in, list(made.outputs), made.proof)


def test_a_pass_of_another_deck_state_is_rejected(table: Table) -> None:
    ctx, _, made = _honest(table)
    _reject(table, ctx, table.decks[0], list(made.outputs), made.proof)  # not the input it was made on


def test_malformed_passes_are_rejected_cleanly(table: Table) -> None:
    ctx, deck_in, made = _honest(table)
    cts, proof = made.wire()
    bad_outputs: list[object] = [
        None, b"", "x" * 20, [None] * 20, [b"\x02" * 66] * 20, [cts[0][:65]] + cts[1:],
        [b"\x04" + cts[0][1:]] + cts[1:], [0] * 20, [b""] * 20, list(range(10**6)),
    ]
    for outputs in bad_outputs:
        _reject(table, ctx, deck_in, outputs, proof)
    bad_proofs: list[object] = [None, b"", proof[:-1], proof + b"\0", b"\xff" * len(proof), 42, "proof",
                                (2**32 - 1).to_bytes(4, "big") + proof[4:], proof[:4] + b"\0" * (len(proof) - 4),
                                dataclasses.replace(made.proof, multiexp=dataclasses.replace(
                                    made.proof.multiexp, a=made.proof.multiexp.a[:-1])),
                                dataclasses.replace(made.proof, multiexp=dataclasses.replace(
                                    made.proof.multiexp, tau=Q))]
    for bad in bad_proofs:
        _reject(table, ctx, deck_in, cts, bad)
    wrong = BgShuffleProof.decode(proof)
    tau = (wrong.multiexp.tau + 1) % Q
    _reject(table, ctx, deck_in, cts, dataclasses.replace(wrong, multiexp=dataclasses.replace(wrong.multiexp, tau=tau)))


# ----------------------------------------------------------------------------- keys and shares


def test_a_wrong_decryption_share_is_named(table: Table) -> None:
    slot, seat = 4, 2
    honest = _share(table, seat, slot)
    proof = ShareProof.decode(honest.proof)
    forged = [
        dataclasses.replace(honest, d=honest.d + generator()),  # a share for another card
        _share(table, 0, slot),  # another seat's share
        _share(table, seat, slot + 1),  # the share of another slot
        _share(table, seat, slot, step=10),  # a share from another step
        dataclasses.replace(honest, proof=ShareProof(proof.c, (proof.s + 1) % Q).encode()),
    ]
    for share in forged:
        with pytest.raises(vd.DeckFault) as info:
            _checked(table, seat, slot, share)
        assert info.value.why == vd.BAD_KEY and info.value.seat == seat and f"slot {slot}" in str(info.value)
    raw = OneShare(honest.d.encode(), honest.proof)  # the wire form
    assert _checked(table, seat, slot, raw) == honest.d
    for junk in [OneShare(None, honest.proof), OneShare(b"x", honest.proof), OneShare(base_mul(0), honest.proof),
                 OneShare(honest.d, b"x"), OneShare(honest.d, Q.to_bytes(32, "big") + bytes(31) + b"\x01"),
                 OneShare(honest.d, None),
                 OneShare(b"\x02" * 33, honest.proof), OneShare(raw.d[:-1], honest.proof),
                 OneShare(raw.d + b"\0", honest.proof), OneShare(b"\x04" + raw.d[1:], honest.proof),
                 OneShare(honest.d, honest.proof[:-1]), OneShare(honest.d, honest.proof + b"\0"),
                 OneShare(honest.d, b"\xff" * 64), OneShare(base_mul(0), forged[0].proof)]:
        with pytest.raises(vd.DeckFault) as info:
            _checked(table, seat, slot, junk)  # type: ignore[arg-type]
        assert info.value.why == vd.BAD_KEY and info.value.seat == seat


def test_a_bad_key_share_is_named(table: Table) -> None:
    m = table.players
    ctxs = [_ctx("key", 0, p) for p in range(m)]
    shares: list[object] = list(table.shares)
    rogue = vd.KeyShare(table.shares[1].y - table.shares[0].y, table.shares[1].proof)  # rogue key, no proof
    replay = vd.make_key_share(_ctx("key", 0, 0, step=4), table.secrets[1])  # proof from another step
    copied = table.shares[0]  # seat 1 copies seat 0's share and proof (bound to seat 0)
    raw = table.shares[1].encode()
    assert vd.joint_key(ctxs, [s.encode() for s in table.shares]) == table.y  # the wire form
    for bad in [rogue, replay, copied, None, vd.KeyShare(base_mul(0), KeyProof(1, 1)),
                vd.KeyShare(table.shares[1].y, KeyProof(Q, 0)), vd.KeyShare(b"junk", KeyProof(1, 1)),
                raw[:-1], b"\x03" * 97, raw[:33] + b"\xff" * 64, rogue.encode(), copied.encode(),
                vd.KeyShare(table.shares[1].y, None)]:
        with pytest.raises(vd.DeckFault) as info:
            vd.joint_key(ctxs, [*shares[:1], bad, *shares[2:]])
        assert info.value.why == vd.BAD_KEY and info.value.seat == 1


# ----------------------------------------------------------------------------- secret composition


def test_the_same_selection_pass_made_again_with_another_list_shares_no_re_masking() -> None:
    """An own deck's list edited between a crash and its resume: the pass made again at the same point drew the
    same re-masking values, so the outputs of every position the two lists agree on were equal, and anyone holding
    both passes learnt where the lists differ. The given permutation is now part of what the randomness answers."""
    t = _set_up(3)
    pool = [3, 5, 7, 9, 11, 20]
    public = vd.public_deck(BOOK, pool, t.y)
    sctx = _ctx("pass", 0, 1)
    first = vd.make_pass(sctx, t.y, public, t.secrets[1], [1, 0, 2, 3, 4, 5])
    again = vd.make_pass(sctx, t.y, public, t.secrets[1], [0, 1, 2, 3, 4, 5])
    assert not set(first.outputs) & set(again.outputs)
    assert vd.make_pass(sctx, t.y, public, t.secrets[1], [1, 0, 2, 3, 4, 5]).outputs == first.outputs  # (resume)


def test_a_secret_deck_is_a_proven_selection_from_its_pool() -> None:
    """The owner's selection pass over its pool: its head is the deck; drawing it from anything else fails."""
    t = _set_up(3)
    owner, pool, own_cards = 1, [3, 5, 7, 9, 11, 20, 21, 22], [20, 3, 11, 7, 5, 9]
    where = {c: i for i, c in enumerate(pool)}
    chosen = [where[c] for c in own_cards]
    perm = chosen + [i for i in range(len(pool)) if i not in chosen]
    public = vd.public_deck(BOOK, pool, t.y)
    sctx = _ctx("pass", 0, owner)
    made = vd.make_pass(sctx, t.y, public, t.secrets[owner], perm)
    deck = vd.check_pass(sctx, t.y, public, list(made.outputs), made.proof, seat=owner)[:len(own_cards)]
    for p in (0, 2):
        pctx = _ctx("pass", p + 1, p, step=6)
        passed = vd.make_pass(pctx, t.y, deck, t.secrets[p])
        deck = vd.check_pass(pctx, t.y, deck, list(passed.outputs), passed.proof, seat=p)
    opened = [vd.open_slot(BOOK, ct, {p: ct.a * s.x for p, s in enumerate(t.secrets)}, 3, slot=i)
              for i, ct in enumerate(deck)]
    assert sorted(opened) == sorted(own_cards)
    # A selection made from a pool with a card outside it (4) has no valid proof against the real pool.
    forged_pool = [4 if c == 21 else c for c in pool]
    forged = vd.make_pass(sctx, t.y, vd.public_deck(BOOK, forged_pool, t.y), t.secrets[owner], perm)
    with pytest.raises(vd.DeckFault) as info:
        vd.check_pass(sctx, t.y, public, list(forged.outputs), forged.proof, seat=owner)
    assert info.value.why == vd.BAD_PASS and info.value.seat == owner
    with pytest.raises(ValueError, match="not a permutation"):
        vd.make_pass(sctx, t.y, public, t.secrets[owner], [0] * len(pool))


def test_cards_and_bounds() -> None:
    y = base_mul(5)
    for bad in [[], [1, 1], [-1], [24], list(range(1025))]:
        with pytest.raises(ValueError):
            vd.public_deck(vd.CardBook(b"big", 1100), bad, y) if len(bad) > 1024 else vd.public_deck(BOOK, bad, y)
    with pytest.raises(vd.DeckFault) as info:
        BOOK.card_of(generator(), 3)
    assert info.value.why == vd.BAD_CARD and "slot 3 opened to no such card" in str(info.value)
    assert BOOK.card_of(BOOK.points[5]) == 5 and len(BOOK) == 24
    with pytest.raises(ValueError):
        vd.deck_context(SESSION, DECK, "peek", 0, 0, 0)
    with pytest.raises(ValueError):
        vd.SeatSecrets.derive(b"short", b"deck")
