"""The Terelius–Wikström proof of a shuffle of ElGamal ciphertexts (re-encryption and permutation).

A shuffler publishes ``e'_i = remask(e_{π(i)}, ρ_i)`` and proves, without revealing ``π`` or ``ρ``, that the
outputs are exactly the inputs permuted and re-masked. The construction is the one of Verificatum and CHVote
("GenShuffleProof"/"CheckShuffleProof", Haenni–Locher–Koenig–Dubuis 2017), from Terelius–Wikström 2010, written
additively on secp256k1:

1. a Pedersen commitment to the permutation matrix, ``c_{π(i)} = r_{π(i)}·G + H_i`` (generators from
   :func:`~p2php.crypto.secp256k1.commitment_generators`);
2. the vector challenge ``u_j = Hs(U tag, stmt, u32(j))``, where ``stmt`` is the digest of the *whole*
   statement: the context, the joint key, every input and output, the commitment;
3. a commitment chain ``ĉ_i = r̂_i·G + u_{π(i)}·ĉ_{i−1}`` (``ĉ_0 = H_0``) to the permuted challenges' product;
4. one Sigma protocol for all the linear relations, challenge ``γ = Hs(C tag, stmt, ĉ, t…)``.

The verifier recomputes the prover's commitments ``t`` from the responses and compares ``γ`` (the compact form:
the ``t`` are never sent). Equations, soundness (≤ (N+1)/q interactive, ≤ 2^-128 after Fiat–Shamir with ample
margin) and the encoding are in protocol.md Appendix B.7.

Input a remote party can make us check is bounded by :data:`MAX_SHUFFLE` and every element is validated first:
:func:`verify_shuffle` returns ``False`` for a proof that does not hold and raises :class:`MalformedProof` for one
that is not well formed. Proving is deterministic given the :class:`~p2php.rng.DetRng` it draws from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2php import tags
from p2php.canonical import digest
from p2php.crypto.elgamal import Ciphertext
from p2php.crypto.proofs import MalformedProof
from p2php.crypto.secp256k1 import (
    POINT_SIZE,
    SCALAR_SIZE,
    InvalidEncoding,
    Point,
    Q,
    base_mul,
    check_scalar,
    commitment_generators,
    decode_point,
    decode_scalar,
    encode_scalar,
    hash_to_scalar,
    hash_to_scalars,
    lincomb,
    random_scalar,
    sum_points,
)
from p2php.crypto.shuffle_statement import MAX_SHUFFLE, check_statement, shuffle
from p2php.rng import DetRng

__all__ = [
    "MAX_SHUFFLE",
    "ShuffleProof",
    "proof_size",
    "prove_shuffle",
    "shuffle",
    "shuffle_and_prove",
    "verify_shuffle",
]



def proof_size(n: int) -> int:
    """Bytes of an encoded proof for ``n`` ciphertexts: ``4 + 2·33·n + 5·32 + 2·32·n``."""
    return 4 + 2 * POINT_SIZE * n + 5 * SCALAR_SIZE + 2 * SCALAR_SIZE * n


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """``(c, ĉ, γ, s₁…s₄, ŝ, s')``: the permutation commitment, the chain, the challenge and the responses."""

    commitment: tuple[Point, ...]
    chain: tuple[Point, ...]
    gamma: int
    s: tuple[int, int, int, int]
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]

    def encode(self) -> bytes:
        """``u32(N) || c_1…c_N || ĉ_1…ĉ_N || γ || s₁…s₄ || ŝ_1…ŝ_N || s'_1…s'_N`` (points 33 B, scalars 32 B)."""
        n = len(self.commitment)
        parts = [n.to_bytes(4, "big")]
        parts += [p.encode() for p in (*self.commitment, *self.chain)]
        parts += [encode_scalar(k) for k in (self.gamma, *self.s, *self.s_hat, *self.s_prime)]
        return b"".join(parts)

    @classmethod
    def decode(cls, data: object) -> ShuffleProof:
        """Strictly decode a proof; :class:`MalformedProof` for a bad size, ``N`` out of range or a bad element."""
        if not isinstance(data, bytes) or len(data) < 4:
            raise MalformedProof("a shuffle proof starts with u32(N)")
        n = int.from_bytes(data[:4], "big")
        if not 1 <= n <= MAX_SHUFFLE:
            raise MalformedProof(f"a shuffle proof holds 1 to {MAX_SHUFFLE} ciphertexts, not {n}")
        if len(data) != proof_size(n):
            raise MalformedProof(f"a shuffle proof for {n} ciphertexts is {proof_size(n)} bytes, got {len(data)}")
        try:
            pos = 4
            points = []
            for _ in range(2 * n):
                points.append(decode_point(data[pos : pos + POINT_SIZE]))
                pos += POINT_SIZE
            scalars = []
            for _ in range(5 + 2 * n):
                scalars.append(decode_scalar(data[pos : pos + SCALAR_SIZE]))
                pos += SCALAR_SIZE
        except InvalidEncoding as exc:
            raise MalformedProof(f"a shuffle proof element: {exc}") from None
        s1, s2, s3, s4 = scalars[1:5]
        return cls(tuple(points[:n]), tuple(points[n:]), scalars[0], (s1, s2, s3, s4),
                   tuple(scalars[5 : 5 + n]), tuple(scalars[5 + n :]))


