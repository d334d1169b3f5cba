"""Known-answer vectors for every normative encoding and derivation of the protocol (version 10).

Each expected value below was computed once from the reference code (``p2php/`` at
the commit that added this file) and is hard-coded: a change to any of these
outputs is a protocol change (protocol.md §11) and must change the version, not
just this file.  The same vectors, in protocol.md's notation, are in
``docs/test-vectors.md`` (for protocol.md Appendix A).

Fixed inputs: ``SID = bytes(range(32))`` stands for a session id; masters are
32 equal bytes.
"""

from __future__ import annotations

import pytest

from p2php import PROTOCOL_VERSION
from p2php.canonical import NotCanonical, digest, encode, hash_value
from p2php.crypto import beacon, channel, deck, group
from p2php.crypto.group import InvalidPoint
from p2php.rng import DetRng
from p2php.session import handshake, messages

SID = bytes(range(32))
H = bytes.fromhex


def u16(x: int) -> bytes:
    return x.to_bytes(2, "big")


def u32(x: int) -> bytes:
    return x.to_bytes(4, "big")


def u64(x: int) -> bytes:
    return x.to_bytes(8, "big")


# ----------------------------------------------------------------------------- §2.3 the digest


def test_digest_known_answer() -> None:
    """§2.3: D(b"a", b"bc") = SHA-256(u64(1) || "a" || u64(2) || "bc")."""
    assert digest(b"a", b"bc") == H("3fafa1cf2f19a7c1129beb20cf0983f73a489a221fc0dd2f16d1be292d089205")


def test_digest_is_length_prefixed() -> None:
    """§2.3: every part is length-prefixed, so D(a, bc) != D(ab, c)."""
    assert digest(b"ab", b"c") == H("601d5476e2ccfe2c87a2bba7a322659734a05749d5b5aa781f513e4912db0d5f")
    assert digest(b"a", b"bc") != digest(b"ab", b"c")
    assert digest(b"abc") != digest(b"a", b"bc")


