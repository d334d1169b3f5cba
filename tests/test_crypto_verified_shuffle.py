"""The Terelius–Wikström proof of a shuffle (p2php/crypto/shuffle_proof.py, protocol.md Appendix B.7)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("coincurve")

from p2php.crypto import elgamal  # noqa: E402
from p2php.crypto.elgamal import Ciphertext  # noqa: E402
from p2php.crypto.proofs import MalformedProof, proof_context  # noqa: E402
from p2php.crypto.secp256k1 import Q, base_mul, generator, identity, random_scalar  # noqa: E402
from p2php.crypto.shuffle_proof import (  # noqa: E402
    MAX_SHUFFLE,
    ShuffleProof,
    proof_size,
    prove_shuffle,
    shuffle,
    shuffle_and_prove,
    verify_shuffle,
)
from p2php.rng import DetRng  # noqa: E402

CTX = proof_context(b"game", 7, 2, 1)
G = generator()
KEYS = [random_scalar(DetRng(bytes([i]))) for i in range(3)]
Y = elgamal.joint_key([base_mul(x) for x in KEYS])
DECK = b"deck"


def _deck(n: int) -> list[Ciphertext]:
    """A deck after one honest pass, so the inputs are not the public initial deck."""
    start = elgamal.initial_deck(Y, [elgamal.card_point(DECK, i) for i in range(n)])
    return shuffle(Y, start, DetRng(b"first pass"))[0]


def _open(ct: Ciphertext, table: dict[elgamal.Point, int]) -> int:
    return elgamal.open_card(table, elgamal.combine_shares(ct, [elgamal.decryption_share(x, ct) for x in KEYS]))


def _pass(n: int, seed: bytes = b"pass") -> tuple[list[Ciphertext], list[Ciphertext], ShuffleProof]:
    deck = _deck(n)
    out, proof = shuffle_and_prove(CTX, Y, deck, DetRng(seed))
    return deck, out, proof


@pytest.mark.parametrize("n", [1, 2, 3, 8, 112])
def test_completeness(n: int) -> None:
    deck, out, proof = _pass(n)
    assert verify_shuffle(CTX, Y, deck, out, proof)
    assert ShuffleProof.decode(proof.encode()) == proof and len(proof.encode()) == proof_size(n)
    table = elgamal.card_table(DECK, n)
    assert sorted(_open(ct, table) for ct in out) == list(range(n))
    assert not set(out) & set(deck)  # every ciphertext re-masked


def test_proving_is_deterministic() -> None:
    assert _pass(5, b"s")[2].encode() == _pass(5, b"s")[2].encode()
    assert _pass(5, b"s")[2].encode() != _pass(5, b"t")[2].encode()


def test_the_relation_planting_attack_is_rejected() -> None:
    """Issue 10: one output replaced by twice another (``Y = 2·X``) so the pair could be traced later."""
    deck = _deck(6)
    out, perm, rhos = shuffle(Y, deck, DetRng(b"cheat"))
    honest = prove_shuffle(CTX, Y, deck, out, perm, rhos, DetRng(b"p"))
    planted = list(out)
    planted[3] = Ciphertext(out[1].a * 2, out[1].b * 2)
    assert not verify_shuffle(CTX, Y, deck, planted, honest)
    # nor does a proof made for the planted outputs with the honest witness hold
    assert not verify_shuffle(CTX, Y, deck, planted, prove_shuffle(CTX, Y, deck, planted, perm, rhos, DetRng(b"p")))


def _replace(out: list[Ciphertext], i: int, ct: Ciphertext) -> list[Ciphertext]:
    return [ct if j == i else c for j, c in enumerate(out)]


def test_tampered_or_replaced_outputs_are_rejected() -> None:
    deck, out, proof = _pass(5)
    variants = [
        _replace(out, 2, Ciphertext(out[2].a + G, out[2].b)),
        _replace(out, 2, Ciphertext(out[2].a, out[2].b + G)),
        _replace(out, 0, elgamal.encrypt(Y, elgamal.card_point(DECK, 4), 77)),  # a fresh encryption
        _replace(out, 0, elgamal.remask(Y, out[1], 5)),  # a duplicated card
        [out[1], out[0], *out[2:]],  # two outputs swapped after proving
        list(deck),  # the inputs themselves
    ]
    for bad in variants:
        assert not verify_shuffle(CTX, Y, deck, bad, proof)
    assert not verify_shuffle(CTX, Y, _replace(deck, 1, elgamal.remask(Y, deck[1], 3)), out, proof)


@pytest.mark.parametrize("n", [1, 2, 9])
def test_a_first_pass_over_the_public_deck_whose_a_are_all_g(n: int) -> None:
    """The verifier merges repeated input points (every ``a`` of the public deck is ``G``): still complete, and
    still sound against changed outputs, inputs (one ``a`` no longer ``G``) or responses."""
    start = elgamal.initial_deck(Y, [elgamal.card_point(DECK, i) for i in range(n)])
    assert all(ct.a == G for ct in start)
    out, proof = shuffle_and_prove(CTX, Y, start, DetRng(b"first"))
    assert verify_shuffle(CTX, Y, start, out, proof)
    bad_outputs = [_replace(out, 0, Ciphertext(out[0].a + G, out[0].b)), list(start)]
    if n > 1:
        bad_outputs.append([out[1], out[0], *out[2:]])
    for bad in bad_outputs:
        assert not verify_shuffle(CTX, Y, start, bad, proof)
    for bad_in in (_replace(start, n - 1, Ciphertext(base_mul(2), start[-1].b)),
                   _replace(start, 0, Ciphertext(G, start[0].b + G))):
        assert not verify_shuffle(CTX, Y, bad_in, out, proof)
    s1, s2, s3, s4 = proof.s
    for forged in (dataclasses.replace(proof, s=(s1, s2, s3, (s4 + 1) % Q)),
                   dataclasses.replace(proof, s_prime=((proof.s_prime[0] + 1) % Q, *proof.s_prime[1:]))):
        assert not verify_shuffle(CTX, Y, start, out, forged)


def test_a_non_permutation_cannot_be_proven() -> None:
    deck = _deck(4)
    rhos = [11, 12, 13, 14]
    two_to_one = [elgamal.remask(Y, deck[j], r) for j, r in zip([0, 0, 2, 3], rhos, strict=True)]
    assert not verify_shuffle(CTX, Y, deck, two_to_one, prove_shuffle(CTX, Y, deck, two_to_one, [0, 1, 2, 3], rhos,
                                                                       DetRng(b"p")))
    with pytest.raises(ValueError):
        prove_shuffle(CTX, Y, deck, two_to_one, [0, 0, 2, 3], rhos, DetRng(b"p"))


def test_replay_under_another_context_or_key_is_rejected() -> None:
    deck, out, proof = _pass(4)
    for ctx in (proof_context(b"game2", 7, 2, 1), proof_context(b"game", 8, 2, 1), proof_context(b"game", 7, 3, 1),
                proof_context(b"game", 7, 2, 0), proof_context(b"game", 7, 2, 1, b"other transcript")):
        assert not verify_shuffle(ctx, Y, deck, out, proof)
    assert not verify_shuffle(CTX, Y + G, deck, out, proof)


def _mutations(proof: ShuffleProof) -> list[ShuffleProof]:
    """Every single-component change of a proof: each point moved by G, each scalar plus one."""
    out: list[ShuffleProof] = []
    for name in ("commitment", "chain"):
        points = getattr(proof, name)
        for i in range(len(points)):
            moved = tuple(p + G if j == i else p for j, p in enumerate(points))
            out.append(dataclasses.replace(proof, **{name: moved}))
    out.append(dataclasses.replace(proof, gamma=(proof.gamma + 1) % Q))
    for i in range(4):
        s = list(proof.s)
        s[i] = (s[i] + 1) % Q
        out.append(dataclasses.replace(proof, s=(s[0], s[1], s[2], s[3])))
    for name in ("s_hat", "s_prime"):
        values = getattr(proof, name)
        for i in range(len(values)):
            out.append(dataclasses.replace(proof, **{name: tuple((v + 1) % Q if j == i else v
                                                                 for j, v in enumerate(values))}))
    return out


def test_every_proof_component_is_checked() -> None:
    deck, out, proof = _pass(3)
    mutated = _mutations(proof)
    assert len(mutated) == 4 * 3 + 5
    for bad in mutated:
        assert not verify_shuffle(CTX, Y, deck, out, bad)


def test_zero_responses_are_checked_not_a_crash() -> None:
    deck, out, proof = _pass(3)
    zeros = dataclasses.replace(proof, gamma=0, s=(0, 0, 0, 0), s_hat=(0, 0, 0), s_prime=(0, 0, 0))
    assert not verify_shuffle(CTX, Y, deck, out, zeros)


MALFORMED: list[Callable[[list[Ciphertext], list[Ciphertext], ShuffleProof], tuple[object, ...]]] = [
    lambda d, o, p: (CTX, Y, d, o[:-1], p),  # a ciphertext dropped
    lambda d, o, p: (CTX, Y, d, [*o, o[0]], p),  # one added
    lambda d, o, p: (CTX, Y, [], [], p),
    lambda d, o, p: (CTX, identity(), d, o, p),
    lambda d, o, p: (CTX, Y, d, _replace(o, 0, Ciphertext(identity(), o[0].b)), p),
    lambda d, o, p: (CTX, Y, d, [*o[:-1], b"bytes"], p),
    lambda d, o, p: (b"short", Y, d, o, p),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, gamma=Q)),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, s=(0, 0, 0, -1))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, s_prime=p.s_prime[:-1])),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, chain=(*p.chain[:-1], identity()))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, s_hat=(*p.s_hat[:-1], True))),
    lambda d, o, p: (CTX, Y, d, o, p.encode()),
]


@pytest.mark.parametrize("case", range(len(MALFORMED)))
def test_malformed_statements_and_proofs_raise(case: int) -> None:
    deck, out, proof = _pass(3)
    with pytest.raises(MalformedProof):
        verify_shuffle(*MALFORMED[case](deck, out, proof))  # type: ignore[arg-type]


def test_the_size_bound_is_checked_before_any_group_operation() -> None:
    ct = _deck(1)[0]
    big = [ct] * (MAX_SHUFFLE + 1)
    with pytest.raises(MalformedProof, match="1 to 1024"):
        verify_shuffle(CTX, Y, big, big, _pass(1)[2])
    header = (MAX_SHUFFLE + 1).to_bytes(4, "big")
    with pytest.raises(MalformedProof):
        ShuffleProof.decode(header + bytes(proof_size(MAX_SHUFFLE + 1) - 4))


def test_decoding_is_strict() -> None:
    data = _pass(2)[2].encode()
    point_at, scalar_at = 4, 4 + 4 * 33
    for bad in (b"", data[:3], bytes(4) + data[4:], data[:-1], data + b"\x00",
                data[:point_at] + b"\x04" + data[point_at + 1:],
                data[:scalar_at] + Q.to_bytes(32, "big") + data[scalar_at + 32:], "text"):
        with pytest.raises(MalformedProof):
            ShuffleProof.decode(bad)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_flipped_byte_anywhere_is_rejected_cleanly(data: st.DataObject) -> None:
    deck, out, proof = SMALL
    blob = bytearray(proof.encode() + b"".join(ct.encode() for ct in out))
    i = data.draw(st.integers(min_value=0, max_value=len(blob) - 1))
    blob[i] ^= 1 << data.draw(st.integers(min_value=0, max_value=7))
    raw = bytes(blob)
    size = proof_size(len(out))
    try:
        bad_proof = ShuffleProof.decode(raw[:size])
        bad_out = [Ciphertext.decode(raw[size + 66 * k : size + 66 * (k + 1)]) for k in range(len(out))]
    except MalformedProof:
        return
    except elgamal.InvalidEncoding:
        return
    assert not verify_shuffle(CTX, Y, deck, bad_out, bad_proof)


SMALL = _pass(2, b"small")
