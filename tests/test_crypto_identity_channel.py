"""Peer identities (sign/verify) and sealed per-message channels."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2php.canonical import digest
from p2php.crypto.channel import ChannelError, key_check, message_key, open_sealed, seal
from p2php.crypto.identity import Identity, PublicIdentity

ALICE = Identity.from_secret(bytes(range(32)))
BOB = Identity.from_secret(bytes(range(1, 33)))
EVE = Identity.from_secret(bytes(32))


def test_identity_is_deterministic() -> None:
    again = Identity.from_secret(bytes(range(32)))
    assert again.public == ALICE.public
    assert ALICE.public.sign_key != ALICE.public.box_key
    assert len(ALICE.public.sign_key) == len(ALICE.public.box_key) == 32
    assert ALICE.public.fingerprint() != BOB.public.fingerprint()
    assert len(ALICE.public.fingerprint()) == 16
    assert Identity.generate().public != Identity.generate().public
    with pytest.raises(ValueError):
        Identity.from_secret(b"too short")


@settings(max_examples=30, deadline=None)
@given(st.binary(max_size=200))
def test_sign_verify(data: bytes) -> None:
    sig = ALICE.sign(data)
    assert len(sig) == 64
    assert ALICE.public.verify(sig, data)
    assert not BOB.public.verify(sig, data)
    assert not ALICE.public.verify(sig, data + b"!")
    tampered = bytes([sig[0] ^ 1]) + sig[1:]
    assert not ALICE.public.verify(tampered, data)


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=70), st.binary(max_size=40), st.binary(max_size=40))
def test_verify_never_raises(sig: bytes, sign_key: bytes, data: bytes) -> None:
    assert PublicIdentity(sign_key, b"").verify(sig, data) in (True, False)
    assert not ALICE.public.verify(sig, data) or sig == ALICE.sign(data)


def test_verify_garbage_types() -> None:
    sig = ALICE.sign(b"x")
    assert not ALICE.public.verify(sig[:63], b"x")
    assert not ALICE.public.verify(None, b"x")  # type: ignore[arg-type]
    assert not ALICE.public.verify(sig, "x")  # type: ignore[arg-type]
    assert not PublicIdentity(b"\xff" * 32, b"").verify(sig, b"x")


def ctx(seq: int) -> bytes:
    return digest(b"session", (0).to_bytes(4, "big"), (1).to_bytes(4, "big"), seq.to_bytes(8, "big"))


def test_message_key_symmetric_and_per_message() -> None:
    k_ab = message_key(ALICE, BOB.public.box_key, ctx(1))
    assert k_ab == message_key(BOB, ALICE.public.box_key, ctx(1))
    assert len(k_ab) == 32
    assert k_ab != message_key(ALICE, BOB.public.box_key, ctx(2))
    assert k_ab != message_key(EVE, BOB.public.box_key, ctx(1))
    with pytest.raises(ChannelError):
        message_key(ALICE, b"short", ctx(1))
    with pytest.raises(ChannelError):
        message_key(ALICE, bytes(32), ctx(1))  # low-order point: all-zero shared secret


@settings(max_examples=30, deadline=None)
@given(st.binary(max_size=300), st.binary(max_size=50))
def test_channel_round_trip(plaintext: bytes, aad: bytes) -> None:
    key = message_key(ALICE, BOB.public.box_key, ctx(7))
    sealed = seal(key, plaintext, aad)
    assert open_sealed(message_key(BOB, ALICE.public.box_key, ctx(7)), sealed, aad) == plaintext


def test_channel_rejects_tampering_and_wrong_keys() -> None:
    key = message_key(ALICE, BOB.public.box_key, ctx(3))
    sealed = seal(key, b"your card is the seeker", b"hdr")
    for i in (0, 31, 32, len(sealed) - 1):
        bad = bytearray(sealed)
        bad[i] ^= 1
        with pytest.raises(ChannelError):
            open_sealed(key, bytes(bad), b"hdr")
    with pytest.raises(ChannelError):
        open_sealed(key, sealed, b"other hdr")
    with pytest.raises(ChannelError):
        open_sealed(message_key(EVE, BOB.public.box_key, ctx(3)), sealed, b"hdr")
    with pytest.raises(ChannelError):
        open_sealed(message_key(ALICE, BOB.public.box_key, ctx(4)), sealed, b"hdr")
    with pytest.raises(ChannelError):
        open_sealed(key, sealed[:40], b"hdr")
    with pytest.raises(ChannelError):
        open_sealed(b"short", sealed, b"hdr")


def test_disclosed_key_is_evidence() -> None:
    """Bob discloses one message key; anyone can open exactly that message."""
    k1 = message_key(ALICE, BOB.public.box_key, ctx(1))
    k2 = message_key(ALICE, BOB.public.box_key, ctx(2))
    m1, m2 = seal(k1, b"slot key 5: 1234", b"h1"), seal(k2, b"slot key 6: 99", b"h2")
    assert m1[:32] == key_check(k1)  # the signed message commits to the key
    assert open_sealed(k1, m1, b"h1") == b"slot key 5: 1234"
    with pytest.raises(ChannelError):
        open_sealed(k1, m2, b"h2")