# ----------------------------------------------------------------------------- statement and challenges


def _statement(ctx: bytes, y: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext],
               commitment: Sequence[Point]) -> bytes:
    """``stmt = D(SHUFFLE tag, GENS tag, ctx, Y, u32(N), e, e', c)`` (each list as its concatenated encodings)."""
    return digest(
        tags.VERIFIED_SHUFFLE, tags.VERIFIED_GENS, ctx, y.hash_bytes(), len(inputs).to_bytes(4, "big"),
        b"".join(ct.hash_bytes() for ct in inputs), b"".join(ct.hash_bytes() for ct in outputs),
        b"".join(p.hash_bytes() for p in commitment),
    )


def _vector_challenge(stmt: bytes, n: int) -> list[int]:
    """``u_j = Hs(U tag, stmt, u32(j))`` for ``j < n``."""
    return hash_to_scalars(tags.VERIFIED_SHUFFLE_U, (stmt,), (j.to_bytes(4, "big") for j in range(n)))


def _challenge(stmt: bytes, chain: Sequence[Point], t: Sequence[Point], t_hat: Sequence[Point]) -> int:
    """``γ = Hs(C tag, stmt, ĉ_1…ĉ_N, t₁ ‖ t₂ ‖ t₃ ‖ t₄ₐ ‖ t₄ᵦ, t̂_1…t̂_N)``."""
    return hash_to_scalar(
        tags.VERIFIED_SHUFFLE_C, stmt, b"".join(p.hash_bytes() for p in chain),
        b"".join(p.hash_bytes() for p in t), b"".join(p.hash_bytes() for p in t_hat),
    )


# ----------------------------------------------------------------------------- prover


def prove_shuffle(ctx: bytes, y: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext],
                  perm: Sequence[int], rhos: Sequence[int], rng: DetRng) -> ShuffleProof:
    """Prove that ``outputs[i] = remask(inputs[perm[i]], rhos[i])`` under ``ctx``.

    The prover's randomness is drawn from ``rng`` in this order: ``r_0…r_{N−1}`` (by input index), ``r̂_1…r̂_N``,
    ``ω₁…ω₄``, ``ω̂_1…ω̂_N``, ``ω'_1…ω'_N``. A witness that is not a permutation yields a proof that fails.
    """
    n = check_statement(ctx, y, inputs, outputs)
    if sorted(perm) != list(range(n)) or len(rhos) != n:
        raise ValueError("prove_shuffle needs a permutation of range(N) and N re-masking exponents")
    gens = commitment_generators(n)
    h0, hs = gens[0], gens[1:]
    r = [random_scalar(rng) for _ in range(n)]
    commitment: list[Point] = [h0] * n
    for i, j in enumerate(perm):
        commitment[j] = lincomb((hs[i],), (1,), base=r[j])  # r_j·G + H_i
    stmt = _statement(ctx, y, inputs, outputs, commitment)
    u = _vector_challenge(stmt, n)
    up = [u[j] for j in perm]

    r_hat = [random_scalar(rng) for _ in range(n)]
    chain: list[Point] = []
    prev = h0
    for i in range(n):
        prev = lincomb((prev,), (up[i],), base=r_hat[i])  # r̂_i·G + u'_i·ĉ_{i−1}
        chain.append(prev)

    w1, w2, w3, w4 = (random_scalar(rng) for _ in range(4))
    w_hat = [random_scalar(rng) for _ in range(n)]
    w_prime = [random_scalar(rng) for _ in range(n)]
    t = [
        base_mul(w1),
        base_mul(w2),
        lincomb(hs, w_prime, base=w3),
        lincomb([ct.a for ct in outputs], w_prime, base=-w4),
        lincomb([*(ct.b for ct in outputs), y], [*w_prime, -w4]),
    ]
    t_hat = [lincomb(((chain[i - 1] if i else h0),), (w_prime[i],), base=w_hat[i]) for i in range(n)]
    gamma = _challenge(stmt, chain, t, t_hat)

    v = [1] * n  # v_i = Π_{k > i} u'_k
    for i in range(n - 2, -1, -1):
        v[i] = v[i + 1] * up[i + 1] % Q
    r_bar = sum(r) % Q
    r_hat_sum = sum(a * b for a, b in zip(r_hat, v, strict=True)) % Q
    r_tilde = sum(a * b for a, b in zip(r, u, strict=True)) % Q
    rho_prime = sum(a * b for a, b in zip(rhos, up, strict=True)) % Q
    s = (
        (w1 - gamma * r_bar) % Q,
        (w2 - gamma * r_hat_sum) % Q,
        (w3 - gamma * r_tilde) % Q,
        (w4 - gamma * rho_prime) % Q,
    )
    return ShuffleProof(
        tuple(commitment), tuple(chain), gamma, s,
        tuple((w_hat[i] - gamma * r_hat[i]) % Q for i in range(n)),
        tuple((w_prime[i] - gamma * up[i]) % Q for i in range(n)),
    )


