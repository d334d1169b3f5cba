"""Schnorr and batch Chaum–Pedersen proofs for verified dealing (p2php/crypto/proofs.py, protocol.md B.5–B.6)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

pytest.importorskip("coincurve")

from p2php.crypto import elgamal  # noqa: E402
from p2php.crypto.proofs import (  # noqa: E402
    KeyProof,
    MalformedProof,
    ShareProof,
    proof_context,
    prove_key,
    prove_shares,
    verify_key,
    verify_shares,
)
from p2php.crypto.secp256k1 import Q, base_mul, generator, identity, random_scalar  # noqa: E402
from p2php.rng import DetRng  # noqa: E402

CTX = proof_context(b"game", 3, 0, 1)
G = generator()


def _key(seed: bytes = b"k") -> int:
    return random_scalar(DetRng(seed))


def test_context_binds_every_field() -> None:
    contexts = {
        proof_context(b"game", 3, 0, 1),
        proof_context(b"game2", 3, 0, 1),
        proof_context(b"game", 4, 0, 1),
        proof_context(b"game", 3, 1, 1),
        proof_context(b"game", 3, 0, 2),
        proof_context(b"game", 3, 0, 1, b"transcript"),
    }
    assert len(contexts) == 6 and all(len(c) == 32 for c in contexts)
    with pytest.raises(ValueError):
        proof_context(b"g", -1, 0, 0)
    with pytest.raises(ValueError):
        proof_context(b"g", 0, 1 << 32, 0)


# ----------------------------------------------------------------------------- Schnorr


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=1, max_value=Q - 1), st.binary(max_size=8))
def test_key_proof_completeness(x: int, seed: bytes) -> None:
    proof = prove_key(CTX, x, DetRng(seed))
    assert verify_key(CTX, base_mul(x), proof)
    assert KeyProof.decode(proof.encode()) == proof


def test_key_proof_is_deterministic() -> None:
    x = _key()
    assert prove_key(CTX, x, DetRng(b"n")) == prove_key(CTX, x, DetRng(b"n"))
    assert prove_key(CTX, x, DetRng(b"n")) != prove_key(CTX, x, DetRng(b"m"))


def test_key_proof_soundness() -> None:
    x, other = _key(b"a"), _key(b"b")
    y = base_mul(x)
    proof = prove_key(CTX, x, DetRng(b"n"))
    assert not verify_key(CTX, base_mul(other), proof)  # another seat's key
    assert not verify_key(proof_context(b"game", 3, 0, 2), y, proof)  # replayed for another seat
    assert not verify_key(proof_context(b"other", 3, 0, 1), y, proof)  # replayed into another game
    assert not verify_key(CTX, y, KeyProof(proof.c, (proof.s + 1) % Q))
    assert not verify_key(CTX, y, KeyProof((proof.c + 1) % Q, proof.s))
    assert not verify_key(CTX, y, KeyProof(0, 0))


def test_key_proof_malformed() -> None:
    y = base_mul(_key())
    for proof in (KeyProof(Q, 1), KeyProof(1, Q), KeyProof(-1, 1), ShareProof(1, 1), (1, 1)):
        with pytest.raises(MalformedProof):
            verify_key(CTX, y, proof)  # type: ignore[arg-type]
    with pytest.raises(MalformedProof):
        verify_key(CTX, identity(), KeyProof(1, 1))
    with pytest.raises(MalformedProof):
        verify_key(b"short", y, KeyProof(1, 1))
    for data in (b"", bytes(63), bytes(65), b"\xff" * 64, "x"):
        with pytest.raises(MalformedProof):
            KeyProof.decode(data)


# ----------------------------------------------------------------------------- Chaum–Pedersen: a batch of shares (B.6)


def _batch(k: int) -> tuple[list[bytes], list[elgamal.Ciphertext]]:
    y = base_mul(_key(b"y"))
    cts = [elgamal.encrypt(y, elgamal.card_point(b"d", i), 1000 + i) for i in range(k)]
    return [proof_context(b"game", 3, i, 1) for i in range(k)], cts


def test_batch_proof_completeness_and_determinism() -> None:
    x = _key()
    for k in (1, 2, 5):
        ctxs, cts = _batch(k)
        points = [ct.a for ct in cts]
        ds, proof = prove_shares(ctxs, x, points, DetRng(b"n"))
        assert ds == [elgamal.decryption_share(x, ct) for ct in cts]
        assert verify_shares(ctxs, base_mul(x), points, ds, proof)
        assert prove_shares(ctxs, x, points, DetRng(b"n")) == (ds, proof)
        assert ShareProof.decode(proof.encode()) == proof


def test_batch_proof_soundness() -> None:
    x, other = _key(b"a"), _key(b"b")
    y = base_mul(x)
    ctxs, cts = _batch(4)
    points = [ct.a for ct in cts]
    ds, proof = prove_shares(ctxs, x, points, DetRng(b"n"))
    assert not verify_shares(ctxs, y, points, [*ds[:3], ds[3] + G], proof)  # one wrong share among good ones
    assert not verify_shares(ctxs, y, points, [ds[1], ds[0], *ds[2:]], proof)  # two swapped: each of another slot
    assert not verify_shares(ctxs, y, points[::-1], ds[::-1], proof)  # the same shares, another order
    assert not verify_shares(ctxs[:3], y, points[:3], ds[:3], proof)  # a share dropped
    assert not verify_shares([ctxs[1], ctxs[0], *ctxs[2:]], y, points, ds, proof)  # contexts moved
    assert not verify_shares(ctxs, base_mul(other), points, ds, proof)  # another seat's key
    ds_other, proof_other = prove_shares(ctxs, other, points, DetRng(b"n"))
    assert not verify_shares(ctxs, y, points, ds_other, proof_other)  # another seat's shares under ours
    other_cts = [elgamal.encrypt(base_mul(3), G, 99 + i) for i in range(4)]
    assert not verify_shares(ctxs, y, [ct.a for ct in other_cts], ds, proof)  # shares for other ciphertexts
    replayed = [proof_context(b"game", 4, i, 1) for i in range(4)]
    assert not verify_shares(replayed, y, points, ds, proof)  # replayed at another step
    mixed = [*ds[:2], *prove_shares(ctxs[2:], other, points[2:], DetRng(b"n"))[0]]
    assert not verify_shares(ctxs, y, points, mixed, proof)  # half of them under another key
    assert not verify_shares(ctxs, y, points, ds, ShareProof(proof.c, (proof.s + 1) % Q))
    # Errors that cancel in a plain sum (D_0 + E, D_1 − E) do not cancel under the weights.
    e = base_mul(5)
    assert not verify_shares(ctxs, y, points, [ds[0] + e, ds[1] - e, *ds[2:]], proof)


def test_batch_weights_bind_the_shares() -> None:
    """Shares chosen so that their errors cancel under the honest batch's weights (``w_1·E − w_0·E``) fail: the
    weights, and the challenge, depend on every share, so changing one changes them all."""
    from p2php.crypto.proofs import _batch_statement, _batch_weights

    x = _key()
    y = base_mul(x)
    ctxs, cts = _batch(3)
    points = [ct.a for ct in cts]
    ds, proof = prove_shares(ctxs, x, points, DetRng(b"n"))
    w = _batch_weights(_batch_statement(ctxs, y, points, ds), 3)
    e = base_mul(11)
    forged = [ds[0] + e * w[1], ds[1] - e * w[0], ds[2]]
    assert sum(((d * wi) for d, wi in zip(forged[1:], w[1:], strict=True)), forged[0] * w[0]) == \
        sum(((d * wi) for d, wi in zip(ds[1:], w[1:], strict=True)), ds[0] * w[0])  # the same fold
    assert not verify_shares(ctxs, y, points, forged, proof)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.data())
def test_batch_proof_rejects_any_single_wrong_share(k: int, data: st.DataObject) -> None:
    x = _key()
    ctxs, cts = _batch(k)
    points = [ct.a for ct in cts]
    ds, proof = prove_shares(ctxs, x, points, DetRng(b"n"))
    j = data.draw(st.integers(min_value=0, max_value=k - 1))
    shift = data.draw(st.integers(min_value=1, max_value=Q - 1))
    bad = list(ds)
    bad[j] = bad[j] + base_mul(shift)
    assume(not bad[j].is_identity)  # the identity is refused as malformed, before any proof
    assert not verify_shares(ctxs, base_mul(x), points, bad, proof)


def test_batch_proof_malformed() -> None:
    x = _key()
    ctxs, cts = _batch(2)
    points = [ct.a for ct in cts]
    ds, proof = prove_shares(ctxs, x, points, DetRng(b"n"))
    y = base_mul(x)
    for args in ((ctxs, y, points, [ds[0], identity()]), (ctxs, y, [points[0], identity()], ds),
                 (ctxs, identity(), points, ds), (ctxs, y, points, ds[:1]), (ctxs[:1], y, points, ds),
                 ([], y, [], [])):
        with pytest.raises(MalformedProof):
            verify_shares(*args, proof)  # type: ignore[arg-type]
    with pytest.raises(MalformedProof):
        verify_shares(ctxs, y, points, ds, ShareProof(1, Q))
    with pytest.raises(MalformedProof):
        verify_shares(ctxs, y, points, ds, KeyProof(1, 1))  # type: ignore[arg-type]
    with pytest.raises(MalformedProof):
        prove_shares([], x, [], DetRng(b"n"))