def test_digest_of_nothing_and_of_one_empty_part() -> None:
    """§2.3: D() is SHA-256 of nothing; D(b"") hashes the 8-byte zero length prefix."""
    assert digest() == H("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    assert digest(b"") == H("af5570f5a1810b7af78caf4bc70a660f0df51e42baf91d4de5b2328de0e83dfc")
    assert digest(b"") != digest()


# ----------------------------------------------------------------------------- §2.2 canonical msgpack

INTS = {
    0: "00",
    1: "01",
    127: "7f",
    128: "cc80",
    255: "ccff",
    256: "cd0100",
    65535: "cdffff",
    65536: "ce00010000",
    4294967295: "ceffffffff",
    4294967296: "cf0000000100000000",
    18446744073709551615: "cfffffffffffffffff",
    -1: "ff",
    -32: "e0",
    -33: "d0df",
    -128: "d080",
    -129: "d1ff7f",
    -32768: "d18000",
    -32769: "d2ffff7fff",
    -2147483648: "d280000000",
    -2147483649: "d3ffffffff7fffffff",
    -9223372036854775808: "d38000000000000000",
}


@pytest.mark.parametrize("value,hexed", sorted(INTS.items()))
def test_encode_integers_of_every_width(value: int, hexed: str) -> None:
    """§2.2 table: fixints, u8/u16/u32/u64 and i8/i16/i32/i64, the smallest form that fits."""
    assert encode(value) == H(hexed)


def test_encode_nil_and_booleans() -> None:
    """§2.2 table: nil / false / true are c0 / c2 / c3 (a bool is not the int 0/1)."""
    assert encode(None) == H("c0")
    assert encode(False) == H("c2")
    assert encode(True) == H("c3")
    assert encode(True) != encode(1)


def test_encode_text_and_bytes_stay_distinct() -> None:
    """§2.2: text is a0+L / d9 (UTF-8 length), bytes c4; "a" and b"a" differ."""
    assert encode("a") == H("a161")
    assert encode(b"a") == H("c40161")
    assert encode("é") == H("a2c3a9")  # length in UTF-8 bytes
    assert encode("x" * 32) == H("d920787878787878787878787878787878787878787878787878787878787878"
        "7878")
    assert encode(b"") == H("c400")


def test_encode_arrays() -> None:
    """§2.2: canon([5]) = 91 05; a tuple is an array; 16 entries need dc u16."""
    assert encode([5]) == H("9105")
    assert encode((1, 2)) == H("920102")
    assert encode(list(range(16))) == H("dc0010000102030405060708090a0b0c0d0e0f")


def test_encode_map_sorts_keys() -> None:
    """§2.2: canon({"b": 1, "a": [1, 2]}) = 82 a1 61 92 01 02 a1 62 01, whatever the insertion order."""
    assert encode({"b": 1, "a": [1, 2]}) == H("82a161920102a16201")
    assert encode({"a": [1, 2], "b": 1}) == H("82a161920102a16201")


def test_encode_nested_maps_sort_at_every_level() -> None:
    """§2.2: keys are sorted inside nested maps too."""
    value = {"z": {"b": None, "a": True}, "a": [b"\x01", "x"]}
    assert encode(value) == H("82a16192c40101a178a17a82a161c3a162c0")


def test_encode_int_keyed_map_sorts_numerically() -> None:
    """§2.2: integer keys sort numerically (-1 < 2 < 10), not as strings."""
    assert encode({10: "x", 2: "y", -1: b""}) == H("83ffc40002a1790aa178")


@pytest.mark.parametrize("value", [1.5, {1, 2}, {"a": 1, 2: 3}, {True: 1}, object(), [1.0], {"a": {"b": 0.5}}])
def test_encode_refuses_what_has_no_canonical_form(value: object) -> None:
    """§2.2: floats, sets, mixed or boolean map keys and any other type MUST be refused."""
    with pytest.raises(NotCanonical):
        encode(value)


def test_decode_is_the_inverse_of_encode() -> None:
    """§2.2: text and bytes stay distinct through a round trip; arrays come back as lists, int keys as ints."""
    from p2php.canonical import decode

    value = {"a": [1, "x", b"x", None, True], "b": {10: "y", -1: [b""]}, "c": []}
    back = decode(encode(value))
    assert back == value
    assert isinstance(back["a"], list) and isinstance(back["a"][2], bytes) and isinstance(back["a"][1], str)
    assert encode(back) == encode(value)


def test_hash_value_is_sha256_of_canon_without_prefix() -> None:
    """§2.3: HV(v) = SHA-256(canon(v)), no length prefix (engine state hashes)."""
    assert hash_value({"b": 1, "a": [1, 2]}) == H("0c89b49e62f99dc4a97c961ab5971654b01bb6c6f97aa0f24483e890ec535ed1")
    assert hash_value({}) == H("76be8b528d0075f7aae98d6fa57a6d3c83ae480a8469e668d7b0af968995ac71")


# ----------------------------------------------------------------------------- §2.4 the group

P0 = H("d904b0c8436ba8bcb2a7b337d142d6afb1837e5a4db58db64e6609d2bf1e27a8")


def test_hash_to_point_known_answers() -> None:
    """§2.4 hash_to_point (try-and-increment over SHA-256("p2php/h2c/v1" || u64(len d) || d || data || u32(c)))."""
    assert group.hash_to_point(b"test", u32(0)) == P0
    assert group.hash_to_point(b"test", u32(1)) == H("90d2096e339dccf2efe4d7b94fa2d475b13755b5ea7af9cb946b4bc672b604dd")
    assert group.hash_to_point(b"", b"") == H("09abcdc9a706bfbc078a09d4a70a04ceb6a204e546a35a04eaba6f3c25812b6b")
    assert group.is_point(P0)


def test_mul_known_answer_and_x_only_classes() -> None:
    """§2.4 mul: x(2·P); x-only, so x(k·P) == x((q−k)·P)."""
    assert group.mul(P0, 2) == H("b77269dab865d180aecf5093e658331ec3b89008bbc7cfbc77530a51e909ff3d")
    assert group.mul(P0, group.ORDER - 2) == H("b77269dab865d180aecf5093e658331ec3b89008bbc7cfbc77530a51e909ff3d")
    assert group.mul(group.mul(P0, 5), group.inverse(5)) == P0


def test_inverse_known_answers() -> None:
    """§2.4 inv(k) = k^(q−2) mod q."""
    assert group.inverse(2) == 0x7fffffff800000007fffffffffffffffde737d56d38bcf4279dce5617e3192a9
    assert group.inverse(3) == 0xaaaaaaaa00000000aaaaaaaaaaaaaaaa7def51c91a0fbf034d26872ca84218e1
    assert group.inverse(1) == 1


@pytest.mark.parametrize("k", [0, group.ORDER, -1, True])
def test_scalars_out_of_range_are_refused(k: int) -> None:
    """§2.4: a scalar is an integer 1 <= k < q."""
    with pytest.raises(ValueError):
        group.mul(P0, k)
    with pytest.raises(ValueError):
        group.inverse(k)


@pytest.mark.parametrize("bad", [b"\x00" * 31, P0 + b"\x00", b"\xff" * 32, "not bytes"])
def test_mul_refuses_malformed_or_off_curve_points(bad: object) -> None:
    """§2.4: mul MUST reject a malformed or off-curve X (x >= p is malformed too)."""
    with pytest.raises(InvalidPoint):
        group.mul(bad, 2)  # type: ignore[arg-type]
    assert not group.is_point(bad)  # type: ignore[arg-type]


def test_off_curve_x_is_refused() -> None:
    """§2.4: an x < p whose x³ − 3x + b is not a square is no point (the first such x after P0)."""
    x = int.from_bytes(P0, "big")
    while group.is_point((x := x + 1).to_bytes(32, "big")):
        pass
    with pytest.raises(InvalidPoint):
        group.mul(x.to_bytes(32, "big"), 3)


# ----------------------------------------------------------------------------- §2.5 DetRng


def test_detrng_below_small() -> None:
    """§2.5 below(m), m <= 2^64: rejection on 8-byte words of SHA-256(S || u64(i))."""
    rng = DetRng(bytes(32))
    assert [rng.below(10) for _ in range(8)] == [3, 1, 0, 5, 9, 8, 5, 2]


def test_detrng_below_wide_and_edge() -> None:
    """§2.5 below(m) for m > 2^64 (W words per attempt) and m = 2^64; below(1) draws nothing."""
    assert DetRng(bytes(32)).below(2**64 + 13) == 0xac72bd410cc31761
    assert DetRng(b"abc").below(2**64) == 0xffa3993d407b8f50
    rng = DetRng(bytes(32))
    assert rng.below(1) == 0
    assert rng.below(10) == 3
    with pytest.raises(ValueError):
        rng.below(0)


def test_detrng_bytes_and_seed_forms() -> None:
    """§2.5: the stream itself; int seeds are 16 signed big-endian bytes, str seeds UTF-8."""
    assert DetRng(bytes(32)).bytes(12) == H("cf45f7a122e9f68d486f3fb0")
    assert DetRng(7).below(1000) == 440
    assert DetRng("seed").below(1000) == 954
    assert DetRng("seed").below(1000) == DetRng(b"seed").below(1000)
    assert DetRng(7).below(1000) == DetRng((7).to_bytes(16, "big")).below(1000)


def test_detrng_permutation() -> None:
    """§2.5 permutation(m): Fisher–Yates from the last index (Appendix A)."""
    assert DetRng(bytes(32)).permutation(10) == [4, 2, 0, 5, 9, 8, 7, 6, 1, 3]


def test_detrng_random_scalar() -> None:
    """§2.5 random_scalar = 1 + below(q − 1) (Appendix A)."""
    assert group.random_scalar(DetRng(bytes(32))) == 0x6b59363cc16f1b47bb3c11cdbad1b712e6bdd37618618ddf083c26b8fb304564


# ----------------------------------------------------------------------------- §7.1 card points

TEST_DOMAIN = b"p2php/test-domain"


def test_card_points_for_a_fixed_domain() -> None:
    """§7.1: P_c = hash_to_point(domain, u32(c))."""
    assert deck.card_points(TEST_DOMAIN, 3) == [H(x) for x in [
        "cdf007b2ed26fde8f78c121572d761a18e5872feb1ba23488a345971c1e00652",
        "a5f9ccbc0395d28e15f15ac9f50937966f1f834a799552d57142ac70980c0aa0",
        "4e10b5608be13fe0fb1947cde50df3a7b40711619aec9111f7b4a83fd4e48ffb",
    ]]
    assert deck.card_points(TEST_DOMAIN, 3)[1] == group.hash_to_point(TEST_DOMAIN, u32(1))


def test_point_book_maps_points_back_to_card_ids() -> None:
    """§7.4: the opener looks the point up in the table of all P_c; anything else is no card."""
    book = deck.PointBook(TEST_DOMAIN, 3)
    assert len(book) == 3
    assert [book.card_of(H(x)) for x in [
        "cdf007b2ed26fde8f78c121572d761a18e5872feb1ba23488a345971c1e00652",
        "a5f9ccbc0395d28e15f15ac9f50937966f1f834a799552d57142ac70980c0aa0",
        "4e10b5608be13fe0fb1947cde50df3a7b40711619aec9111f7b4a83fd4e48ffb",
    ]] == [0, 1, 2]
    assert book.card_of(P0) is None


def test_session_card_domain() -> None:
    """§7.1: card_domain = D("p2php/cards/v1", session_id, utf8(game name)), as the lockstep builds it."""
    domain = digest(b"p2php/cards/v1", SID, b"uno")
    assert domain == H("6553b9050fbbed553918e29cc0f29081c2b7d3d5469e06cda751085d273636dd")
    assert deck.card_points(domain, 2) == [H(x) for x in [
        "e6fe11c98e95cc1770bac38c2d3b17e1705bc3482ac33cbe79babb66af019dfb",
        "825feef077ff2c363268efe15daec3794f5d5328e7c4ae68792e2b0b846f2d7a",
    ]]


# ----------------------------------------------------------------------------- §7.2 decks and secrets


def test_deck_context() -> None:
    """§7.2: context_d = D("p2php/deck/v1", session_id, u32(d))."""
    ctx0 = H("5a271a3507d47b6f94f312860e340e9f2859f802684d39bd1522bc5ba7979407")
    ctx1 = H("b9464aeab4de36498ca5ddaca1af9a3ec7e4451504181a93d0cf938eda2c7f1f")
    assert digest(b"p2php/deck/v1", SID, u32(0)) == ctx0
    assert digest(b"p2php/deck/v1", SID, u32(1)) == ctx1


def test_deck_seed() -> None:
    """§7.2: seed_{s,d} = D("p2php/deck-seed/v1", decks_secret, u32(d))."""
    assert handshake.deck_seed(bytes(32), 0) == H("905a0a47a8f1c531030716e0b7bc62256b06af5ed7ddb8b387103cad371e340f")
    assert handshake.deck_seed(bytes(32), 1) == H("664d2bc82229613603bb00ccd2ab22c22262e264f8c4c834249b5fbf3580b03c")


def test_deck_secrets_derive() -> None:
    """§7.2: rng = DetRng(D("p2php/deck/v1", seed, context)); e, then π, then k_0..k_{size−1}."""
    ds = deck.DeckSecrets.derive(bytes(32), b"ctx", 4)
    assert ds.shuffle_key == 0x609477bc3e611e3e8219063f1f3cc582e869f286e52d348d8f474f570af891e
    assert ds.permutation == [0, 3, 1, 2]
    assert ds.slot_keys == [
        0x6fb553202dc0055ce9e7f660b1bdfeddde5f9d827dbdd94b55655afd86bcbed4,
        0x19fa6d1bc70167db5f8a5f5d77c6297744d5a105743161cf264b202f419beaef,
        0x427586627ecb31115267b42e6dd7aec153fdbab5dad7aa58d68acea61fc893d3,
        0x5cf4a9397940a2df18d5351921077c74709dd4b56513adca68aea4934ecb12e6,
    ]
    assert ds.size == 4


def test_deck_secrets_permutation_of_ten() -> None:
    """§7.2: the permutation drawn after the shuffle key (seed 00 01 .. 1f, context "p2php", 10 cards)."""
    assert deck.DeckSecrets.derive(bytes(range(32)), b"p2php", 10).permutation == [2, 0, 7, 9, 3, 1, 4, 5, 8, 6]


@pytest.mark.parametrize("seed", [bytes(31), bytes(33), "x" * 32])
def test_deck_secrets_need_a_32_byte_seed(seed: object) -> None:
    """§7.2: a deck seed is 32 bytes."""
    with pytest.raises(ValueError):
        deck.DeckSecrets.derive(seed, b"ctx", 4)  # type: ignore[arg-type]


def test_key_commitment() -> None:
    """§7.3: commits_p[j] = the first 8 bytes of D("p2php/key/v2", context, u32(p), u32(j), scalar32(k)) (App. A)."""
    assert deck.key_commitment(b"ctx", 1, 2, 3) == H("d0012dc8bdd74a4f")
    scalar32 = (3).to_bytes(32, "big")
    assert deck.key_commitment(b"ctx", 1, 2, 3) == digest(b"p2php/key/v2", b"ctx", u32(1), u32(2), scalar32)[:8]
    assert deck.COMMITMENT_SIZE == 8


def test_key_commitments_of_derived_keys() -> None:
    """§7.3: the lock pass's commitments for seat 0 of the 4-card deck above."""
    ds = deck.DeckSecrets.derive(bytes(32), b"ctx", 4)
    assert deck.key_commitments(ds, b"ctx", 0) == [H(x) for x in [
        "254c435c06b36bb6",
        "fb8a999d1a9c346f",
        "f895505a3932b820",
        "cdc2ee075a3f36ad",
    ]]
    first = H("254c435c06b36bb6")
    assert deck.check_key_commitment(first, b"ctx", 0, 0, ds.slot_keys[0])
    assert not deck.check_key_commitment(first, b"ctx", 0, 0, ds.slot_keys[0] + 1)  # another key
    assert not deck.check_key_commitment(first, b"ctx", 1, 0, ds.slot_keys[0])  # another seat
    assert not deck.check_key_commitment(first, b"ctx", 0, 1, ds.slot_keys[0])  # another index
    assert not deck.check_key_commitment(first, b"ctx2", 0, 0, ds.slot_keys[0])  # another deck


def test_shuffle_and_lock_pass() -> None:
    """§7.3: out[j] = mul(in[π(j)], e); then out[j] = mul(in[j], k_j·inv(e)) — three test-domain cards."""
    ds = deck.DeckSecrets.derive(bytes(32), b"ctx3", 3)
    assert ds.permutation == [1, 2, 0]
    shuffled = deck.shuffle_pass(ds, deck.card_points(TEST_DOMAIN, 3))
    assert shuffled == [H(x) for x in [
        "2e11b8db841e5147e9d9fb59ad029f3584b436c2bd5091f8f55c19e9c0fb9d52",
        "c9d9ed5b1573fa400c681694b5980c615f91da3d7b7a0ac1de7ee83f94643d69",
        "fdca48142391769230aa27e264c3eeb9eed675a4a1b206e59540e86ff1a365be",
    ]]
    locked = deck.lock_pass(ds, shuffled)
    assert locked == [H(x) for x in [
        "bbfa95eefe1db5421b58edc578b134ea4c94f47e78ff996a5f0b4a6238423177",
        "4855fc61c59a34d369ad80811155e7f5a7d56edc36fab787f7454ab357cc9eb2",
        "0c780364704720412cf5c7a41f6ee7c766fcfbb4d30ab0fa906528c6f8aac970",
    ]]
    # §6.4: the lock body sends the points and seat 0's commitments each as one bin, in slot order
    commits = deck.key_commitments(ds, b"ctx3", 0)
    assert commits == [H(x) for x in [
        "e21266f844bb97d9", "9385e129289ce377", "ad2fba79b872ceb2",
    ]]
    body = encode({"cards": deck.pack(locked), "commits": deck.pack(commits)})
    assert body == H("82a56361726473c460") + b"".join(locked) + H("a7636f6d6d697473c418") + b"".join(commits)
    assert len(body) == 139
    assert deck.unpack(body[9:105], 32) == locked
    # every slot opens with its key to the card the permutation put there (§7.4)
    for j, i in enumerate(ds.permutation):
        assert deck.open_point(locked[j], [ds.slot_keys[j]]) == deck.card_points(TEST_DOMAIN, 3)[i]


# ----------------------------------------------------------------------------- §4.5 local secrets, §8 chains

MASTER0 = bytes(32)


def test_local_secrets_identity_keys() -> None:
    """§4.5: Ed25519 seed and X25519 key = HKDF(D("p2php/identity/v1", master), info = …/sign/v1, …/box/v1)."""
    ls = handshake.LocalSecrets(master=MASTER0)
    assert ls.identity.public.sign_key == H("4584e78351eec4ceaecf82750566649f50e7b91080c5d12897438e67b44b7cd5")
    assert ls.identity.public.box_key == H("951fb189b86c9f9df007f9afa504e7afbc01439c4d9bdc2d950ef1bc83654962")


def test_local_secrets_released_and_local_values() -> None:
    """§4.5: decks_secret = D("p2php/decks/v1", master), nonce = D("p2php/nonce/v1", master), chain seed."""
    ls = handshake.LocalSecrets(master=MASTER0)
    assert ls.decks_secret == H("b2cc8805c4a1c3ff6cbefc262d133b692d5a287ac142fe203054482b82e8a97e")
    assert ls.nonce == H("e842ac6d9d8875a3f2f25f0899a4684321835e0e15d2c02c73ddb2b62bc81019")
    assert ls._chain_seed == H("f424c29b6f7f6c5701c830672e5697bfe5eee84c1b0060d21d36ea999f2edb70")


def test_fingerprint_and_signature() -> None:
    """§4.1: fingerprint = hex(SHA-256(D("p2php/fingerprint/v1", sign_key, box_key)))[0:16].

    Ed25519 (RFC 8032) is deterministic, so a signature is a known answer too.
    """
    ls = handshake.LocalSecrets(master=MASTER0)
    assert ls.identity.public.fingerprint() == "008e39cee5dc6ed8"
    sig = H("3ca3a8e7bb303f0e054cf9c9bc51a4aa735dc5f59b54540ed5c09c24c2d77c8e"
        "5c897b6b1f9f6ef4bca26a7733885028f69b9b08bdac07c018c0a41021a82409")
    assert ls.identity.sign(b"abc") == sig
    assert ls.identity.public.verify(sig, b"abc")
    assert not ls.identity.public.verify(sig, b"abd")


def test_chain_binding() -> None:
    """§8: binding_s = D("p2php/chain-binding/v1", u16(s), sign_key_s)."""
    zero = H("05b9a15034a89b48aa3179cea644ca3106a6dbdf073e44b0ed7642e9ffd91be4")
    ff = H("d1d3efbefabd5af428da3c88a20f96bd80861b80b7ce80564f71cd5a65228220")
    assert handshake.chain_binding(0, bytes(32)) == zero
    assert handshake.chain_binding(3, b"\xff" * 32) == ff
    assert handshake.chain_binding(1, bytes(32)) != zero


def test_local_secrets_chain_anchor() -> None:
    """§8: the anchor a peer with master 0 at seat 0 publishes (reference chain length 1024)."""
    ls = handshake.LocalSecrets(master=MASTER0)
    binding = handshake.chain_binding(0, ls.identity.public.sign_key)
    assert binding == H("e34970cd4e01568d2a5103d488701293c7df83a611b3aceabfe5c82c11a86612")
    assert ls.chain(binding).anchor == H("c3d4a5466198caf90b6967df213e741694534118e0dedfd77794cc919c77c676")


def test_hash_chain_values() -> None:
    """§8: v_L = D("p2php/chain-seed/v1", seed, binding), v_{i−1} = D("p2php/chain/v1", binding, v_i) (Appendix A)."""
    chain = beacon.HashChain(bytes(16), b"bind", 3)
    assert chain.anchor == H("17cb3e22f62389ff46b625078c6890295a9ed194613c33ecf32ead281fb5ba85")
    v1 = H("9760d6f98554fcb36cf3c5c3e9a50efca0dcbc63596e910c824dfa2606c8aa2d")
    v2 = H("b6fcd86e83611dab3f73c4a3b38b9b0c7324166f4aa49de38820f3fa26ff9a5f")
    v3 = H("e42f2f6140700c7b2c4b1e2bb6c8d2af92a8bfc0b36e4d3a6d5949be92d66aa9")
    assert [chain.value(i) for i in (1, 2, 3)] == [v1, v2, v3]
    assert chain.value(3) == digest(b"p2php/chain-seed/v1", bytes(16), b"bind")
    assert beacon.verify_next(b"bind", chain.anchor, chain.value(1))
    assert not beacon.verify_next(b"bind", chain.anchor, chain.value(2))
    with pytest.raises(IndexError):
        chain.value(4)
    with pytest.raises(IndexError):
        chain.value(0)


def test_beacon_combine() -> None:
    """§8: random = D("p2php/beacon/v1", canon([tick]), v_i^(0), …, v_i^(n−1)) (Appendix A)."""
    chain = beacon.HashChain(bytes(16), b"bind", 3)
    random = H("c85ff5352fb42628ae45630d78c184809a7be3473a866abd5edb3dc8fc944884")
    assert beacon.combine([chain.value(1), chain.value(2)], encode([5])) == random
    assert beacon.combine([chain.value(2), chain.value(1)], encode([5])) != random  # seat order matters
    assert beacon.combine([chain.value(1), chain.value(2)], encode([6])) != random  # so does the label


def test_beacon_commit() -> None:
    """§6.4 / §7.8: commit = D("p2php/commit/v1", ctx, value, nonce)."""
    commitment = H("45bc0e3936b56bea78075bc68c503e1032e129255f9f421f533928196d0c225b")
    assert beacon.commit(b"ctx", b"value", bytes(16)) == commitment
    assert beacon.check_commit(commitment, b"ctx", b"value", bytes(16))
    assert not beacon.check_commit(commitment, b"ctx", b"valuf", bytes(16))
    assert not beacon.check_commit(commitment, b"ctx", b"value", bytes(15))
    with pytest.raises(ValueError):
        beacon.commit(b"ctx", b"value", bytes(15))


# ----------------------------------------------------------------------------- §7.5 private show

MASTER_A = bytes([1]) * 32
MASTER_B = bytes([2]) * 32


def test_show_context() -> None:
    """§7.5: ctx = D("p2php/show/v1", session_id, u16(sender), u16(viewer), u64(seq))."""
    ctx = H("819983fbf4e732fa7794d3314197931b249b36b3bb116bac39a6d60f3b6ad6d6")
    assert digest(b"p2php/show/v1", SID, u16(0), u16(1), u64(5)) == ctx


def test_message_key_is_symmetric_and_known() -> None:
    """§7.5: K = HKDF-SHA256(X25519(a, B), salt none, info "p2php/box/v1" || ctx); both ends agree."""
    a = handshake.LocalSecrets(master=MASTER_A).identity
    b = handshake.LocalSecrets(master=MASTER_B).identity
    assert a.public.box_key == H("ce291d4e7cb835a6a1cf14375ff207ae6d5ac6104ffbbf3aad96979256626c0c")
    assert b.public.box_key == H("195ed06d9ad0f113050eaaead1ad4a5f02de69ed13f495a9f32e4294d47c9c13")
    ctx = H("819983fbf4e732fa7794d3314197931b249b36b3bb116bac39a6d60f3b6ad6d6")
    key = H("701aacec10bfed7750ecf8b27a9620dc6401fb0dae1d0bc32ac30cfd5cd25427")
    assert channel.message_key(a, b.public.box_key, ctx) == key
    assert channel.message_key(b, a.public.box_key, ctx) == key


def test_seal_known_answer() -> None:
    """§7.5: box = D("p2php/box-key/v1", K) || ChaCha20-Poly1305(K, zero nonce, payload, aad = session_id)."""
    key = H("701aacec10bfed7750ecf8b27a9620dc6401fb0dae1d0bc32ac30cfd5cd25427")
    payload = encode([[3, (7).to_bytes(32, "big")]])
    assert payload == H("919203c420000000000000000000000000000000000000000000000000000000"
        "0000000007")
    assert channel.key_check(key) == H("2a64f18378c376057b2906ae718ed186c52bb10ee9b8f28757a43f3feaff7d2a")
    sealed = channel.seal(key, payload, SID)
    assert sealed == H("2a64f18378c376057b2906ae718ed186c52bb10ee9b8f28757a43f3feaff7d2a"
        "5a3e9cdabb7a583c2239d7699b771508c5cb53d86b9fd594f240d6aa96a027e0"
        "76cd4f9e8055a224785e007ff22519f7850bc8f5bf")
    assert len(sealed) == 32 + len(payload) + 16
    assert channel.open_sealed(key, sealed, SID) == payload
    with pytest.raises(channel.ChannelError):
        channel.open_sealed(key, sealed, bytes(32))  # another aad
    with pytest.raises(channel.ChannelError):
        channel.open_sealed(bytes(32), sealed, SID)  # another key: the key check fails


# ----------------------------------------------------------------------------- §4, §5 hello and envelope

FIELDS = {"from": 0, "seq": 0, "prev": SID, "at": [0, 0], "state": bytes(32), "seen": [],
          "kind": "beacon", "body": {"value": bytes(32)}}


def test_signing_bytes() -> None:
    """§5.1: the signed bytes are D("p2php/msg/v1", session_id, canon(message without "sig"))."""
    assert messages.signing_bytes(SID, FIELDS) == H("e236df3ee596a4c3db714f9175af13914cf5a748ac20b1eb1065efe1f706773b")
    assert messages.signing_bytes(SID, FIELDS) == digest(b"p2php/msg/v1", SID, encode(FIELDS))


def test_message_signature_and_hash() -> None:
    """§5.1: sig under master 0's key; msg_hash = D("p2php/msgid/v1", canon(message with "sig"))."""
    ls = handshake.LocalSecrets(master=MASTER0)
    sig = ls.identity.sign(messages.signing_bytes(SID, FIELDS))
    assert sig == H("9b7430486c5d47eea673aa098fbceb952170ca20435d4a1c53c54b191c0a5073"
        "7eef05ecab08fe81ecf0126c462801c65dce42d15f7eff3e5939ab31174ea10a")
    msg = messages.parse_message({**FIELDS, "sig": sig})
    assert msg.msg_hash == H("f84969bbc45ea7be69c32f68c3c56df9939157e29034b54629a0ef4ce5d9bb39")
    assert msg.to_wire() == {**FIELDS, "sig": sig}


def _hellos() -> tuple[list[handshake.LocalSecrets], list[dict[str, object]]]:
    secrets = [handshake.LocalSecrets(master=bytes([s + 1]) * 32) for s in range(2)]
    return secrets, [handshake.make_hello(secrets[s], s, 2, "uno", {}, f"peer{s}") for s in range(2)]


def test_hello_and_session_id() -> None:
    """§4.2, §4.4: hellos of masters 01…, 02… ("uno", no options, version 10); session_id = D("p2php/session/v1", …)."""
    assert PROTOCOL_VERSION == 10
    _, hellos = _hellos()
    assert hellos[0]["hello"] == 10
    assert hellos[0]["anchor"] == H("69c13864bb76641cffc2707752811af3342f8ba3f668bf2628b7468dc0fbd753")
    assert hellos[0]["sig"] == H("142da85ff8ef0f391b2c3520f228dacc9b8e2bdccd479115beb17829311ad414"
        "e65ee240b9a9f24fec763394c6431762de1ae69f9a5e168235731c811edb890c")
    for s, hello in enumerate(hellos):
        handshake.check_hello(hello, seat=s, players=2, game="uno", options={})
    session_id = H("d5e49bc5842d81b5b648e8917b4abac30ac119817f9bd41c560195a81c9891c1")
    assert handshake.Table("uno", {}, tuple(hellos)).session_id == session_id


def test_safety_code() -> None:
    """§4.4: code = base32 of the first 100 bits of D("p2php/safety/v1", session_id, sign_key_0, sign_key_1)."""
    _, hellos = _hellos()
    table = handshake.Table("uno", {}, tuple(hellos))
    assert digest(b"p2php/safety/v1", table.session_id, hellos[0]["sign_key"], hellos[1]["sign_key"]) == H(
        "9773ef9a46ce38819eee0c228233334ae27a48d38e577fe8b4b882a93f2090ea")
    assert table.safety_code == "S5Z6-7GSG-ZY4I-DHXO-BQRI"


# Seat 1 dials seat 0: dialer challenge 32 zero bytes, acceptor challenge 32 bytes 01, X25519 private keys
# 32 bytes 03 (dialer) and 32 bytes 04 (acceptor).
DIAL_KX = H("5dfedd3b6bd47f6fa28ee15d969d5bb0ea53774d488bdaf9df1c6e0124b3ef22")
ACCEPT_KX = H("ac01b2209e86354fb853237b5de0f4fab13c7fcbf433a61c019369617fecf10b")
DIAL_SIG = H("19e09093b1929f0839a2a032a04b63816c47d5f1af8b8c0c52eb709f187979b9"
             "c8915f9d5cb21ab1977fdbc25a75882d07935200e946c3f56813d4037aad1602")


def test_link_proof() -> None:
    """§3.2: link_proof_bytes over both hellos, challenges and key-exchange values, signed by each end."""
    from p2php.net.linkauth import KeyExchange
    from p2php.net.mesh import check_proof, link_proof_bytes

    secrets, hellos = _hellos()
    assert KeyExchange(b"\x03" * 32).public == DIAL_KX and KeyExchange(b"\x04" * 32).public == ACCEPT_KX
    dial = link_proof_bytes(b"dial", hellos[1], hellos[0], bytes(32), b"\x01" * 32, DIAL_KX, ACCEPT_KX)
    accept = link_proof_bytes(b"accept", hellos[1], hellos[0], bytes(32), b"\x01" * 32, DIAL_KX, ACCEPT_KX)
    assert dial == H("561d79e8cd4b169dd3e3fa59ea86b369e97d0defdc3d5420564129a18f571d4d")
    assert accept == H("949f1239bde6cfb34cc30caad3c39c7ec228e3e78cae715376a1d405435ba219")
    assert secrets[1].identity.sign(dial) == DIAL_SIG
    assert secrets[0].identity.sign(accept) == H("017c976bc2cf9efa265c0ee525542d0e8a28eae16944439a1ce71bd309c49c9d"
        "9b532d0478cf020c504bf846e90358749b5a480cf2508c648021108dfc17730b")
    assert check_proof(hellos[1], DIAL_SIG, dial)
    assert not check_proof(hellos[0], DIAL_SIG, dial)  # another seat's key
    assert not check_proof(hellos[1], DIAL_SIG, accept)  # reflected as the other role
    swapped = link_proof_bytes(b"dial", hellos[1], hellos[0], bytes(32), b"\x01" * 32, ACCEPT_KX, DIAL_KX)
    assert not check_proof(hellos[1], DIAL_SIG, swapped)  # a key-exchange value swapped in the middle


def test_link_keys_and_frame_tags() -> None:
    """§3.2 link keys: HKDF-SHA256 of the X25519 secret, salt D("p2php/link-keys/v1", transcript); the tag of
    frame n is HMAC-SHA256(k, u64(n) || body)[:16] — recomputed here from the formulas, with no p2php code."""
    import hashlib
    import hmac

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from p2php.net.framing import encode_frame
    from p2php.net.linkauth import KeyExchange, seal_frame
    from p2php.net.mesh import LinkProof

    _, hellos = _hellos()
    z = X25519PrivateKey.from_private_bytes(b"\x03" * 32).exchange(X25519PublicKey.from_public_bytes(ACCEPT_KX))
    transcript = encode(hellos[1]) + encode(hellos[0]) + bytes(32) + b"\x01" * 32 + DIAL_KX + ACCEPT_KX
    keys = HKDF(hashes.SHA256(), 64, digest(b"p2php/link-keys/v1", transcript), b"p2php/link-keys/v1").derive(z)
    k_da, k_ad = keys[:32], keys[32:]
    assert k_da == H("4cd9d815d6bad4240cf56457f74b5119b3ba3293b930f8f6fce4d99df618e328")
    assert k_ad == H("9d1d617b957d551e61b4a6dcdd80bfde414e4790bce66aacb9b5627d3d079f43")
    frame = encode_frame({"hb": 1, "at": None})  # a heartbeat, as the mesh sends it (not canonical)
    body = frame[4:]
    tags = [hmac.new(k_da, n.to_bytes(8, "big") + body, hashlib.sha256).digest()[:16] for n in (0, 1)]
    assert tags == [H("116fa0eca8ad5356ff62b3a0ec97f5a5"), H("7066b5baf8f23263642e4a57bd9899e6")]

    dialer = KeyExchange(b"\x03" * 32)
    link = LinkProof.of(hellos[1], hellos[0], bytes(32), b"\x01" * 32, DIAL_KX, ACCEPT_KX, dialer=True)
    assert link.transcript() == transcript
    send, receive = dialer.link_macs(ACCEPT_KX, transcript, dialer=True)
    assert seal_frame(frame, send) == (len(body) + 16).to_bytes(4, "big") + body + tags[0]
    assert seal_frame(frame, send) == (len(body) + 16).to_bytes(4, "big") + body + tags[1]
    acceptor = KeyExchange(b"\x04" * 32)
    _, back_receive = acceptor.link_macs(DIAL_KX, transcript, dialer=False)
    assert back_receive.check(body, tags[0]) and back_receive.check(body, tags[1])  # the acceptor agrees
    assert not receive.check(body, tags[0])  # the dialer's own tag is no frame from the acceptor (reflection)


# ----------------------------------------------------------------------------- the session uses these derivations


def test_lockstep_uses_the_normative_derivations() -> None:
    """§7.1, §7.2, §7.5: the lockstep's card domain, deck context, deck secrets and show key are the formulas above."""
    from p2php.session.memory import make_peers

    peers = make_peers("toy", 2, {}, seed=5)
    ls = peers[0]
    sid = ls.session_id
    assert ls.points.domain == digest(b"p2php/cards/v1", sid, b"toy")
    assert ls.points.points == deck.card_points(digest(b"p2php/cards/v1", sid, b"toy"), 12)
    ls.expected()  # the toy game starts with a Shuffle: asking who is due records deck 0
    rec = ls.decks[0]
    assert rec.context == digest(b"p2php/deck/v1", sid, u32(0))
    assert ls.secrets is not None
    mine = ls.secrets_of(0, rec, ls.secrets.decks_secret)
    expected = deck.DeckSecrets.derive(handshake.deck_seed(ls.secrets.decks_secret, 0), rec.context, 12)
    assert (mine.shuffle_key, mine.permutation, mine.slot_keys) == (
        expected.shuffle_key, expected.permutation, expected.slot_keys)
    other = peers[1]
    assert other.secrets is not None
    ctx = digest(b"p2php/show/v1", sid, u16(0), u16(1), u64(9))
    assert ls._box_key(0, 1, 9) == channel.message_key(ls.secrets.identity, other.secrets.identity.public.box_key, ctx)
    assert other._box_key(0, 1, 9) == ls._box_key(0, 1, 9)
    binding = handshake.chain_binding(0, ls.secrets.identity.public.sign_key)
    assert ls.table.hellos[0]["anchor"] == ls.secrets.chain(binding).anchor