def shuffle_and_prove(ctx: bytes, y: Point, deck: Sequence[Ciphertext],
                      rng: DetRng) -> tuple[list[Ciphertext], ShuffleProof]:
    """One shuffle pass: :func:`shuffle` then :func:`prove_shuffle`, all randomness from ``rng``."""
    outputs, perm, rhos = shuffle(y, deck, rng)
    return outputs, prove_shuffle(ctx, y, deck, outputs, perm, rhos, rng)


# ----------------------------------------------------------------------------- verifier


def _check_proof(proof: object, n: int) -> ShuffleProof:
    if not isinstance(proof, ShuffleProof):
        raise MalformedProof(f"expected a ShuffleProof, got {type(proof).__name__}")
    if not (len(proof.commitment) == len(proof.chain) == len(proof.s_hat) == len(proof.s_prime) == n) \
            or len(proof.s) != 4:
        raise MalformedProof(f"a shuffle proof for {n} ciphertexts has the wrong number of elements")
    for p in (*proof.commitment, *proof.chain):
        if not isinstance(p, Point) or p.is_identity:
            raise MalformedProof("a shuffle proof's points must be points other than the identity")
    try:
        for k in (proof.gamma, *proof.s, *proof.s_hat, *proof.s_prime):
            check_scalar(k, "a shuffle proof's scalar")
    except InvalidEncoding as exc:
        raise MalformedProof(str(exc)) from None
    return proof


def verify_shuffle(ctx: bytes, y: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext],
                   proof: ShuffleProof) -> bool:
    """Whether ``proof`` shows that ``outputs`` are ``inputs`` permuted and re-masked under ``Y``, in ``ctx``.

    :class:`MalformedProof` if the statement or the proof is not well formed (checked before any group operation).
    """
    n = check_statement(ctx, y, inputs, outputs)
    proof = _check_proof(proof, n)
    gens = commitment_generators(n)
    h0, hs = gens[0], gens[1:]
    stmt = _statement(ctx, y, inputs, outputs, proof.commitment)
    u = _vector_challenge(stmt, n)
    u_prod = 1
    for x in u:
        u_prod = u_prod * x % Q

    gamma, (s1, s2, s3, s4), s_hat, s_prime = proof.gamma, proof.s, proof.s_hat, proof.s_prime
    # The prover's commitments t, each one linear combination (one sum call), with γ folded into the scalars:
    # γ·(Σ u_i·X_i) is Σ (γ·u_i)·X_i, the same point for one product per term fewer, and a difference is a sum
    # with a negated scalar. Every t is the very point of the textbook formula, so the challenge is unchanged.
    ug = [x * gamma % Q for x in u]
    c_bar = sum_points((*proof.commitment, _neg_h_sum(n)))  # Σ c_i − Σ H_i
    t = [
        lincomb((c_bar,), (gamma,), base=s1),  # γ·c̄ + s₁·G
        lincomb((proof.chain[-1], h0), (gamma, -u_prod * gamma), base=s2),  # γ·(ĉ_N − Πu·H_0) + s₂·G
        lincomb((*proof.commitment, *hs), (*ug, *s_prime), base=s3),  # γ·Σu_i·c_i + s₃·G + Σs'_i·H_i
        lincomb(*_merged([ct.a for ct in inputs], ug, [ct.a for ct in outputs], s_prime), base=-s4),
        lincomb(*_merged([ct.b for ct in inputs], ug, [*(ct.b for ct in outputs), y], [*s_prime, -s4])),
    ]
    t_hat = [
        lincomb((proof.chain[i], proof.chain[i - 1] if i else h0), (gamma, s_prime[i]), base=s_hat[i])
        for i in range(n)
    ]
    return _challenge(stmt, proof.chain, t, t_hat) == gamma


def _merged(inputs: Sequence[Point], in_scalars: Sequence[int], others: Sequence[Point],
            other_scalars: Sequence[int]) -> tuple[list[Point], list[int]]:
    """The terms ``inputs·in_scalars + others·other_scalars`` with the inputs' repeated points merged.

    ``k·P + k'·P = (k + k')·P``: the same point for one product fewer. The inputs of a fresh deck's first pass all
    have ``a = G`` (the public deck ``(G, M_c + Y)``), so there the ``a`` side costs one product instead of ``N``.
    """
    merged: dict[Point, int] = {}
    for p, k in zip(inputs, in_scalars, strict=True):
        merged[p] = merged.get(p, 0) + k
    return [*merged, *others], [*(k % Q for k in merged.values()), *other_scalars]


_NEG_H_SUMS: dict[int, Point] = {}


def _neg_h_sum(n: int) -> Point:
    """``−(H_1 + … + H_N)``, cached: the generators are fixed for the protocol version (N ≤ MAX_SHUFFLE)."""
    neg = _NEG_H_SUMS.get(n)
    if neg is None:
        neg = _NEG_H_SUMS[n] = -sum_points(commitment_generators(n)[1:])
    return neg
