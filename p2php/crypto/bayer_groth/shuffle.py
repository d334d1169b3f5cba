"""The Bayer–Groth proof of a shuffle (Eurocrypt 2012): the same statement as Terelius–Wikström, in O(√N) elements.

Statement (as :mod:`p2php.crypto.shuffle_proof`): ``e'_i = remask(e_{π(i)}, ρ_i)`` for ``i = 1 … N`` under the joint
key ``Y`` and context ``ctx``. The ``N`` positions are laid out as an ``m × n`` matrix (:func:`shape`: the ``m ≤ 8``
with the smallest proof; ``m·n − N`` padding positions hold the ciphertext ``(O, O)`` on both sides, mapped to
themselves, which cannot stand in for a card because no card encrypts ``O``). Then:

1. commit to ``a = (π(1), …, π(N))`` (1-based) row by row: ``c_A``; challenge ``x``;
2. commit to ``b = (x^{π(1)}, …, x^{π(N)})``: ``c_B``; challenges ``y, z``;
3. a product argument that ``y·a + b − z`` (committed in ``y·c_A + c_B + com(−z⃗; 0)``) multiplies to
   ``Π_{j=1}^{N} (y·j + x^j − z)``, which by Schwartz–Zippel forces ``a`` to be a permutation and ``b`` to be
   ``x`` raised to it;
4. a multi-exponentiation argument that ``Σ_j x^j·e_j = Enc(0; −Σ ρ_i·b_i) + Σ_i b_i·e'_i``, which ties the outputs
   to the inputs through that permutation.

Every challenge comes from one running transcript that starts with the whole statement (protocol.md B.11). Proof
size ``4 + 33·(11m + 2) + 32·(5n + 7)`` bytes for ``m ≥ 2`` and ``4 + 33·9 + 32·(3n + 4)`` for one row (5 352 for
108 cards, against 14 204 for Terelius–Wikström). The verifier makes about ``4N + n + 11m`` products, all its
equations in one weighted sum (:mod:`.equations`; TW: ``8N``); the prover about ``4N + 8m²`` of full size plus
``O(N)`` (its diagonals by evaluation and interpolation, :mod:`.diagonals`; summed directly they would be
``2N·(m + 1)``).

The interface is :mod:`p2php.crypto.shuffle_proof`'s: :func:`verify_shuffle` returns ``False`` for a proof that does
not hold and raises :class:`~p2php.crypto.proofs.MalformedProof` for one that is not well formed, checked before any
group operation. Not yet on the wire: the verified deck still sends Terelius–Wikström (B.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from p2php.crypto.bayer_groth.commitments import commit, powers, product
from p2php.crypto.bayer_groth.equations import Equations, Form, minus_ones
from p2php.crypto.bayer_groth.multiexp import MultiExpArgument, prove_multiexp, verify_multiexp
from p2php.crypto.bayer_groth.product import ProductArgument, prove_product, verify_product
from p2php.crypto.bayer_groth.transcript import Transcript
from p2php.crypto.elgamal import Ciphertext
from p2php.crypto.proofs import MalformedProof
from p2php.crypto.secp256k1 import (
    POINT_SIZE,
    SCALAR_SIZE,
    InvalidEncoding,
    Point,
    Q,
    check_scalar,
    decode_point,
    decode_scalar,
    encode_scalar,
    identity,
    random_scalar,
)
from p2php.crypto.shuffle_statement import MAX_SHUFFLE, check_statement, shuffle
from p2php.rng import DetRng

__all__ = [
    "MAX_M",
    "MAX_SHUFFLE",
    "BgShuffleProof",
    "proof_size",
    "prove_shuffle",
    "shape",
    "shuffle",
    "shuffle_and_prove",
    "verify_shuffle",
    "verify_shuffles",
]

#: The most rows of the matrix: the prover's diagonals cost ``4N + 8m²`` full-size products and ``~Nm`` small ones
#: (:mod:`.diagonals`), so ``m`` stays small.
MAX_M = 8


def _counts(m: int, n: int) -> tuple[int, int]:
    """``(points, scalars)`` of a proof for ``m`` rows of ``n``: ``c_A``, ``c_B`` and the two arguments'."""
    product_points, product_scalars = ProductArgument.counts(m, n)
    multiexp_points, multiexp_scalars = MultiExpArgument.counts(m, n)
    return 2 * m + product_points + multiexp_points, product_scalars + multiexp_scalars


