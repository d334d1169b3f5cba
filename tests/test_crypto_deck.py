"""The two-pass mental-poker deck: dealing, opening, shape checks and audit checks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2php.canonical import digest
from p2php.crypto.deck import (
    COMMITMENT_SIZE,
    DeckSecrets,
    PointBook,
    card_points,
    check_deck_shape,
    check_key_commitment,
    combine_keys,
    key_commitment,
    key_commitments,
    lock_pass,
    open_point,
    owner_instances,
    owner_mask,
    pack,
    rerandomise,
    shuffle_pass,
    unpack,
    verify_lock_pass,
    verify_shuffle_pass,
)
from p2php.crypto.group import ORDER, POINT_SIZE, hash_to_point, inverse, mul, mul_many
from p2php.rng import DetRng

CONTEXT = digest(b"session-1", (0).to_bytes(4, "big"))
DOMAIN = b"test-deck"


def seeds(n: int, tag: bytes = b"") -> list[bytes]:
    return [digest(b"seed", tag, bytes([i])) for i in range(n)]


Deal = tuple[list[DeckSecrets], list[list[bytes]], list[list[bytes]]]


def run_deck(size: int, peers: int, tag: bytes = b"") -> Deal:
    """Run both rounds; return secrets, the shuffle-round decks and the lock-round decks."""
    secrets = [DeckSecrets.derive(s, CONTEXT, size) for s in seeds(peers, tag)]
    shuffled = [card_points(DOMAIN, size)]
    for s in secrets:
        out = shuffle_pass(s, shuffled[-1])
        assert check_deck_shape(out, size, previous=shuffled[-1]) is None
        shuffled.append(out)
    locked = [shuffled[-1]]
    for s in secrets:
        out = lock_pass(s, locked[-1])
        assert check_deck_shape(out, size, previous=locked[-1]) is None
        locked.append(out)
    return secrets, shuffled, locked


@pytest.fixture(scope="module")
def deck3() -> Deal:
    return run_deck(20, 3)


def test_three_peer_deal_opens_to_a_permutation(deck3: Deal) -> None:
    secrets, _, locked = deck3
    book = PointBook(DOMAIN, 20)
    final = locked[-1]
    ids = [book.card_of(open_point(c, [s.slot_keys[j] for s in secrets])) for j, c in enumerate(final)]
    assert sorted(i for i in ids if i is not None) == list(range(20))
    assert ids != list(range(20))  # shuffled (probability 1/20! of failing)
    # With one key missing the slot opens to no card.
    for j, c in enumerate(final):
        for missing in range(3):
            keys = [s.slot_keys[j] for i, s in enumerate(secrets) if i != missing]
            assert book.card_of(open_point(c, keys)) is None


def test_secrets_are_deterministic_and_context_bound() -> None:
    s = seeds(1)[0]
    a = DeckSecrets.derive(s, CONTEXT, 10)
    assert a == DeckSecrets.derive(s, CONTEXT, 10)
    assert sorted(a.permutation) == list(range(10))
    assert len(set(a.slot_keys)) == 10 and all(1 <= k < ORDER for k in a.slot_keys)
    b = DeckSecrets.derive(s, CONTEXT + b"x", 10)
    assert b.shuffle_key != a.shuffle_key and b.slot_keys != a.slot_keys
    assert str(a.shuffle_key) not in repr(a)
    with pytest.raises(ValueError):
        DeckSecrets.derive(b"short", CONTEXT, 10)
    with pytest.raises(ValueError, match="10 cards"):
        shuffle_pass(a, card_points(DOMAIN, 9))


def test_audit_accepts_honest_passes(deck3: Deal) -> None:
    secrets, shuffled, locked = deck3
    for s, deck_in, deck_out in zip(secrets, shuffled[:-1], shuffled[1:], strict=True):
        audit = DeckSecrets.derive(s.seed, CONTEXT, 20)  # recomputed from the revealed seed
        assert verify_shuffle_pass(deck_in, deck_out, audit.shuffle_key)
    for s, deck_in, deck_out in zip(secrets, locked[:-1], locked[1:], strict=True):
        assert verify_lock_pass(deck_in, deck_out, s.shuffle_key, s.slot_keys)


def test_audit_rejects_cheating_shuffle(deck3: Deal) -> None:
    secrets, shuffled, _ = deck3
    s, deck_in, honest = secrets[1], shuffled[1], shuffled[2]
    e = s.shuffle_key
    # Replace a card by another card's ciphertext (duplicate) ...
    dup = list(honest)
    dup[3] = dup[4]
    assert not verify_shuffle_pass(deck_in, dup, e)
    assert check_deck_shape(dup, 20) == "entries 3 and 4 are equal"
    # ... or by a card that was not in the deck ...
    forged = list(honest)
    forged[0] = mul(hash_to_point(DOMAIN, b"ace of spades"), e)
    assert not verify_shuffle_pass(deck_in, forged, e)
    # ... or use a key other than the revealed one.
    other = mul_many([deck_in[i] for i in s.permutation], e + 1)
    assert not verify_shuffle_pass(deck_in, other, e)
    assert not verify_shuffle_pass(deck_in, honest[:-1], e)
    assert not verify_shuffle_pass(deck_in, honest, 0)


def test_audit_rejects_cheating_lock(deck3: Deal) -> None:
    secrets, _, locked = deck3
    s, deck_in, honest = secrets[2], locked[2], locked[3]
    swapped = list(honest)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert not verify_lock_pass(deck_in, swapped, s.shuffle_key, s.slot_keys)
    wrong_key = list(honest)
    wrong_key[5] = mul(deck_in[5], s.slot_keys[5])  # forgot to remove the shuffle lock
    assert not verify_lock_pass(deck_in, wrong_key, s.shuffle_key, s.slot_keys)
    other_keys = list(s.slot_keys)
    other_keys[7] = other_keys[7] + 1
    assert not verify_lock_pass(deck_in, honest, s.shuffle_key, other_keys)
    garbage = list(honest)
    garbage[2] = b"\xff" * 32
    assert not verify_lock_pass(deck_in, garbage, s.shuffle_key, s.slot_keys)
    assert not verify_lock_pass(deck_in, honest, s.shuffle_key, s.slot_keys[:-1])


def test_check_deck_shape() -> None:
    deck = card_points(DOMAIN, 5)
    assert check_deck_shape(deck, 5) is None
    assert check_deck_shape(deck, 6) == "expected 6 cards, got 5"
    assert check_deck_shape(deck[:2] + [b"xx"] + deck[3:], 5) == "entry 2 is not a 32-byte point"
    assert check_deck_shape(deck[:2] + ["x" * 32] + deck[3:], 5) == "entry 2 is not a 32-byte point"  # type: ignore[arg-type]
    assert check_deck_shape(deck[:4] + [b"\xff" * 32], 5) == "entry 4 is not on the curve"
    assert check_deck_shape(deck[:4] + [deck[1]], 5) == "entries 1 and 4 are equal"
    assert check_deck_shape("not a deck", 10) is not None  # type: ignore[arg-type]
    passed_through = [mul(p, 7) for p in deck[:4]] + [deck[4]]
    assert check_deck_shape(passed_through, 5, previous=deck) is not None


def test_key_commitments() -> None:
    s = DeckSecrets.derive(seeds(1)[0], CONTEXT, 8)
    coms = key_commitments(s, CONTEXT, seat=2)
    assert len(set(coms)) == 8
    for j, k in enumerate(s.slot_keys):
        assert check_key_commitment(coms[j], CONTEXT, 2, j, k)
        assert coms[j] == key_commitment(CONTEXT, 2, j, k)
        assert not check_key_commitment(coms[j], CONTEXT, 2, j, k + 1)  # wrong key
        assert not check_key_commitment(coms[j], CONTEXT, 1, j, k)  # wrong seat
        assert not check_key_commitment(coms[j], CONTEXT, 2, (j + 1) % 8, k)  # wrong slot
        assert not check_key_commitment(coms[j], b"other deck", 2, j, k)
    assert not check_key_commitment(coms[0], CONTEXT, 2, 0, -5)
    assert not check_key_commitment(coms[0], CONTEXT, 2, 0, "1")  # type: ignore[arg-type]
    assert all(len(c) == COMMITMENT_SIZE == 8 for c in coms)  # the head of the digest (§7.3)


def test_pack_and_unpack() -> None:
    """§6.4: a fast pass's points and a lock's commitments travel as one bin, split again by item size."""
    deck = card_points(DOMAIN, 5)
    blob = pack(deck)
    assert blob == b"".join(deck) and len(blob) == 5 * POINT_SIZE
    assert unpack(blob, POINT_SIZE) == deck
    coms = key_commitments(DeckSecrets.derive(seeds(1)[0], CONTEXT, 3), CONTEXT, seat=0)
    assert unpack(pack(coms), COMMITMENT_SIZE) == coms
    assert pack([]) == b"" and unpack(b"", POINT_SIZE) == []
    for bad in (blob[:-1], blob + b"\x00", b"\x00"):
        with pytest.raises(ValueError, match="not a whole number"):
            unpack(bad, POINT_SIZE)
    with pytest.raises(ValueError):
        unpack(blob, 0)
    with pytest.raises(ValueError):
        pack([deck[0], deck[1][:16]])  # items of two sizes could not be split again


def test_secret_composition_deck() -> None:
    """The owner masks a private list first; the usual passes follow; slots open to it."""
    max_copies = 4
    pool = PointBook(b"pool", 10 * max_copies)
    deck_list = [3, 3, 3, 7, 0, 9, 9]  # card types, with repeats
    owner_rng = DetRng(b"owner secret")
    instances = owner_instances(deck_list, max_copies, owner_rng)
    assert sorted(i // max_copies for i in instances) == sorted(deck_list)
    assert len(set(instances)) == len(instances)
    points = [pool.points[i] for i in instances]
    n = len(points)
    secrets = [DeckSecrets.derive(s, CONTEXT, n) for s in seeds(3, b"tcg")]
    masked = owner_mask(secrets[0], points)  # the owner is seat 0
    assert check_deck_shape(masked, n) is None
    assert not set(masked) & set(pool.points)
    deck = masked
    for s in secrets[1:]:
        deck = shuffle_pass(s, deck)
    for s in secrets:
        deck = lock_pass(s, deck)
    opened = [pool.card_of(open_point(c, [s.slot_keys[j] for s in secrets])) for j, c in enumerate(deck)]
    assert sorted(opened) == sorted(instances)  # type: ignore[type-var]
    # Audit: the owner's revealed shuffle key recovers exactly its list.
    recovered = mul_many(masked, inverse(secrets[0].shuffle_key))
    assert sorted(recovered) == sorted(points)
    with pytest.raises(ValueError):
        owner_mask(secrets[0], points[:-1] + [points[0]])
    with pytest.raises(ValueError):
        owner_instances([1] * 5, max_copies, owner_rng)


@settings(max_examples=10, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.binary(min_size=1, max_size=4))
def test_rerandomise_hand(hand_size: int, tag: bytes) -> None:
    """A hidden hand re-shuffled by its owner opens to the same cards, unlinkably."""
    secrets, _, locked = run_deck(hand_size, 2, tag)
    book = PointBook(DOMAIN, hand_size)
    hand = locked[-1]
    old_keys = [[s.slot_keys[j] for s in secrets] for j in range(hand_size)]
    before = sorted(book.card_of(open_point(c, ks)) for c, ks in zip(hand, old_keys, strict=True))  # type: ignore[type-var]
    fresh = DeckSecrets.derive(digest(b"rerand", tag), CONTEXT + b"/rerand/1", hand_size)
    new_hand = rerandomise(fresh, hand)
    assert check_deck_shape(new_hand, hand_size, previous=hand) is None
    # The owner combines the keys into one scalar per new slot and hands it out.
    combined = [combine_keys([fresh.slot_keys[j], *old_keys[fresh.permutation[j]]]) for j in range(hand_size)]
    after = sorted(book.card_of(open_point(c, [k])) for c, k in zip(new_hand, combined, strict=True))  # type: ignore[type-var]
    assert after == before == list(range(hand_size))
    assert rerandomise(DeckSecrets.derive(fresh.seed, fresh.context, hand_size), hand) == new_hand


def test_point_book() -> None:
    book = PointBook(DOMAIN, 30)
    assert len(book) == 30
    assert book.points == card_points(DOMAIN, 30)
    assert all(book.card_of(p) == i for i, p in enumerate(book.points))
    assert book.card_of(hash_to_point(b"elsewhere", b"")) is None
    assert card_points(b"other", 30)[0] != book.points[0]
