"""The Bayer–Groth proof of a shuffle (p2php/crypto/bayer_groth/, protocol.md Appendix B.11)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("coincurve")

from secp_counting import counted_products  # noqa: E402

from p2php.crypto import elgamal  # noqa: E402
from p2php.crypto import shuffle_proof as tw  # noqa: E402
from p2php.crypto.bayer_groth import commitments  # noqa: E402
from p2php.crypto.bayer_groth.commitments import commit, hadamard, powers, product, star  # noqa: E402
from p2php.crypto.bayer_groth.hadamard import prove_hadamard, verify_hadamard  # noqa: E402
from p2php.crypto.bayer_groth.multiexp import prove_multiexp, verify_multiexp  # noqa: E402
from p2php.crypto.bayer_groth.product import prove_product, verify_product  # noqa: E402
from p2php.crypto.bayer_groth.shuffle import (  # noqa: E402
    MAX_M,
    MAX_SHUFFLE,
    BgShuffleProof,
    proof_size,
    prove_shuffle,
    shape,
    shuffle,
    shuffle_and_prove,
    verify_shuffle,
    verify_shuffles,
)
from p2php.crypto.bayer_groth.svp import prove_svp, verify_svp  # noqa: E402
from p2php.crypto.bayer_groth.transcript import Transcript  # noqa: E402
from p2php.crypto.bayer_groth.zero import ZeroArgument, prove_zero, verify_zero  # noqa: E402
from p2php.crypto.elgamal import Ciphertext  # noqa: E402
from p2php.crypto.proofs import MalformedProof, proof_context  # noqa: E402
from p2php.crypto.secp256k1 import (  # noqa: E402
    POINT_SIZE,
    SCALAR_SIZE,
    InvalidEncoding,
    P,
    Point,
    Q,
    base_mul,
    generator,
    identity,
    lincomb,
    random_scalar,
)
from p2php.rng import DetRng  # noqa: E402

CTX = proof_context(b"game", 7, 2, 1)
G = generator()
KEYS = [random_scalar(DetRng(bytes([i]))) for i in range(3)]
Y = elgamal.joint_key([base_mul(x) for x in KEYS])
OTHER_Y = elgamal.joint_key([base_mul(x + 1) for x in KEYS])
DECK = b"deck"
PAD = Ciphertext(identity(), identity())


def _start(n: int) -> list[Ciphertext]:
    """The public initial deck: every ``a`` is ``G``."""
    return elgamal.initial_deck(Y, [elgamal.card_point(DECK, i) for i in range(n)])


def _deck(n: int) -> list[Ciphertext]:
    """A deck after one honest pass, so the inputs are not the public initial deck."""
    return shuffle(Y, _start(n), DetRng(b"first pass"))[0]


def _open(ct: Ciphertext, table: dict[Point, int]) -> int:
    return elgamal.open_card(table, elgamal.combine_shares(ct, [elgamal.decryption_share(x, ct) for x in KEYS]))


def _pass(n: int, seed: bytes = b"pass") -> tuple[list[Ciphertext], list[Ciphertext], BgShuffleProof]:
    deck = _deck(n)
    out, proof = shuffle_and_prove(CTX, Y, deck, DetRng(seed))
    return deck, out, proof


def _replace(seq: Sequence[Ciphertext], i: int, ct: Ciphertext) -> list[Ciphertext]:
    return [ct if j == i else c for j, c in enumerate(seq)]


def _rows(values: Sequence[int], m: int, n: int) -> list[list[int]]:
    return [list(values[i * n : (i + 1) * n]) for i in range(m)]


def _prove_any(ctx: bytes, y: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext],
               full_perm: Sequence[int], full_rho: Sequence[int], rng: DetRng) -> BgShuffleProof:
    """A prover rebuilt from protocol.md B.11 out of the public sub-argument provers, without ``prove_shuffle``'s
    check that the witness is a permutation: ``full_perm``/``full_rho`` cover the padding positions too."""
    count = len(inputs)
    m, n = shape(count)
    size = m * n
    assert len(full_perm) == len(full_rho) == size
    t = Transcript(ctx, y.hash_bytes(), count.to_bytes(4, "big"), b"".join(ct.hash_bytes() for ct in inputs),
                   b"".join(ct.hash_bytes() for ct in outputs))
    a_rows = _rows([j + 1 for j in full_perm], m, n)
    r = [random_scalar(rng) for _ in range(m)]
    c_a = [commit(row, ri) for row, ri in zip(a_rows, r, strict=True)]
    t.absorb(b"c_A", c_a)
    x = t.challenge(b"x")
    xp = powers(x, size + 1)
    b = [xp[j + 1] for j in full_perm]
    b_rows = _rows(b, m, n)
    s = [random_scalar(rng) for _ in range(m)]
    c_b = [commit(row, si) for row, si in zip(b_rows, s, strict=True)]
    t.absorb(b"c_B", c_b)
    yy, z = t.challenge(b"y"), t.challenge(b"z")
    d_rows = [[(yy * p + q - z) % Q for p, q in zip(ar, br, strict=True)]
              for ar, br in zip(a_rows, b_rows, strict=True)]
    product_arg = prove_product(t, d_rows, [(yy * ri + si) % Q for ri, si in zip(r, s, strict=True)], rng)
    rho = -sum(p * q for p, q in zip(full_rho, b, strict=True)) % Q
    padded = [*outputs, *([PAD] * (size - count))]
    out_rows = [padded[i * n : (i + 1) * n] for i in range(m)]
    multiexp_arg = prove_multiexp(t, y, out_rows, b_rows, s, rho, rng)
    return BgShuffleProof(count, tuple(c_a), tuple(c_b), product_arg, multiexp_arg)


def _full(perm: Sequence[int], rhos: Sequence[int]) -> tuple[list[int], list[int]]:
    m, n = shape(len(perm))
    return [*perm, *range(len(perm), m * n)], [*rhos, *([0] * (m * n - len(perm)))]


# ----------------------------------------------------------------------------- completeness


#  1, 2 and 13, 20: m = 1 (N = 1 padded); 24, 108: m ≥ 2 without padding; 25, 37: m ≥ 2 with padding
SIZES = [1, 2, 3, 5, 8, 13, 20, 24, 25, 37, 108]


@pytest.mark.parametrize("n", SIZES)
def test_completeness_over_two_passes(n: int) -> None:
    start = _start(n)
    assert all(ct.a == G for ct in start)
    first, proof1 = shuffle_and_prove(CTX, Y, start, DetRng(b"one"))
    second, proof2 = shuffle_and_prove(CTX, Y, first, DetRng(b"two"))
    table = elgamal.card_table(DECK, n)
    for inputs, outputs, proof in ((start, first, proof1), (first, second, proof2)):
        assert proof.count == n
        assert verify_shuffle(CTX, Y, inputs, outputs, proof) is True
        data = proof.encode()
        assert len(data) == proof_size(n)
        assert BgShuffleProof.decode(data) == proof
        assert sorted(_open(ct, table) for ct in outputs) == list(range(n))
        assert not set(outputs) & set(inputs)  # every ciphertext re-masked


def test_the_shapes_under_test_cover_both_layouts_with_and_without_padding() -> None:
    layouts = {(shape(n)[0] > 1, shape(n)[0] * shape(n)[1] > n) for n in SIZES}
    assert layouts == {(False, False), (False, True), (True, False), (True, True)}


@pytest.mark.parametrize("n", [1, 5, 37])
def test_proving_is_deterministic(n: int) -> None:
    assert _pass(n, b"s")[2].encode() == _pass(n, b"s")[2].encode()
    assert _pass(n, b"s")[1] == _pass(n, b"s")[1]
    assert _pass(n, b"s")[2].encode() != _pass(n, b"t")[2].encode()


def test_the_shuffle_and_its_randomness_are_the_terelius_wikstrom_ones() -> None:
    """B.11 (informative): ``π`` and ``ρ`` as in B.7, so both proofs prove the same statement."""
    deck = _deck(9)
    assert shuffle(Y, deck, DetRng(b"r")) == tw.shuffle(Y, deck, DetRng(b"r"))
    out, perm, rhos = shuffle(Y, deck, DetRng(b"r"))
    assert tw.verify_shuffle(CTX, Y, deck, out, tw.prove_shuffle(CTX, Y, deck, out, perm, rhos, DetRng(b"p")))
    assert verify_shuffle(CTX, Y, deck, out, prove_shuffle(CTX, Y, deck, out, perm, rhos, DetRng(b"p")))


@pytest.mark.parametrize("n", [1, 5, 25])
def test_the_prover_rebuilt_from_the_spec_matches_the_reference(n: int) -> None:
    """``_prove_any`` (the spec's transcript and randomness order) gives the reference's bytes for a permutation,
    which makes the forgeries below meaningful."""
    deck = _deck(n)
    out, perm, rhos = shuffle(Y, deck, DetRng(b"r"))
    reference = prove_shuffle(CTX, Y, deck, out, perm, rhos, DetRng(b"p"))
    assert _prove_any(CTX, Y, deck, out, *_full(perm, rhos), DetRng(b"p")) == reference


# ----------------------------------------------------------------------------- shape and size


def test_shape_for_every_size() -> None:
    for count in range(1, MAX_SHUFFLE + 1):
        m, n = shape(count)
        assert 1 <= m <= MAX_M and n >= 2, count
        assert m * n >= count, count
        assert m * n - count < n, count  # never a whole row of padding
        # protocol.md B.11, Encoding
        expected = (4 + POINT_SIZE * (11 * m + 2) + SCALAR_SIZE * (5 * n + 7) if m >= 2
                    else 4 + POINT_SIZE * 9 + SCALAR_SIZE * (3 * n + 4))
        assert proof_size(count) == expected, count
        if count >= 16:
            assert proof_size(count) < tw.proof_size(count), count
    assert shape(108) == (6, 18)
    assert proof_size(108) == 5352
    for bad in (0, MAX_SHUFFLE + 1, -1):
        with pytest.raises(ValueError):
            shape(bad)


def test_shape_minimises_the_proof_size() -> None:
    for count in range(1, MAX_SHUFFLE + 1):
        m, _ = shape(count)
        for other in range(1, MAX_M + 1):
            n = max(2, -(-count // other))
            size = (4 + POINT_SIZE * (11 * other + 2) + SCALAR_SIZE * (5 * n + 7) if other >= 2
                    else 4 + POINT_SIZE * 9 + SCALAR_SIZE * (3 * n + 4))
            assert proof_size(count) < size or (proof_size(count) == size and m <= other), (count, other)


# ----------------------------------------------------------------------------- soundness


@pytest.mark.parametrize("n", [5, 25])
def test_wrong_outputs_are_rejected(n: int) -> None:
    deck = _deck(n)
    out, perm, rhos = shuffle(Y, deck, DetRng(b"cheat"))
    proof = prove_shuffle(CTX, Y, deck, out, perm, rhos, DetRng(b"p"))
    assert verify_shuffle(CTX, Y, deck, out, proof)
    dup_perm = [perm[1] if i == 0 else j for i, j in enumerate(perm)]  # card perm[1] twice, perm[0] missing
    duplicated = [elgamal.remask(Y, deck[j], r) for j, r in zip(dup_perm, rhos, strict=True)]
    other_key = [elgamal.remask(OTHER_Y, deck[j], r) if i == 2 else elgamal.remask(Y, deck[j], r)
                 for i, (j, r) in enumerate(zip(perm, rhos, strict=True))]
    other_card = (perm[3] + 1) % n
    fresh = _replace(out, 3, elgamal.encrypt(Y, elgamal.card_point(DECK, other_card), 77))
    planted = _replace(out, 3, Ciphertext(out[1].a * 2, out[1].b * 2))
    variants = {
        "swapped": [out[1], out[0], *out[2:]],
        "reversed": out[::-1],
        "duplicated": duplicated,
        "other key": other_key,
        "fresh encryption": fresh,
        "planted relation": planted,
        "a moved": _replace(out, 2, Ciphertext(out[2].a + G, out[2].b)),
        "b moved": _replace(out, 2, Ciphertext(out[2].a, out[2].b + G)),
        "the inputs": list(deck),
    }
    for name, bad in variants.items():
        assert bad != out
        # the honest proof with the outputs substituted
        assert verify_shuffle(CTX, Y, deck, bad, proof) is False, name
        # a proof made by the real prover for the bad outputs with the honest witness
        honest_witness = prove_shuffle(CTX, Y, deck, bad, perm, rhos, DetRng(b"p"))
        assert verify_shuffle(CTX, Y, deck, bad, honest_witness) is False, name
    # the duplicated deck with its own (non-permutation) witness: the reference prover refuses it, a forger fails
    with pytest.raises(ValueError):
        prove_shuffle(CTX, Y, deck, duplicated, dup_perm, rhos, DetRng(b"p"))
    forged = _prove_any(CTX, Y, deck, duplicated, *_full(dup_perm, rhos), DetRng(b"p"))
    assert verify_shuffle(CTX, Y, deck, duplicated, forged) is False


def test_a_non_permutation_fails_the_product_argument() -> None:
    """With a witness that maps two outputs to one input the multi-exponentiation alone could be satisfied by a
    cheater; the product argument must refuse ``a`` that is not a permutation."""
    deck = _deck(4)
    rhos = [11, 12, 13, 14]
    two_to_one = [elgamal.remask(Y, deck[j], r) for j, r in zip([0, 0, 2, 3], rhos, strict=True)]
    for perm in ([0, 0, 2, 3], [0, 1, 2, 3], [1, 0, 2, 3]):
        forged = _prove_any(CTX, Y, deck, two_to_one, *_full(perm, rhos), DetRng(b"p"))
        assert verify_shuffle(CTX, Y, deck, two_to_one, forged) is False


@pytest.mark.parametrize("n", [1, 25])
def test_a_card_sent_to_a_padding_position_is_rejected(n: int) -> None:
    """Padding positions hold ``(O, O)``: a witness that swaps a real position with a padding one does not verify."""
    deck = _deck(n)
    out, perm, rhos = shuffle(Y, deck, DetRng(b"r"))
    full_perm, full_rho = _full(perm, rhos)
    assert len(full_perm) > n
    full_perm[0], full_perm[-1] = full_perm[-1], full_perm[0]
    assert verify_shuffle(CTX, Y, deck, out, _prove_any(CTX, Y, deck, out, full_perm, full_rho, DetRng(b"p"))) is False


@pytest.mark.parametrize("n", [5, 37])
def test_replay_under_another_statement_is_rejected(n: int) -> None:
    deck, out, proof = _pass(n)
    for ctx in (proof_context(b"game2", 7, 2, 1), proof_context(b"game", 8, 2, 1), proof_context(b"game", 7, 3, 1),
                proof_context(b"game", 7, 2, 0), proof_context(b"game", 7, 2, 1, b"other transcript")):
        assert verify_shuffle(ctx, Y, deck, out, proof) is False
    assert verify_shuffle(CTX, OTHER_Y, deck, out, proof) is False
    assert verify_shuffle(CTX, Y + G, deck, out, proof) is False
    assert verify_shuffle(CTX, Y, _replace(deck, 1, elgamal.remask(Y, deck[1], 3)), out, proof) is False
    assert verify_shuffle(CTX, Y, _deck(n + 1)[1:], out, proof) is False
    assert verify_shuffle(CTX, Y, out, out, proof) is False
    # the inputs unchanged as outputs, with the proof of another shuffle of the same inputs
    assert verify_shuffle(CTX, Y, deck, deck, proof) is False
    # a proof of another shuffle of the same inputs
    other_out, other_proof = shuffle_and_prove(CTX, Y, deck, DetRng(b"another"))
    assert verify_shuffle(CTX, Y, deck, out, other_proof) is False
    assert verify_shuffle(CTX, Y, deck, other_out, proof) is False


@pytest.mark.parametrize("n", [1, 2, 13, 25])
def test_a_first_pass_over_the_public_deck_whose_a_are_all_g(n: int) -> None:
    """The verifier merges repeated points (every ``a`` of the public deck is ``G``): still sound."""
    start = _start(n)
    out, proof = shuffle_and_prove(CTX, Y, start, DetRng(b"first"))
    assert verify_shuffle(CTX, Y, start, out, proof)
    bad_outputs = [_replace(out, 0, Ciphertext(out[0].a + G, out[0].b)), list(start)]
    if n > 1:
        bad_outputs.append([out[1], out[0], *out[2:]])
    for bad in bad_outputs:
        assert verify_shuffle(CTX, Y, start, bad, proof) is False
    for bad_in in (_replace(start, n - 1, Ciphertext(base_mul(2), start[-1].b)),
                   _replace(start, 0, Ciphertext(G, start[0].b + G))):
        assert verify_shuffle(CTX, Y, bad_in, out, proof) is False


# ----------------------------------------------------------------------------- every element is checked


def _point_at(i: int) -> int:
    return 4 + POINT_SIZE * i


def _scalar_at(proof: BgShuffleProof, j: int) -> int:
    return 4 + POINT_SIZE * len(proof.points()) + SCALAR_SIZE * j


@pytest.mark.parametrize("n", [1, 5, 24, 37, 108])
def test_every_point_and_scalar_of_the_proof_is_checked(n: int) -> None:
    deck, out, proof = _pass(n)
    data = proof.encode()
    points, scalars = proof.points(), proof.scalars()
    assert len(data) == _scalar_at(proof, len(scalars))
    assert (shape(n)[0] > 1) == (n > 20)
    for i, p in enumerate(points):
        at = _point_at(i)
        assert data[at : at + POINT_SIZE] == p.encode()
        bad = BgShuffleProof.decode(data[:at] + (p + G).encode() + data[at + POINT_SIZE :])
        assert bad.points()[i] == p + G
        assert verify_shuffle(CTX, Y, deck, out, bad) is False, f"point {i} of {len(points)}"
    for j, k in enumerate(scalars):
        at = _scalar_at(proof, j)
        assert int.from_bytes(data[at : at + SCALAR_SIZE], "big") == k
        bad = BgShuffleProof.decode(data[:at] + ((k + 1) % Q).to_bytes(SCALAR_SIZE, "big") + data[at + SCALAR_SIZE :])
        assert bad.scalars()[j] == (k + 1) % Q
        assert verify_shuffle(CTX, Y, deck, out, bad) is False, f"scalar {j} of {len(scalars)}"


@pytest.mark.parametrize("n", [3, 25])
def test_degenerate_responses_are_rejected_not_a_crash(n: int) -> None:
    deck, out, proof = _pass(n)
    data = proof.encode()
    head = _scalar_at(proof, 0)
    n_scalars = len(proof.scalars())
    for filler in (bytes(SCALAR_SIZE), (1).to_bytes(SCALAR_SIZE, "big"), (Q - 1).to_bytes(SCALAR_SIZE, "big")):
        bad = BgShuffleProof.decode(data[:head] + filler * n_scalars)
        assert verify_shuffle(CTX, Y, deck, out, bad) is False
    same_points = BgShuffleProof.decode(data[:4] + G.encode() * len(proof.points()) + data[head:])
    assert verify_shuffle(CTX, Y, deck, out, same_points) is False


# ----------------------------------------------------------------------------- malformed


def _with_n(data: bytes, count: int) -> bytes:
    return count.to_bytes(4, "big") + data[4:]


def _drop_last(values: tuple[object, ...]) -> tuple[object, ...]:
    return values[:-1]


Case = Callable[[list[Ciphertext], list[Ciphertext], BgShuffleProof], tuple[object, ...]]

MALFORMED_STATEMENTS: list[Case] = [
    lambda d, o, p: (CTX, Y, d, o[:-1], p),  # an output dropped
    lambda d, o, p: (CTX, Y, d, [*o, o[0]], p),  # one added
    lambda d, o, p: (CTX, Y, d[:-1], o, p),  # an input dropped
    lambda d, o, p: (CTX, Y, [], [], p),  # N = 0
    lambda d, o, p: (CTX, Y, [d[0]] * (MAX_SHUFFLE + 1), [o[0]] * (MAX_SHUFFLE + 1), p),  # N = 1025
    lambda d, o, p: (CTX, identity(), d, o, p),
    lambda d, o, p: (CTX, b"key", d, o, p),
    lambda d, o, p: (CTX, Y, d, _replace(o, 0, Ciphertext(identity(), o[0].b)), p),
    lambda d, o, p: (CTX, Y, d, _replace(o, 1, Ciphertext(o[1].a, identity())), p),
    lambda d, o, p: (CTX, Y, _replace(d, 2, Ciphertext(identity(), d[2].b)), o, p),
    lambda d, o, p: (CTX, Y, d, _replace(o, 0, PAD), p),
    lambda d, o, p: (CTX, Y, d, [*o[:-1], b"bytes"], p),
    lambda d, o, p: (CTX, Y, d, [*o[:-1], (o[-1].a, o[-1].b)], p),
    lambda d, o, p: (CTX, Y, iter(d), o, p),
    lambda d, o, p: (b"short", Y, d, o, p),
    lambda d, o, p: (CTX.hex(), Y, d, o, p),
]

MALFORMED_PROOFS: list[Case] = [
    lambda d, o, p: (CTX, Y, d, o, p.encode()),  # bytes, not a proof object
    lambda d, o, p: (CTX, Y, d, o, None),
    lambda d, o, p: (CTX, Y, d, o, tw.shuffle_and_prove(CTX, Y, d, DetRng(b"tw"))[1]),  # the other proof system
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, count=p.count - 1)),  # N not the statement's
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, count=p.count + 1)),
    lambda d, o, p: (CTX, Y, d[:-1], o[:-1], p),  # the statement's N not the proof's
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, c_a=(*p.c_a, G))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, c_a=_drop_last(p.c_a))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, c_a=(*p.c_a, G), c_b=_drop_last(p.c_b))),  # same total
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, c_a=(identity(), *p.c_a[1:]))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, c_b=(G.encode(), *p.c_b[1:]))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(p.multiexp,
                                                                                      a=_drop_last(p.multiexp.a)))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(
        p.multiexp, a=(*p.multiexp.a, 1)))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(
        p.multiexp, e=_drop_last(p.multiexp.e)))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(
        p.multiexp, e=((G, G), *p.multiexp.e[1:])))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(
        p.multiexp, e=(PAD, *p.multiexp.e[1:])))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(p.multiexp, c_a0=identity()))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(p.multiexp, tau=Q))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(p.multiexp, r=-1))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(p.multiexp, b=True))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=dataclasses.replace(p.multiexp, s=1.0))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, multiexp=None)),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=None)),
    # a scalar moved from one sub-argument to another: same totals, wrong layout
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(
        p, multiexp=dataclasses.replace(p.multiexp, a=_drop_last(p.multiexp.a)),
        product=dataclasses.replace(p.product, svp=dataclasses.replace(
            p.product.svp, a_tilde=(*p.product.svp.a_tilde, 1))))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=dataclasses.replace(
        p.product, svp=dataclasses.replace(p.product.svp, b_tilde_mid=(*p.product.svp.b_tilde_mid, 1))))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=dataclasses.replace(
        p.product, svp=dataclasses.replace(p.product.svp, c_d=identity())))),
]

#: only for a proof with m ≥ 2 rows (the product argument has a Hadamard argument)
MALFORMED_PROOFS_M2: list[Case] = [
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=dataclasses.replace(p.product, c_b=None,
                                                                                       hadamard=None))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=dataclasses.replace(p.product, c_b=identity()))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=dataclasses.replace(
        p.product, hadamard=dataclasses.replace(p.product.hadamard, c_b_mid=_drop_last(p.product.hadamard.c_b_mid))))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=dataclasses.replace(
        p.product, hadamard=dataclasses.replace(p.product.hadamard, zero=dataclasses.replace(
            p.product.hadamard.zero, c_d=(*p.product.hadamard.zero.c_d, G)))))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=dataclasses.replace(
        p.product, hadamard=dataclasses.replace(p.product.hadamard, zero=dataclasses.replace(
            p.product.hadamard.zero, a=_drop_last(p.product.hadamard.zero.a)))))),
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=dataclasses.replace(
        p.product, hadamard=dataclasses.replace(p.product.hadamard, zero=dataclasses.replace(
            p.product.hadamard.zero, t=Q))))),
]

#: only for a proof with m = 1 (no Hadamard argument)
MALFORMED_PROOFS_M1: list[Case] = [
    lambda d, o, p: (CTX, Y, d, o, dataclasses.replace(p, product=dataclasses.replace(p.product, c_b=G))),
]

SMALL = _pass(5, b"small")
LARGE = _pass(25, b"large")


@pytest.mark.parametrize("case", range(len(MALFORMED_STATEMENTS)))
@pytest.mark.parametrize("which", ["m1", "m3"])
def test_malformed_statements_raise(case: int, which: str) -> None:
    deck, out, proof = SMALL if which == "m1" else LARGE
    with pytest.raises(MalformedProof):
        verify_shuffle(*MALFORMED_STATEMENTS[case](deck, out, proof))  # type: ignore[arg-type]


@pytest.mark.parametrize("case", range(len(MALFORMED_PROOFS)))
@pytest.mark.parametrize("which", ["m1", "m3"])
def test_malformed_proofs_raise(case: int, which: str) -> None:
    deck, out, proof = SMALL if which == "m1" else LARGE
    with pytest.raises(MalformedProof):
        verify_shuffle(*MALFORMED_PROOFS[case](deck, out, proof))  # type: ignore[arg-type]


@pytest.mark.parametrize("case", range(len(MALFORMED_PROOFS_M2)))
def test_malformed_hadamard_parts_raise(case: int) -> None:
    deck, out, proof = LARGE
    assert shape(len(deck))[0] >= 3
    with pytest.raises(MalformedProof):
        verify_shuffle(*MALFORMED_PROOFS_M2[case](deck, out, proof))  # type: ignore[arg-type]


@pytest.mark.parametrize("case", range(len(MALFORMED_PROOFS_M1)))
def test_malformed_single_row_parts_raise(case: int) -> None:
    deck, out, proof = SMALL
    assert shape(len(deck))[0] == 1
    with pytest.raises(MalformedProof):
        verify_shuffle(*MALFORMED_PROOFS_M1[case](deck, out, proof))  # type: ignore[arg-type]


@pytest.mark.parametrize("which", ["m1", "m3"])
def test_decoding_is_strict(which: str) -> None:
    proof = (SMALL if which == "m1" else LARGE)[2]
    data = proof.encode()
    count = proof.count
    other_size = next(c for c in range(count + 1, MAX_SHUFFLE + 1) if proof_size(c) != proof_size(count))
    first_point, last_point = _point_at(0), _point_at(len(proof.points()) - 1)
    first_scalar, last_scalar = _scalar_at(proof, 0), _scalar_at(proof, len(proof.scalars()) - 1)
    bad_inputs: list[object] = [
        b"", data[:3], data[:4], data[:-1], data[:-SCALAR_SIZE], data + b"\x00", data + bytes(SCALAR_SIZE),
        _with_n(data, 0), _with_n(data, MAX_SHUFFLE + 1), _with_n(data, 0xFFFFFFFF), _with_n(data, other_size),
        (MAX_SHUFFLE + 1).to_bytes(4, "big") + bytes(proof_size(MAX_SHUFFLE) - 4),
        data[:first_point] + bytes(POINT_SIZE) + data[first_point + POINT_SIZE :],  # the identity's "encoding"
        data[:last_point] + bytes(POINT_SIZE) + data[last_point + POINT_SIZE :],
        data[:first_point] + b"\x04" + data[first_point + 1 :],
        data[:first_point] + b"\x02" + P.to_bytes(32, "big") + data[first_point + POINT_SIZE :],  # x = p
        data[:last_point] + b"\x03" + (P + 1).to_bytes(32, "big") + data[last_point + POINT_SIZE :],
        data[:first_point] + b"\x02" + (5).to_bytes(32, "big") + data[first_point + POINT_SIZE :],  # x³+7 no root
        data[:first_scalar] + Q.to_bytes(32, "big") + data[first_scalar + SCALAR_SIZE :],
        data[:last_scalar] + (2**256 - 1).to_bytes(32, "big"),
        bytearray(data), memoryview(data), data.hex(), None, proof,
    ]
    assert len(data) == proof_size(count) and data[last_scalar + SCALAR_SIZE :] == b""
    for bad in bad_inputs:
        with pytest.raises(MalformedProof):
            BgShuffleProof.decode(bad)


def test_x_equal_5_has_no_point_on_the_curve() -> None:
    """The ``x`` used above for a point that does not decode: ``x³ + 7`` is not a square mod ``p``."""
    assert pow(5**3 + 7, (P - 1) // 2, P) == P - 1


@pytest.mark.parametrize(("n", "other"), [(2, 1), (25, 26), (26, 25)])
def test_a_proof_relabelled_to_another_n_with_the_same_size(n: int, other: int) -> None:
    """N = 1 and 2 share the shape (1, 2), N = 25 and 26 the shape (3, 9): a relabelled proof decodes, and is
    refused for its own statement and fails for one of the new size."""
    assert shape(n) == shape(other)
    deck, out, proof = _pass(n)
    relabelled = BgShuffleProof.decode(_with_n(proof.encode(), other))
    assert relabelled.count == other and relabelled.encode()[4:] == proof.encode()[4:]
    with pytest.raises(MalformedProof):
        verify_shuffle(CTX, Y, deck, out, relabelled)
    bigger = _deck(max(n, other))
    outs = [*out, *bigger[n:]][:other]
    assert verify_shuffle(CTX, Y, bigger[:other], outs, relabelled) is False


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_a_flipped_bit_anywhere_is_rejected_cleanly(data: st.DataObject) -> None:
    deck, out, proof = SMALL
    blob = bytearray(proof.encode() + b"".join(ct.encode() for ct in out))
    i = data.draw(st.integers(min_value=0, max_value=len(blob) - 1))
    blob[i] ^= 1 << data.draw(st.integers(min_value=0, max_value=7))
    raw = bytes(blob)
    size = proof_size(len(out))
    try:
        bad_proof = BgShuffleProof.decode(raw[:size])
        bad_out = [Ciphertext.decode(raw[size + 66 * k : size + 66 * (k + 1)]) for k in range(len(out))]
    except InvalidEncoding:  # MalformedProof is one
        return
    assert verify_shuffle(CTX, Y, deck, bad_out, bad_proof) is False


# ----------------------------------------------------------------------------- sub-arguments


def _scalars(rng: DetRng, count: int) -> list[int]:
    return [random_scalar(rng) for _ in range(count)]


@pytest.mark.parametrize("n", [2, 3, 7])
def test_single_value_product(n: int) -> None:
    rng = DetRng(b"svp%d" % n)
    a, r = _scalars(rng, n), random_scalar(rng)
    c_a, b = commit(a, r), product(a)

    def verify(c: Point, claim: int, arg: object) -> bool:
        t = Transcript(b"test")
        t.absorb(b"c_a", (c,))
        return verify_svp(t, c, claim, arg, n)  # type: ignore[arg-type]

    t = Transcript(b"test")
    t.absorb(b"c_a", (c_a,))
    arg = prove_svp(t, a, r, DetRng(b"prove"))
    assert len(arg.a_tilde) == n and len(arg.b_tilde_mid) == n - 2
    assert verify(c_a, b, arg)
    assert not verify(c_a, (b + 1) % Q, arg)
    assert not verify(c_a, 0, arg)
    assert not verify(commit([a[0] + 1, *a[1:]], r), b, arg)
    for name in ("r_tilde", "s_tilde"):
        assert not verify(c_a, b, dataclasses.replace(arg, **{name: (getattr(arg, name) + 1) % Q}))
    assert not verify(c_a, b, dataclasses.replace(arg, a_tilde=((arg.a_tilde[-1] + 1) % Q, *arg.a_tilde[1:])))
    for name in ("c_d", "c_delta", "c_big_delta"):
        assert not verify(c_a, b, dataclasses.replace(arg, **{name: getattr(arg, name) + G}))
    if n > 2:
        assert not verify(c_a, b, dataclasses.replace(arg, b_tilde_mid=((arg.b_tilde_mid[0] + 1) % Q,
                                                                         *arg.b_tilde_mid[1:])))
    # a prover that claims a wrong product from the start
    wrong = [*a[:-1], a[-1] * 2 % Q]
    t = Transcript(b"test")
    t.absorb(b"c_a", (c_a,))
    assert not verify(c_a, b, prove_svp(t, wrong, r, DetRng(b"prove")))
    with pytest.raises(ValueError):
        prove_svp(Transcript(b"test"), a[:1], r, DetRng(b"prove"))


def _zero_rows(rng: DetRng, y: int, m: int, n: int) -> tuple[list[list[int]], list[list[int]]]:
    """Random rows with ``Σ a_i ⋆ b_i = 0`` (the last entry of ``b_m`` solves the equation)."""
    a_rows = [_scalars(rng, n) for _ in range(m)]
    b_rows = [_scalars(rng, n) for _ in range(m)]
    yp = powers(y, n, start=1)
    rest = (sum(star(ai, bi, yp) for ai, bi in zip(a_rows, b_rows, strict=True))
            - a_rows[-1][-1] * b_rows[-1][-1] * yp[-1]) % Q
    b_rows[-1][-1] = -rest * pow(a_rows[-1][-1] * yp[-1], -1, Q) % Q
    assert sum(star(ai, bi, yp) for ai, bi in zip(a_rows, b_rows, strict=True)) % Q == 0
    return a_rows, b_rows


def _prove_zero_unchecked(t: Transcript, y: int, a_rows: Sequence[Sequence[int]], r_a: Sequence[int],
                          b_rows: Sequence[Sequence[int]], s_b: Sequence[int], rng: DetRng) -> ZeroArgument:
    """``prove_zero`` as protocol.md B.11 states it, minus the prover's own check that ``d_{m+1} = 0``."""
    m, n = len(a_rows), len(a_rows[0])
    yp = powers(y, n, start=1)
    a0, r0 = _scalars(rng, n), random_scalar(rng)
    b_last, s_last = _scalars(rng, n), random_scalar(rng)
    t_k = [0 if k == m + 1 else random_scalar(rng) for k in range(2 * m + 1)]
    a_all, b_all = [a0, *a_rows], [*b_rows, b_last]
    d = [0] * (2 * m + 1)
    for i, ai in enumerate(a_all):
        for j, bj in enumerate(b_all, start=1):
            d[i + m + 1 - j] = (d[i + m + 1 - j] + star(ai, bj, yp)) % Q
    c_a0, c_b_last = commit(a0, r0), commit(b_last, s_last)
    c_d = tuple(commit((d[k],), t_k[k]) for k in range(2 * m + 1) if k != m + 1)
    t.absorb(b"zero", (c_a0, c_b_last, *c_d))
    xp = powers(t.challenge(b"zero-x"), 2 * m + 1)
    return ZeroArgument(
        c_a0, c_b_last, c_d,
        tuple(sum(xp[i] * row[col] for i, row in enumerate(a_all)) % Q for col in range(n)),
        tuple(sum(xp[m + 1 - j] * row[col] for j, row in enumerate(b_all, start=1)) % Q for col in range(n)),
        sum(xp[i] * ri for i, ri in enumerate((r0, *r_a))) % Q,
        sum(xp[m + 1 - j] * sj for j, sj in enumerate((*s_b, s_last), start=1)) % Q,
        sum(xp[k] * t_k[k] for k in range(2 * m + 1)) % Q,
    )


@pytest.mark.parametrize(("m", "n"), [(1, 2), (2, 3), (3, 4)])
def test_zero_argument(m: int, n: int) -> None:
    rng = DetRng(b"zero%d%d" % (m, n))
    y = random_scalar(rng)
    a_rows, b_rows = _zero_rows(rng, y, m, n)
    r_a, s_b = _scalars(rng, m), _scalars(rng, m)
    c_a = [commit(row, r) for row, r in zip(a_rows, r_a, strict=True)]
    c_b = [commit(row, s) for row, s in zip(b_rows, s_b, strict=True)]

    def transcript() -> Transcript:
        t = Transcript(b"test")
        t.absorb(b"rows", (*c_a, *c_b))
        return t

    arg = prove_zero(transcript(), y, a_rows, r_a, b_rows, s_b, DetRng(b"prove"))
    assert len(arg.c_d) == 2 * m and ZeroArgument.counts(m, n) == (len(arg.points()), len(arg.scalars()))
    assert verify_zero(transcript(), y, c_a, c_b, arg, n)
    # the test's unchecked prover is the reference prover on true rows
    assert _prove_zero_unchecked(transcript(), y, a_rows, r_a, b_rows, s_b, DetRng(b"prove")) == arg
    assert not verify_zero(transcript(), (y + 1) % Q, c_a, c_b, arg, n)  # another ⋆ map
    assert not verify_zero(transcript(), y, [c_a[0] + G, *c_a[1:]], c_b, arg, n)
    assert not verify_zero(transcript(), y, c_a, [*c_b[:-1], c_b[-1] + G], arg, n)
    assert not verify_zero(Transcript(b"test"), y, c_a, c_b, arg, n)  # another transcript
    for k in range(2 * m):
        moved = tuple(p + G if i == k else p for i, p in enumerate(arg.c_d))
        assert not verify_zero(transcript(), y, c_a, c_b, dataclasses.replace(arg, c_d=moved), n)
    for name in ("r", "s", "t"):
        bumped = dataclasses.replace(arg, **{name: (getattr(arg, name) + 1) % Q})
        assert not verify_zero(transcript(), y, c_a, c_b, bumped, n)

    # rows whose ⋆-sum is not zero: the reference prover refuses, an unchecked prover's argument fails
    bad_b = [list(row) for row in b_rows]
    bad_b[0][0] = (bad_b[0][0] + 1) % Q
    bad_c_b = [commit(row, s) for row, s in zip(bad_b, s_b, strict=True)]

    def bad_transcript() -> Transcript:
        t = Transcript(b"test")
        t.absorb(b"rows", (*c_a, *bad_c_b))
        return t

    with pytest.raises(ValueError):
        prove_zero(bad_transcript(), y, a_rows, r_a, bad_b, s_b, DetRng(b"prove"))
    forged = _prove_zero_unchecked(bad_transcript(), y, a_rows, r_a, bad_b, s_b, DetRng(b"prove"))
    assert not verify_zero(bad_transcript(), y, c_a, bad_c_b, forged, n)


@pytest.mark.parametrize(("m", "n"), [(2, 2), (2, 5), (3, 4), (5, 3)])
def test_hadamard_argument(m: int, n: int) -> None:
    rng = DetRng(b"hadamard%d%d" % (m, n))
    a_rows = [_scalars(rng, n) for _ in range(m)]
    r_a, s_b = _scalars(rng, m), random_scalar(rng)
    c_a = [commit(row, r) for row, r in zip(a_rows, r_a, strict=True)]
    b = a_rows[0]
    for row in a_rows[1:]:
        b = hadamard(b, row)
    c_b = commit(b, s_b)

    def transcript(c: Point) -> Transcript:
        t = Transcript(b"test")
        t.absorb(b"statement", (*c_a, c))
        return t

    arg = prove_hadamard(transcript(c_b), a_rows, r_a, s_b, DetRng(b"prove"))
    assert len(arg.c_b_mid) == m - 2
    assert verify_hadamard(transcript(c_b), c_a, c_b, arg, n)
    # c_b commits to another vector (with the transcript bound to it on both sides)
    for other in ([(b[0] + 1) % Q, *b[1:]], [*b[:-1], 0], hadamard(b, b), a_rows[0]):
        c_other = commit(other, s_b)
        forged = prove_hadamard(transcript(c_other), a_rows, r_a, s_b, DetRng(b"prove"))
        assert not verify_hadamard(transcript(c_other), c_a, c_other, forged, n)
        assert not verify_hadamard(transcript(c_b), c_a, c_other, arg, n)
    # a row changed
    assert not verify_hadamard(transcript(c_b), [*c_a[:-1], c_a[-1] + G], c_b, arg, n)
    if m > 2:
        moved = (arg.c_b_mid[0] + G, *arg.c_b_mid[1:])
        assert not verify_hadamard(transcript(c_b), c_a, c_b, dataclasses.replace(arg, c_b_mid=moved), n)
    with pytest.raises(ValueError):
        prove_hadamard(transcript(c_b), a_rows[:1], r_a[:1], s_b, DetRng(b"prove"))


@pytest.mark.parametrize(("m", "n"), [(1, 2), (1, 5), (2, 3), (3, 3)])
def test_product_argument(m: int, n: int) -> None:
    rng = DetRng(b"product%d%d" % (m, n))
    a_rows = [_scalars(rng, n) for _ in range(m)]
    r_a = _scalars(rng, m)
    c_a = [commit(row, r) for row, r in zip(a_rows, r_a, strict=True)]
    b = product(v for row in a_rows for v in row)

    def transcript() -> Transcript:
        t = Transcript(b"test")
        t.absorb(b"c_a", c_a)
        return t

    arg = prove_product(transcript(), a_rows, r_a, DetRng(b"prove"))
    assert (arg.c_b is None) == (arg.hadamard is None) == (m == 1)
    assert verify_product(transcript(), c_a, b, arg, n)
    assert not verify_product(transcript(), c_a, (b + 1) % Q, arg, n)
    assert not verify_product(transcript(), [c_a[0] + G, *c_a[1:]], b, arg, n)
    if m > 1:
        assert not verify_product(transcript(), c_a, b, dataclasses.replace(arg, c_b=arg.c_b + G), n)
        assert not verify_product(transcript(), c_a, b, dataclasses.replace(arg, c_b=None, hadamard=None), n)
        # the product of the rows under another committed vector: one row changed, the claimed b kept
        changed = [[(a_rows[0][0] + 1) % Q, *a_rows[0][1:]], *a_rows[1:]]
        assert not verify_product(transcript(), c_a, b, prove_product(transcript(), changed, r_a, DetRng(b"p")), n)


def _cipher_rows(rng: DetRng, m: int, n: int, pad: int = 0) -> list[list[Ciphertext]]:
    cts = [elgamal.encrypt(Y, elgamal.card_point(DECK, i), random_scalar(rng)) for i in range(m * n - pad)]
    cts += [PAD] * pad
    return [cts[i * n : (i + 1) * n] for i in range(m)]


@pytest.mark.parametrize(("m", "n", "pad"), [(1, 2, 0), (1, 3, 1), (2, 3, 0), (3, 4, 2)])
def test_multiexp_argument(m: int, n: int, pad: int) -> None:
    rng = DetRng(b"multiexp%d%d" % (m, n))
    rows = _cipher_rows(rng, m, n, pad)
    a_rows = [_scalars(rng, n) for _ in range(m)]
    r_a, rho = _scalars(rng, m), random_scalar(rng)
    c_a = [commit(row, r) for row, r in zip(a_rows, r_a, strict=True)]
    flat = [ct for row in rows for ct in row]
    weights = [v for row in a_rows for v in row]
    target = Ciphertext(lincomb([ct.a for ct in flat], weights, base=rho),
                        lincomb([*(ct.b for ct in flat), Y], [*weights, rho]))
    assert target == elgamal.remask(Y, Ciphertext(lincomb([ct.a for ct in flat], weights),
                                                  lincomb([ct.b for ct in flat], weights)), rho)

    def transcript() -> Transcript:
        t = Transcript(b"test")
        t.absorb(b"c_a", c_a)
        return t

    arg = prove_multiexp(transcript(), Y, rows, a_rows, r_a, rho, DetRng(b"prove"))
    assert len(arg.c_b) == len(arg.e) == 2 * m - 1
    assert verify_multiexp(transcript(), Y, rows, c_a, ([target], [1]), arg, n)
    # the same target split into weighted parts (as the shuffle passes it)
    half = (Q + 1) // 2
    assert verify_multiexp(transcript(), Y, rows, c_a, ([target, target], [half, half]), arg, n)
    # off by one re-masking, or re-masked under another key
    for bad in (elgamal.remask(Y, target, 1), elgamal.remask(OTHER_Y, target, 1), elgamal.remask(Y, target, -1),
                Ciphertext(target.a + G, target.b), Ciphertext(target.a, target.b + G)):
        assert not verify_multiexp(transcript(), Y, rows, c_a, ([bad], [1]), arg, n)
    assert not verify_multiexp(transcript(), Y, rows, c_a, ([target], [2]), arg, n)
    assert not verify_multiexp(transcript(), OTHER_Y, rows, c_a, ([target], [1]), arg, n)
    # a ciphertext of the rows replaced
    swapped = [list(row) for row in rows]
    swapped[0][0] = elgamal.remask(Y, swapped[0][0], 1)
    assert not verify_multiexp(transcript(), Y, swapped, c_a, ([target], [1]), arg, n)
    # a prover whose ρ is off by one
    wrong = prove_multiexp(transcript(), Y, rows, a_rows, r_a, rho + 1, DetRng(b"prove"))
    assert not verify_multiexp(transcript(), Y, rows, c_a, ([target], [1]), wrong, n)
    for name in ("r", "b", "s", "tau"):
        assert not verify_multiexp(transcript(), Y, rows, c_a, ([target], [1]),
                                   dataclasses.replace(arg, **{name: (getattr(arg, name) + 1) % Q}), n)


def test_commitment_helpers() -> None:
    assert commitments.generators(3) == tuple(commitments.generators(5)[:3])
    assert commit([0, 0], 0).is_identity
    assert commit([1], 0) == commitments.generators(1)[0]
    assert commit([2, 3], 5) == base_mul(5) + commitments.generators(2)[0] * 2 + commitments.generators(2)[1] * 3
    assert commitments.powers(3, 4) == [1, 3, 9, 27] and commitments.powers(3, 2, start=2) == [9, 27]
    assert star([1, 2], [3, 4], [5, 25]) == (1 * 3 * 5 + 2 * 4 * 25) % Q


# ----------------------------------------------------------------------------- transcript


def test_transcript_challenges_bind_everything() -> None:
    def run(statement: bytes = b"test", label: bytes = b"c_A", points: Sequence[Point] = (G, base_mul(2)),
            challenge: bytes = b"x") -> int:
        t = Transcript(statement)
        t.absorb(label, points)
        return t.challenge(challenge)

    base = run()
    assert base == run() and 0 <= base < Q
    assert run(points=(G, base_mul(3))) != base  # one absorbed point differs
    assert run(points=(base_mul(2), G)) != base  # order
    assert run(points=(G,)) != base
    assert run(points=(G, base_mul(2), identity())) != base  # the identity is 33 zero bytes, still absorbed
    assert run(label=b"c_B") != base  # the absorb label
    assert run(challenge=b"y") != base  # the challenge label
    assert run(statement=b"tesT") != base
    t = Transcript(b"test")
    t.absorb(b"c_A", (G, base_mul(2)))
    first, again, other = t.challenge(b"x"), t.challenge(b"x"), t.challenge(b"y")
    assert first == again == base and other != first  # drawing a challenge does not move the state
    t.absorb(b"c_A", ())
    assert t.challenge(b"x") != base  # an empty absorb is still a step


def test_the_statement_parts_are_separated() -> None:
    assert Transcript(b"ab", b"c").challenge(b"x") != Transcript(b"a", b"bc").challenge(b"x")


# ----------------------------------------------------------------------------- properties


@settings(max_examples=15, deadline=None)
@given(count=st.integers(min_value=1, max_value=30), seed=st.binary(min_size=1, max_size=8), data=st.data())
def test_honest_proofs_verify_and_a_swap_fails(count: int, seed: bytes, data: st.DataObject) -> None:
    deck = _deck(count)
    out, proof = shuffle_and_prove(CTX, Y, deck, DetRng(seed))
    assert verify_shuffle(CTX, Y, deck, out, proof)
    if count >= 2:
        i = data.draw(st.integers(min_value=0, max_value=count - 1))
        j = data.draw(st.integers(min_value=0, max_value=count - 1).filter(lambda v: v != i))
        swapped = list(out)
        swapped[i], swapped[j] = out[j], out[i]
        assert verify_shuffle(CTX, Y, deck, swapped, proof) is False


# ----------------------------------------------------------------------------- batched verification


@pytest.mark.parametrize("n", [5, 24])
def test_responses_tuned_to_a_batch_weight_that_did_not_bind_them_are_refused(
        n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The multi-exponentiation's ``r`` and ``s`` shifted so that their two equations' errors cancel under the weight
    ``ρ`` of a seed without the proof's responses: every single equation fails. The reference verifier's seed binds the
    whole proof (equations.py), so ``ρ`` moves with the forgery and it is refused; a verifier whose seed left the
    proof out accepts it (checked here, so that this test would catch that mistake)."""
    import importlib

    from p2php import tags
    from p2php.crypto.secp256k1 import hash_to_scalar

    bg_shuffle = importlib.import_module("p2php.crypto.bayer_groth.shuffle")  # the module, not the function

    deck, out, proof = _pass(n)
    st_0 = bg_shuffle._transcript(CTX, Y, deck, out).binding()
    rho = hash_to_scalar(tags.VERIFIED_BG_BATCH, st_0)  # the weight of a seed without the proof
    delta = 12345
    epsilon = -delta * pow(rho, -1, Q) % Q  # ρ^e·δ + ρ^(e+1)·ε = 0: the r equation is followed by the s equation
    arg = proof.multiexp
    forged = dataclasses.replace(proof, multiexp=dataclasses.replace(
        arg, r=(arg.r + delta) % Q, s=(arg.s + epsilon) % Q))
    assert not verify_shuffle(CTX, Y, deck, out, forged)
    monkeypatch.setattr(BgShuffleProof, "encode", lambda self: b"")  # the mistake: a seed of st_0 alone
    assert verify_shuffle(CTX, Y, deck, out, forged)


def _chain(n: int, passes: int) -> list[tuple[bytes, Point, list[Ciphertext], list[Ciphertext], BgShuffleProof]]:
    """``passes`` honest passes in a row over one deck, each under its own context (as the seats of one deck)."""
    statements = []
    deck = _start(n)
    for k in range(passes):
        ctx = proof_context(b"game", 7, k, k)
        out, proof = shuffle_and_prove(ctx, Y, deck, DetRng(b"chain %d" % k))
        statements.append((ctx, Y, deck, out, proof))
        deck = out
    return statements


@pytest.mark.parametrize("n", [1, 7, 24])
def test_a_deck_s_passes_hold_together_and_any_bad_one_fails_the_batch(n: int) -> None:
    chain = _chain(n, 4)
    assert verify_shuffles(chain) and all(verify_shuffle(*s) for s in chain)
    for bad in range(4):
        ctx, y, inputs, outputs, _ = chain[bad]
        other = chain[(bad + 1) % 4][4]  # a real proof, of another pass
        broken = [*chain[:bad], (ctx, y, inputs, outputs, other), *chain[bad + 1:]]
        assert not verify_shuffles(broken)
        assert [verify_shuffle(*s) for s in broken] == [i != bad for i in range(4)]  # one by one: only that one
    if n > 1:
        ctx, y, inputs, outputs, proof = chain[2]
        swapped = [outputs[1], outputs[0], *outputs[2:]]
        assert not verify_shuffles([*chain[:2], (ctx, y, inputs, swapped, proof), chain[3]])


def test_a_batch_with_a_malformed_statement_is_refused_as_malformed() -> None:
    chain = _chain(5, 3)
    ctx, y, inputs, outputs, proof = chain[1]
    with pytest.raises(MalformedProof):
        verify_shuffles([chain[0], (ctx, y, inputs, outputs[:-1], proof), chain[2]])
    with pytest.raises(MalformedProof):
        verify_shuffles([chain[0], (ctx, y, inputs, outputs, chain[0][4].encode()), chain[2]])  # type: ignore[list-item]


def test_a_batch_costs_fewer_products_than_its_proofs_one_by_one() -> None:
    chain = _chain(24, 4)
    with counted_products() as alone:
        assert all(verify_shuffle(*s) for s in chain)
    with counted_products() as batched:
        assert verify_shuffles(chain)
    shared = 3 * 2 * 24  # the three decks between passes, both halves of each ciphertext, counted once instead of twice
    assert batched[0] <= alone[0] - shared, (alone, batched)
