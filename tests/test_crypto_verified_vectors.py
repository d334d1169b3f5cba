"""Known answers of the verified-dealing primitives (protocol.md Appendix B.9, docs/test-vectors.md).

Each value was computed once from the reference code and is hard-coded: a change to any of them changes the
protocol. ``x = 7`` is the key share; nonces come from ``DetRng`` seeds named in each test.
"""

from __future__ import annotations

import hashlib

import pytest

pytest.importorskip("coincurve")

from p2php.crypto import (  # noqa: E402
    bayer_groth,  # noqa: E402
    elgamal,
    proofs,
)
from p2php.crypto.proofs import KeyProof, ShareProof, proof_context, prove_key, verify_key  # noqa: E402
from p2php.crypto.secp256k1 import (  # noqa: E402
    Q,
    base_mul,
    commitment_generators,
    decode_point,
    hash_to_group,
    hash_to_scalar,
)
from p2php.crypto.shuffle_proof import ShuffleProof, shuffle_and_prove, verify_shuffle  # noqa: E402
from p2php.rng import DetRng  # noqa: E402

H = bytes.fromhex
CTX = proof_context(b"game", 1, 0, 0)


def _lp(*parts: bytes) -> bytes:
    return b"".join(len(p).to_bytes(8, "big") + p for p in parts)


def test_hash_to_group_known_answer() -> None:
    """B.2: try-and-increment over ``02 || D("p2php/verified/h2g/v1", domain, *parts, u32(ctr))``."""
    point = hash_to_group(b"test", bytes(4))
    assert point.encode() == H("02bba9831c117545d5cbd4b3992df8852e7cbd2fa097e0af481278e4483a523f7e")
    # recomputed from the definition with hashlib alone: the first counter whose x decodes
    for ctr in range(64):
        x = hashlib.sha256(_lp(b"p2php/verified/h2g/v1", b"test", bytes(4), ctr.to_bytes(4, "big"))).digest()
        try:
            expected = decode_point(b"\x02" + x)
        except ValueError:
            continue
        break
    assert expected == point
    assert hash_to_group(b"").encode() == H("025c3466f2c971d1174a6c9dff031899697d233b69fe3227d23478a0fa7140129e")


def test_generators_and_cards_known_answer() -> None:
    """B.2, B.3: ``H_i = hash_to_group("p2php/verified/gens/v1", u32(i))``, cards from the card tag."""
    h0, h1 = commitment_generators(1)
    assert h0.encode() == H("025a8c893e4f4b992301ccd8303080782df9583f6b8026692fa6ed9104ab68beff")
    assert h1.encode() == H("02833e7f68b84bcb3e0a7e7acce68249c5c213b49ab9b8ef2d4d0b777e69b56db9")
    assert elgamal.card_point(b"deck", 0).encode() == H(
        "02543dad97c9dd5a30b5a075f204e7d3c5a774c8d82b48eeaf01ccba2bd88738dd")


def test_context_and_hash_to_scalar_known_answer() -> None:
    """B.4: the context digest and ``Hs`` (SHA-512 over length-prefixed parts, mod q)."""
    assert H("cd377b9ce36752b2e64e794cbecb50703061a2a1bd4d6172132725afe33bf752") == CTX
    hs = hash_to_scalar(b"tag", b"a")
    assert hs == 0xC0020F7D94A26D7EC6FC3B43616BDE7CBEAB49D6B3343441C62D85E22B282D3D
    assert hs == int.from_bytes(hashlib.sha512(_lp(b"tag", b"a")).digest(), "big") % Q


def test_schnorr_known_answer() -> None:
    """B.5: ``prove_key(ctx, 7, DetRng(b"schnorr"))``."""
    y = base_mul(7)
    assert y.encode() == H("025cbdf0646e5db4eaa398f365f2ea7a0e3d419b7e0330e39ce92bddedcac4f9bc")
    proof = prove_key(CTX, 7, DetRng(b"schnorr"))
    assert proof.encode() == H(
        "6d6952caaa5d248a330674517b3c6fb6910b979527afcfe808edd3067f096587"
        "4630a04e2a6605f5bb3ff3ab6d7b979150bcebd72756a61dbd2a05b3b37fd144")
    assert verify_key(CTX, y, KeyProof.decode(proof.encode()))