def _size(m: int, n: int) -> int:
    points, scalars = _counts(m, n)
    return 4 + POINT_SIZE * points + SCALAR_SIZE * scalars


@cache
def shape(count: int) -> tuple[int, int]:
    """``(m, n)`` for ``count`` ciphertexts: the smallest ``m ≤ MAX_M`` whose proof is shortest, ``n = ⌈N/m⌉ ≥ 2``."""
    if not 1 <= count <= MAX_SHUFFLE:
        raise ValueError(f"a shuffle holds 1 to {MAX_SHUFFLE} ciphertexts, not {count}")
    best = min(range(1, MAX_M + 1), key=lambda m: (_size(m, max(2, -(-count // m))), m))
    return best, max(2, -(-count // best))


def proof_size(count: int) -> int:
    """Bytes of an encoded proof for ``count`` ciphertexts."""
    return _size(*shape(count))


@dataclass(frozen=True, slots=True)
class BgShuffleProof:
    """``c_A``, ``c_B`` (``m`` each), the product argument and the multi-exponentiation argument."""

    count: int
    c_a: tuple[Point, ...]
    c_b: tuple[Point, ...]
    product: ProductArgument
    multiexp: MultiExpArgument

    def points(self) -> list[Point]:
        return [*self.c_a, *self.c_b, *self.product.points(), *self.multiexp.points()]

    def scalars(self) -> list[int]:
        return [*self.product.scalars(), *self.multiexp.scalars()]

    def encode(self) -> bytes:
        """``u32(N) || every point (33 B) || every scalar (32 B)``, each in the order of protocol.md B.11."""
        return b"".join((self.count.to_bytes(4, "big"), *(p.encode() for p in self.points()),
                         *(encode_scalar(k) for k in self.scalars())))

    @classmethod
    def decode(cls, data: object) -> BgShuffleProof:
        """Strictly decode a proof; :class:`MalformedProof` for a bad size, ``N`` out of range or a bad element."""
        if not isinstance(data, bytes) or len(data) < 4:
            raise MalformedProof("a shuffle proof starts with u32(N)")
        count = int.from_bytes(data[:4], "big")
        if not 1 <= count <= MAX_SHUFFLE:
            raise MalformedProof(f"a shuffle proof holds 1 to {MAX_SHUFFLE} ciphertexts, not {count}")
        m, n = shape(count)
        if len(data) != _size(m, n):
            raise MalformedProof(f"a shuffle proof for {count} ciphertexts is {_size(m, n)} bytes, got {len(data)}")
        n_points = _counts(m, n)[0]
        try:
            pos = 4
            points = []
            for _ in range(n_points):
                points.append(decode_point(data[pos : pos + POINT_SIZE]))
                pos += POINT_SIZE
            scalars = []
            while pos < len(data):
                scalars.append(decode_scalar(data[pos : pos + SCALAR_SIZE]))
                pos += SCALAR_SIZE
        except InvalidEncoding as exc:
            raise MalformedProof(f"a shuffle proof element: {exc}") from None
        return _assemble(count, points, scalars)


def _assemble(count: int, points: Sequence[Point], scalars: Sequence[int]) -> BgShuffleProof:
    m, n = shape(count)
    pit, sit = iter(points), iter(scalars)
    c_a = tuple(next(pit) for _ in range(m))
    c_b = tuple(next(pit) for _ in range(m))
    return BgShuffleProof(count, c_a, c_b, ProductArgument.read(pit, sit, m, n),
                          MultiExpArgument.read(pit, sit, m, n))


# ----------------------------------------------------------------------------- statement


def _transcript(ctx: bytes, y: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext]) -> Transcript:
    return Transcript(ctx, y.hash_bytes(), len(inputs).to_bytes(4, "big"),
                      b"".join(ct.hash_bytes() for ct in inputs), b"".join(ct.hash_bytes() for ct in outputs))


_PAD = Ciphertext(identity(), identity())


def _rows(cts: Sequence[Ciphertext], m: int, n: int) -> list[list[Ciphertext]]:
    padded = [*cts, *([_PAD] * (m * n - len(cts)))]
    return [padded[i * n : (i + 1) * n] for i in range(m)]


def _split(values: Sequence[int], m: int, n: int) -> list[list[int]]:
    return [list(values[i * n : (i + 1) * n]) for i in range(m)]


# ----------------------------------------------------------------------------- prover


def prove_shuffle(ctx: bytes, y: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext],
                  perm: Sequence[int], rhos: Sequence[int], rng: DetRng) -> BgShuffleProof:
    """Prove that ``outputs[i] = remask(inputs[perm[i]], rhos[i])`` under ``ctx``.

    Randomness, in order: ``r_1 … r_m`` (``c_A``), ``s_1 … s_m`` (``c_B``), the product argument's, the
    multi-exponentiation argument's. A witness that is not a permutation raises or yields a proof that fails.
    """
    count = check_statement(ctx, y, inputs, outputs)
    if sorted(perm) != list(range(count)) or len(rhos) != count:
        raise ValueError("prove_shuffle needs a permutation of range(N) and N re-masking exponents")
    m, n = shape(count)
    size = m * n
    full_perm = [*perm, *range(count, size)]
    full_rho = [*rhos, *([0] * (size - count))]
    t = _transcript(ctx, y, inputs, outputs)

    a = [j + 1 for j in full_perm]
    r = [random_scalar(rng) for _ in range(m)]
    a_rows = _split(a, m, n)
    c_a = [commit(row, ri) for row, ri in zip(a_rows, r, strict=True)]
    t.absorb(b"c_A", c_a)
    x = t.challenge(b"x")

    xp = powers(x, size + 1)
    b = [xp[j + 1] for j in full_perm]
    s = [random_scalar(rng) for _ in range(m)]
    b_rows = _split(b, m, n)
    c_b = [commit(row, si) for row, si in zip(b_rows, s, strict=True)]
    t.absorb(b"c_B", c_b)
    yy, z = t.challenge(b"y"), t.challenge(b"z")

    d_rows = [[(yy * p + q - z) % Q for p, q in zip(ar, br, strict=True)]
              for ar, br in zip(a_rows, b_rows, strict=True)]
    d_r = [(yy * ri + si) % Q for ri, si in zip(r, s, strict=True)]
    product_arg = prove_product(t, d_rows, d_r, rng)
    rho = -sum(p * q for p, q in zip(full_rho, b, strict=True)) % Q
    multiexp_arg = prove_multiexp(t, y, _rows(outputs, m, n), b_rows, s, rho, rng)
    return BgShuffleProof(count, tuple(c_a), tuple(c_b), product_arg, multiexp_arg)


def shuffle_and_prove(ctx: bytes, y: Point, deck: Sequence[Ciphertext],
                      rng: DetRng) -> tuple[list[Ciphertext], BgShuffleProof]:
    """One shuffle pass: :func:`shuffle` then :func:`prove_shuffle`, all randomness from ``rng``."""
    outputs, perm, rhos = shuffle(y, deck, rng)
    return outputs, prove_shuffle(ctx, y, deck, outputs, perm, rhos, rng)


# ----------------------------------------------------------------------------- verifier


def _check_proof(proof: object, count: int) -> BgShuffleProof:
    """``proof`` if it has the shape of a proof for ``count`` ciphertexts and only valid elements."""
    if not isinstance(proof, BgShuffleProof):
        raise MalformedProof(f"expected a BgShuffleProof, got {type(proof).__name__}")
    if proof.count != count:
        raise MalformedProof(f"a proof for {proof.count} ciphertexts cannot prove a shuffle of {count}")
    m, n = shape(count)
    try:
        points, scalars = proof.points(), proof.scalars()
    except (TypeError, AttributeError):
        raise MalformedProof(f"a shuffle proof for {count} ciphertexts has the wrong shape") from None
    n_points, n_scalars = _counts(m, n)
    if len(points) != n_points or len(scalars) != n_scalars or _assemble(count, points, scalars) != proof:
        raise MalformedProof(f"a shuffle proof for {count} ciphertexts has the wrong number of elements")
    for p in points:
        if not isinstance(p, Point) or p.is_identity:
            raise MalformedProof("a shuffle proof's points must be points other than the identity")
    try:
        for k in scalars:
            check_scalar(k, "a shuffle proof's scalar")
    except InvalidEncoding as exc:
        raise MalformedProof(str(exc)) from None
    return proof


Statement = tuple[bytes, Point, Sequence[Ciphertext], Sequence[Ciphertext], BgShuffleProof]
"""``(ctx, Y, inputs, outputs, proof)``: one proof of a shuffle and what it claims."""


def verify_shuffle(ctx: bytes, y: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext],
                   proof: BgShuffleProof) -> bool:
    """Whether ``proof`` shows that ``outputs`` are ``inputs`` permuted and re-masked under ``Y``, in ``ctx``.

    :class:`MalformedProof` if the statement or the proof is not well formed (checked before any group operation).
    """
    return verify_shuffles([(ctx, y, inputs, outputs, proof)])


def verify_shuffles(statements: Sequence[Statement]) -> bool:
    """Whether every proof holds, all their equations checked as one weighted sum (:mod:`.equations`).

    A point two statements share -- one pass's outputs are the next pass's inputs, every pass uses the generators and
    ``Y`` -- is multiplied once, so the passes of one deck cost less together than one by one. False says only that
    some proof fails: :func:`verify_shuffle` each to know which. :class:`MalformedProof` as :func:`verify_shuffle`,
    for the first statement or proof that is not well formed (all are checked before any group operation).
    """
    checked = []
    for ctx, y, inputs, outputs, proof in statements:
        count = check_statement(ctx, y, inputs, outputs)
        checked.append((_transcript(ctx, y, inputs, outputs), y, inputs, outputs, _check_proof(proof, count)))
    # The batch's weight binds every statement and every proof, responses included (equations.py).
    eq = Equations(b"".join(t.binding() + proof.encode() for t, _, _, _, proof in checked))
    return all(_require(eq, *c) for c in checked) and eq.hold()


def _require(eq: Equations, t: Transcript, y: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext],
             proof: BgShuffleProof) -> bool:
    """Add one checked proof's equations to ``eq``; False if a sub-argument fails before any equation is summed."""
    count = proof.count
    m, n = shape(count)
    size = m * n
    t.absorb(b"c_A", proof.c_a)
    x = t.challenge(b"x")
    t.absorb(b"c_B", proof.c_b)
    yy, z = t.challenge(b"y"), t.challenge(b"z")

    xp = powers(x, size + 1)
    target = product((yy * j + xp[j] - z) % Q for j in range(1, size + 1))
    minus_h = minus_ones(n)  # −Σ H_j
    c_d = [Form.of((ca, cb, minus_h), (yy, 1, z)) for ca, cb in zip(proof.c_a, proof.c_b, strict=True)]
    return (verify_product(t, c_d, target, proof.product, n, eq)
            and verify_multiexp(t, y, _rows(outputs, m, n), proof.c_b, (inputs, xp[1 : count + 1]), proof.multiexp,
                                n, eq))
