"""Sigma proofs for verified dealing: a Schnorr proof of a key share, and one Chaum–Pedersen proof for a batch of
decryption shares under one key.

Both are non-interactive by Fiat–Shamir: the challenge is ``Hs(tag, ctx, statement…, commitments…)``
(:func:`~p2php.crypto.secp256k1.hash_to_scalar`, full size mod ``q``), where ``ctx`` is the 32-byte
:func:`proof_context` naming the game, the step, the pass and the prover's seat (a batch hashes each share's
context into its statement). A proof made for one context
therefore fails under any other: it cannot be replayed into another game, step or seat. Proofs travel in the
compact form ``(c, s)``; the verifier recomputes the commitments and compares the challenge.

Verification returns ``False`` for a proof that does not hold and raises :class:`MalformedProof` for input that
is not even well formed (a scalar outside ``[0, q)``, a context of the wrong size, the identity as a key); both
mean "reject". Nonces are drawn from a caller-given :class:`~p2php.rng.DetRng`, so a prover's secrets are
reproducible from its seed. protocol.md Appendix B.4–B.6.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2php import tags
from p2php.canonical import digest
from p2php.crypto.secp256k1 import (
    SCALAR_SIZE,
    InvalidEncoding,
    Point,
    Q,
    base_mul,
    check_scalar,
    decode_scalar,
    encode_scalar,
    hash_to_scalar,
    hash_to_scalars,
    lincomb,
    random_scalar,
)
from p2php.rng import DetRng

__all__ = [
    "CONTEXT_SIZE",
    "KeyProof",
    "MalformedProof",
    "ShareProof",
    "check_context",
    "proof_context",
    "prove_key",
    "prove_shares",
    "verify_key",
    "verify_shares",
]

#: Size of a proof context (a digest).
CONTEXT_SIZE = 32


class MalformedProof(InvalidEncoding):
    """A proof or statement that is not well formed (sizes, ranges, identities); the proof is rejected."""


def proof_context(game: bytes, step: int, pass_no: int, seat: int, transcript: bytes = b"") -> bytes:
    """``ctx = D(CTX tag, game, u64(step), u32(pass_no), u32(seat), transcript)``.

    ``game`` names the game and deck (for example its session id and deck context), ``step`` the engine step,
    ``pass_no`` the shuffle pass or reveal round, ``seat`` the prover, ``transcript`` optionally a hash of the
    transcript so far.
    """
    for name, value, bits in (("step", step, 64), ("pass_no", pass_no, 32), ("seat", seat, 32)):
        if not 0 <= value < 1 << bits:
            raise ValueError(f"proof_context: {name} must fit in {bits} unsigned bits, got {value}")
    return digest(tags.VERIFIED_CTX, game, step.to_bytes(8, "big"), pass_no.to_bytes(4, "big"),
                  seat.to_bytes(4, "big"), transcript)


def check_context(ctx: object) -> bytes:
    """``ctx`` itself if it is 32 bytes; else :class:`MalformedProof`."""
    if not isinstance(ctx, bytes) or len(ctx) != CONTEXT_SIZE:
        raise MalformedProof(f"a proof context is {CONTEXT_SIZE} bytes")
    return ctx


def _check_key(y: object, what: str) -> Point:
    if not isinstance(y, Point) or y.is_identity:
        raise MalformedProof(f"{what} must be a point other than the identity")
    return y


@dataclass(frozen=True, slots=True)
class KeyProof:
    """Schnorr proof of knowledge of ``x`` with ``Y = x·G``: challenge ``c`` and response ``s``."""

    c: int
    s: int

    def encode(self) -> bytes:
        """64 bytes: ``c`` then ``s``."""
        return encode_scalar(self.c) + encode_scalar(self.s)

    @classmethod
    def decode(cls, data: object) -> KeyProof:
        """Strictly decode 64 bytes (two scalars below ``q``)."""
        c, s = _two_scalars(data)
        return cls(c, s)


@dataclass(frozen=True, slots=True)
class ShareProof:
    """A batch's Chaum–Pedersen proof that ``log_G Y = log_M Z`` (:func:`prove_shares`): challenge ``c`` and
    response ``s``."""

    c: int
    s: int

    def encode(self) -> bytes:
        """64 bytes: ``c`` then ``s``."""
        return encode_scalar(self.c) + encode_scalar(self.s)

    @classmethod
    def decode(cls, data: object) -> ShareProof:
        """Strictly decode 64 bytes (two scalars below ``q``)."""
        c, s = _two_scalars(data)
        return cls(c, s)


def _two_scalars(data: object) -> tuple[int, int]:
    if not isinstance(data, bytes) or len(data) != 2 * SCALAR_SIZE:
        raise MalformedProof(f"a proof is {2 * SCALAR_SIZE} bytes")
    try:
        return decode_scalar(data[:SCALAR_SIZE]), decode_scalar(data[SCALAR_SIZE:])
    except InvalidEncoding as exc:
        raise MalformedProof(str(exc)) from None


def _check_cs(proof: object, kind: type[KeyProof] | type[ShareProof]) -> tuple[int, int]:
    if not isinstance(proof, kind):
        raise MalformedProof(f"expected a {kind.__name__}, got {type(proof).__name__}")
    try:
        return check_scalar(proof.c, "a challenge"), check_scalar(proof.s, "a response")
    except InvalidEncoding as exc:
        raise MalformedProof(str(exc)) from None


def _key_challenge(ctx: bytes, y: Point, t: Point) -> int:
    return hash_to_scalar(tags.VERIFIED_KEY, ctx, y.hash_bytes(), t.hash_bytes())


def prove_key(ctx: bytes, x: int, rng: DetRng) -> KeyProof:
    """Prove knowledge of the key share ``x`` of ``Y = x·G`` under ``ctx``.

    ``w`` fresh from ``rng``; ``T = w·G``; ``c = Hs(KEY tag, ctx, Y, T)``; ``s = w + c·x mod q``.
    """
    check_context(ctx)
    x = check_scalar(x, "a key share")
    y = base_mul(x)
    _check_key(y, "the public key share")
    w = random_scalar(rng)
    c = _key_challenge(ctx, y, base_mul(w))
    return KeyProof(c, (w + c * x) % Q)


def verify_key(ctx: bytes, y: Point, proof: KeyProof) -> bool:
    """Whether ``proof`` shows knowledge of ``log_G Y`` under ``ctx``: ``T = s·G − c·Y`` and ``c = Hs(…, T)``."""
    check_context(ctx)
    _check_key(y, "a public key share")
    c, s = _check_cs(proof, KeyProof)
    t = lincomb((y,), (-c,), base=s)  # s·G − c·Y: one product, one fixed-base product, one sum
    return _key_challenge(ctx, y, t) == c


# ----------------------------------------------------------------------------- a batch of shares under one key

MAX_BATCH = 1 << 16
"""Shares one batch proof may cover (a deck holds at most 1 024 slots; a message at most a deck's worth)."""


def _batch_statement(ctxs: Sequence[bytes], y: Point, points: Sequence[Point], ds: Sequence[Point]) -> bytes:
    """``st = D(SHARES tag, Y, then ctx_i, a_i, D_i for each share in order)``: what the batch claims, once."""
    parts = [y.hash_bytes()]
    for ctx, a, d in zip(ctxs, points, ds, strict=True):
        parts += (check_context(ctx), a.hash_bytes(), d.hash_bytes())
    return digest(tags.VERIFIED_SHARES, *parts)


def _batch_weights(statement: bytes, count: int) -> list[int]:
    """``w_i = Hs(SHARES_W tag, st, u32(i))``: fixed by the whole statement, so by every share, before any use."""
    return hash_to_scalars(tags.VERIFIED_SHARES_W, (statement,), (i.to_bytes(4, "big") for i in range(count)))


def _batch_challenge(statement: bytes, t1: Point, t2: Point) -> int:
    return hash_to_scalar(tags.VERIFIED_SHARES, statement, t1.hash_bytes(), t2.hash_bytes())


def _batch_input(ctxs: Sequence[bytes], points: Sequence[Point], what: str) -> None:
    if not 1 <= len(points) <= MAX_BATCH or len(ctxs) != len(points):
        raise MalformedProof(f"a batch of shares needs 1 to {MAX_BATCH} {what}, one context each")
    for a in points:
        _check_key(a, "a ciphertext's first component")


def prove_shares(ctxs: Sequence[bytes], x: int, points: Sequence[Point], rng: DetRng) -> tuple[list[Point], ShareProof]:
    """The decryption shares ``D_i = x·a_i`` and one proof that every one of them uses the key of ``Y = x·G``.

    The shares are folded with weights no one chooses: ``M = Σ w_i·a_i`` and ``Z = Σ w_i·D_i`` (so ``Z = x·M``),
    and a Chaum–Pedersen proof of ``log_G Y = log_M Z`` follows: ``T₁ = w·G``, ``T₂ = w·M``,
    ``c = Hs(SHARES tag, st, T₁, T₂)``, ``s = w + c·x``. One wrong ``D_j`` leaves ``Z − x·M = Σ w_i·(D_i − x·a_i)``
    non-zero except for weights that hit one value out of ``q``, and the weights come from a hash of every share.
    """
    _batch_input(ctxs, points, "points")
    x = check_scalar(x, "a key share")
    ds = [a * x for a in points]
    statement = _batch_statement(ctxs, base_mul(x), points, ds)
    m = lincomb(points, _batch_weights(statement, len(points)))
    w = random_scalar(rng)
    c = _batch_challenge(statement, base_mul(w), m * w)
    return ds, ShareProof(c, (w + c * x) % Q)


def verify_shares(ctxs: Sequence[bytes], y: Point, points: Sequence[Point], ds: Sequence[Point],
                  proof: ShareProof) -> bool:
    """Whether every ``D_i = x·a_i`` for the ``x`` of ``Y = x·G``, from one batch proof.

    ``T₁ = s·G − c·Y`` and ``T₂ = s·M − c·Z = Σ (s·w_i)·a_i − Σ (c·w_i)·D_i`` (``2k + 2`` products, where
    one proof per share cost ``4k``), then the challenge."""
    _batch_input(ctxs, points, "points")
    _check_key(y, "a public key share")
    if len(ds) != len(points):
        raise MalformedProof("a batch of shares needs one share per point")
    for d in ds:
        _check_key(d, "a decryption share")
    c, s = _check_cs(proof, ShareProof)
    statement = _batch_statement(ctxs, y, points, ds)
    weights = _batch_weights(statement, len(points))
    t1 = lincomb((y,), (-c,), base=s)
    t2 = lincomb([*points, *ds], [*(s * w for w in weights), *(-c * w for w in weights)])
    return _batch_challenge(statement, t1, t2) == c