def test_batch_of_shares_known_answer() -> None:
    """B.6: the shares of ``encrypt(7·G, card(deck, i), 5 + i)``, i = 0, 1, under ``x = 7`` with one batch proof,
    slot contexts ``ctx`` and ``ctx(index 1)``, nonce from ``DetRng(b"shares")``."""
    y = base_mul(7)
    cts = [elgamal.encrypt(y, elgamal.card_point(b"deck", i), 5 + i) for i in range(2)]
    assert cts[0].encode() == H(
        "022f8bde4d1a07209355b4a7250a5c5128e88b84bddc619ab7cba8d569b240efe4"
        "03afce4a01f53757d127e7ac8f2f477059ad4861a881af870b066b4f57fba68143")
    ctxs = [CTX, proof_context(b"game", 1, 1, 0)]
    assert ctxs[1] == H("6a4cc3e16fd9b6cfe8921333b207d4f3242111038d53c1776a6a944449af7faf")
    assert cts[1].encode() == H(
        "03fff97bd5755eeea420453a14355235d382f6472f8568a18b2f057a1460297556"
        "037570fdccd264fa2f26cc1e37eb8fe35a46377850325ce15b6b65a73776f140b8")
    ds, proof = proofs.prove_shares(ctxs, 7, [ct.a for ct in cts], DetRng(b"shares"))
    assert [d.encode() for d in ds] == [H("03605bdb019981718b986d0f07e834cb0d9deb8360ffb7f61df982345ef27a7479"),
                                        H("02fe8d1eb1bcb3432b1db5833ff5f2226d9cb5e65cee430558c18ed3a3c86ce1af")]
    assert proof == ShareProof.decode(H(
        "63375eaa5d0785d424ced3dfaa9b855705992da5fce045bfa89455f08a750c73"
        "52e95872cb528ea3a25b9791abf62bf29a0bfe194877a97b3d0190980e8ba576"))
    assert proofs.verify_shares(ctxs, y, [ct.a for ct in cts], ds, proof)


def test_shuffle_known_answer() -> None:
    """B.7: ``shuffle_and_prove(ctx, 7·G, initial_deck(7·G, card(deck, 0..1)), DetRng(b"shuffle"))``."""
    y = base_mul(7)
    deck = elgamal.initial_deck(y, [elgamal.card_point(b"deck", i) for i in range(2)])
    out, proof = shuffle_and_prove(CTX, y, deck, DetRng(b"shuffle"))
    assert [ct.encode() for ct in out] == [
        H("02b47b97c6509e8600b0c51e918eac7dc7df3d53205f5c9515b46a623bf42cc362"
          "024e9b7fc1bf05896cc7c4e1eca4e05abc1fb995cf257fa595475094475c2fa753"),
        H("0246f3398c7d68cc9b41886d7763aa10e37aed4cb1fdc74c5e69c63bcc03b547e0"
          "02ab34c1535fe999abe82e72399b2c9980cac209c4cfe2ae6a9ea23fd81de576d9"),
    ]
    assert proof.gamma == 0xA441873BD92BB19C61764A3570238200A30F7F9EE58EDEBF02E0A49DBACE637D
    encoded = proof.encode()
    assert len(encoded) == 424
    assert hashlib.sha256(encoded).hexdigest() == "094a12320382e591c1a7a605efaa547beee64fe3ff10fbb8b26c61c8b1cc0b2c"
    assert verify_shuffle(CTX, y, deck, out, ShuffleProof.decode(encoded))


@pytest.mark.parametrize(("count", "shape", "size", "outputs_sha", "proof_sha"), [
    (2, (1, 2), 621, "8d97a4bced34cd7b2e60e5f9dd6c716e948b0f55b6621a88aeb99b4b09b77879",
     "a18965203ea5410b4a1bf059c8efce269aaedd4102b9f64c06210ebfda13e435"),
    (24, (3, 8), 2663, "022b8bcd494dc71bb188d6143caec61e459f6356d327b7586bd40e92f72cff0d",
     "6da3018e62f946c84b41730525985f7d2336854bde3210290e57a70977099d13"),
])
def test_bayer_groth_known_answer(count: int, shape: tuple[int, int], size: int, outputs_sha: str,
                                  proof_sha: str) -> None:
    """B.11: ``shuffle_and_prove(ctx, 7·G, initial_deck(7·G, card(deck, 0..N−1)), DetRng(b"bayer-groth"))``, one
    row (N = 2) and three rows of eight (N = 24): the SHA-256 of the outputs' encodings and of the proof."""
    y = base_mul(7)
    deck = elgamal.initial_deck(y, [elgamal.card_point(b"deck", i) for i in range(count)])
    out, proof = bayer_groth.shuffle_and_prove(CTX, y, deck, DetRng(b"bayer-groth"))
    assert bayer_groth.shape(count) == shape
    assert hashlib.sha256(b"".join(ct.encode() for ct in out)).hexdigest() == outputs_sha
    encoded = proof.encode()
    assert len(encoded) == size == bayer_groth.proof_size(count)
    assert hashlib.sha256(encoded).hexdigest() == proof_sha
    assert bayer_groth.verify_shuffle(CTX, y, deck, out, bayer_groth.BgShuffleProof.decode(encoded))
