"""secp256k1 via coincurve and ElGamal for verified dealing (p2php/crypto/secp256k1.py, elgamal.py; Appendix B)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("coincurve")

from p2php.crypto import elgamal, secp256k1  # noqa: E402
from p2php.crypto.elgamal import Ciphertext, NotACard  # noqa: E402
from p2php.crypto.secp256k1 import (  # noqa: E402
    InvalidEncoding,
    P,
    Q,
    VerifiedUnavailable,
    base_mul,
    decode_point,
    decode_scalar,
    encode_scalar,
    generator,
    hash_to_group,
    identity,
    lincomb,
    msm,
    sum_points,
)
from p2php.errors import P2phpError  # noqa: E402
from p2php.rng import DetRng  # noqa: E402

scalars = st.integers(min_value=0, max_value=Q - 1)
G = generator()


def test_generator_is_the_sec2_one() -> None:
    assert G.encode().hex() == "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"


@settings(max_examples=25, deadline=None)
@given(scalars, scalars)
def test_scalar_products_are_a_homomorphism(a: int, b: int) -> None:
    assert base_mul(a) + base_mul(b) == base_mul(a + b)
    assert base_mul(a) - base_mul(b) == base_mul(a - b)
    assert -base_mul(a) == base_mul(-a)
    assert G * a * b == base_mul(a * b) == b * base_mul(a)


def test_identity_is_handled_explicitly() -> None:
    o = identity()
    assert o.is_identity and o == G * 0 and o == G * Q and base_mul(0) == o
    assert o == G + (-G) and o == G - G and o + G == G and G + o == G and -o == o and o * 5 == o
    assert sum_points([]) == o and sum_points([G, -G, G]) == G
    assert msm([G, G], [1, Q - 1]) == o and msm([o, G], [3, 2]) == base_mul(2)
    assert o.hash_bytes() == bytes(33)
    with pytest.raises(InvalidEncoding):
        o.encode()
    with pytest.raises(InvalidEncoding):
        decode_point(bytes(33))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=3), scalars), max_size=6), scalars)
def test_lincomb_is_the_textbook_sum(terms: list[tuple[int, int]], base: int) -> None:
    """``lincomb`` (one product per term, 1·P free, one sum call) is ``base·G + Σ kᵢ·Pᵢ`` computed term by term, with
    the identity among the points, zero and unit scalars, repeated points and sums that cancel."""
    pool = [identity(), G, base_mul(7), -base_mul(7)]
    points = [pool[i] for i, _ in terms]
    ks = [k if i % 2 else (1, 0, Q - 1, k)[i] for i, k in terms]
    expected = base_mul(base)
    for p, k in zip(points, ks, strict=True):
        expected = expected + p * k
    assert lincomb(points, ks, base=base) == expected == msm([G, *points], [base, *ks])
    assert lincomb(points, [-k for k in ks], base=-base) == -expected


def test_hash_to_scalars_is_hash_to_scalar_with_a_shared_prefix() -> None:
    lasts = [bytes([j]) * j for j in range(5)]
    assert secp256k1.hash_to_scalars(b"tag", (b"a", b""), lasts) == [
        secp256k1.hash_to_scalar(b"tag", b"a", b"", last) for last in lasts]


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=Q - 1))
def test_point_encoding_round_trips(k: int) -> None:
    p = base_mul(k)
    assert decode_point(p.encode()) == p and len(p.encode()) == 33
    assert hash(decode_point(p.encode())) == hash(p)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        bytes(32),
        G.encode()[:-1],
        G.encode() + b"\x00",
        b"\x04" + G.encode()[1:],  # not compressed
        b"\x06" + G.encode()[1:],  # hybrid
        b"\x00" + G.encode()[1:],
        b"\x02" + P.to_bytes(32, "big"),  # x = p: not canonical
        b"\x02" + (P + 7).to_bytes(32, "big"),  # x = 7 + p would be on the curve if reduced
        b"\x02" + (5).to_bytes(32, "big"),  # x = 5: no point (x^3 + 7 is a non-residue)
        bytes.fromhex("04" + "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
                      "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"),  # G uncompressed
    ],
)
def test_decode_point_is_strict(data: bytes) -> None:
    with pytest.raises(InvalidEncoding):
        decode_point(data)


@pytest.mark.parametrize("data", ["02" * 33, bytearray(G.encode()), None, 5])
def test_decode_point_refuses_non_bytes(data: object) -> None:
    with pytest.raises(InvalidEncoding):
        decode_point(data)


def test_scalars_are_strict() -> None:
    assert decode_scalar(encode_scalar(Q - 1)) == Q - 1
    for bad in (Q.to_bytes(32, "big"), (2**256 - 1).to_bytes(32, "big"), bytes(31), bytes(33), "00"):
        with pytest.raises(InvalidEncoding):
            decode_scalar(bad)
    for k in (-1, Q, True):
        with pytest.raises(InvalidEncoding):
            encode_scalar(k)


def test_hash_to_group_is_domain_separated_and_deterministic() -> None:
    a = hash_to_group(b"test", b"\x00")
    assert a == hash_to_group(b"test", b"\x00")
    assert a != hash_to_group(b"test", b"\x01") and a != hash_to_group(b"tes", b"t\x00")
    assert a != hash_to_group(b"test\x00")  # the parts are length-prefixed
    assert not a.is_identity and decode_point(a.encode()) == a


def test_commitment_generators_are_distinct_cached_and_not_g() -> None:
    gens = secp256k1.commitment_generators(200)
    assert len(gens) == 201 and len(set(gens)) == 201 and G not in gens
    assert secp256k1.commitment_generators(3) == gens[:4]


def test_random_scalars_are_reproducible() -> None:
    a = [secp256k1.random_scalar(DetRng(b"s")) for _ in range(2)]
    assert a[0] == a[1] and 1 <= a[0] < Q


def test_missing_coincurve_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secp256k1, "_coincurve", None)
    assert not secp256k1.available()
    with pytest.raises(VerifiedUnavailable, match=r"pip install 'p2php\[verified\]'") as info:
        base_mul(3)
    assert isinstance(info.value, P2phpError) and isinstance(info.value, ImportError)


def test_p2php_imports_without_coincurve() -> None:
    code = (
        "import sys; sys.modules['coincurve'] = None\n"
        "import p2php, p2php.crypto, p2php.crypto.deck, p2php.crypto.shuffle_proof\n"
        "from p2php.crypto import secp256k1\n"
        "assert not secp256k1.available()\n"
        "try:\n    secp256k1.generator()\nexcept secp256k1.VerifiedUnavailable as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "p2php[verified]" in out.stdout


# ----------------------------------------------------------------------------- ElGamal


def _keys(n: int, seed: bytes = b"keys") -> list[int]:
    rng = DetRng(seed)
    return [secp256k1.random_scalar(rng) for _ in range(n)]


def test_elgamal_round_trip_under_a_joint_key() -> None:
    xs = _keys(3)
    y = elgamal.joint_key([elgamal.public_share(x) for x in xs])
    table = elgamal.card_table(b"deck", 10)
    deck = elgamal.initial_deck(y, list(table))
    rng = DetRng(b"mask")
    for i, ct in enumerate(deck):
        again = elgamal.remask(y, ct, secp256k1.random_scalar(rng))
        assert again != ct
        shares = [elgamal.decryption_share(x, again) for x in xs]
        assert elgamal.open_card(table, elgamal.combine_shares(again, shares)) == i
        assert Ciphertext.decode(again.encode()) == again
    with pytest.raises(NotACard):  # one share missing
        elgamal.open_card(table, elgamal.combine_shares(deck[0], [elgamal.decryption_share(xs[0], deck[0])]))


def test_encrypt_is_elgamal() -> None:
    x = _keys(1)[0]
    y = elgamal.public_share(x)
    m = elgamal.card_point(b"d", 3)
    ct = elgamal.encrypt(y, m, 7)
    assert ct.a == base_mul(7) and ct.b - ct.a * x == m


def test_joint_key_refusals() -> None:
    with pytest.raises(ValueError):
        elgamal.joint_key([])
    with pytest.raises(InvalidEncoding):
        elgamal.joint_key([G, -G])  # a rogue share cancelling another


def test_cards_are_distinct_per_deck_and_index() -> None:
    assert elgamal.card_point(b"a", 0) != elgamal.card_point(b"a", 1) != elgamal.card_point(b"b", 1)
    assert len(elgamal.card_table(b"a", 112)) == 112
    with pytest.raises(ValueError):
        elgamal.card_point(b"a", -1)


@pytest.mark.parametrize("data", [b"", bytes(66), G.encode() * 2 + b"\x00", G.encode() + bytes(33), "x" * 66])
def test_ciphertext_decoding_is_strict(data: object) -> None:
    with pytest.raises(InvalidEncoding):
        Ciphertext.decode(data)
