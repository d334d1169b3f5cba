"""The secp256k1 group for verified dealing: points, scalars, strict encodings, hashing into the group.

This is the only module that touches coincurve (libsecp256k1, Bitcoin Core's library, bundled in its wheels).
We call five functions of libsecp256k1's documented public C API (``secp256k1.h``) through the cffi binding that
coincurve ships and uses itself (``coincurve._libsecp256k1``, with coincurve's global context), and add nothing
cryptographic of our own:

* ``secp256k1_ec_pubkey_tweak_mul`` is ``k·P`` (variable time, see below), ``secp256k1_ec_pubkey_create`` is
  ``k·G`` (constant time), ``secp256k1_ec_pubkey_combine`` is an n-ary sum (a sum of many points is one call),
  ``secp256k1_ec_pubkey_parse`` and ``…_serialize`` are the SEC 1 encodings and ``…_negate`` is ``−P``;
* a :class:`Point` holds libsecp256k1's parsed point (a ``secp256k1_pubkey``), or nothing for the identity, which
  libsecp256k1 cannot represent (a sum to infinity or a product by 0 is refused there); the identity is handled
  here, explicitly, so that a malicious proof with a zero response is *checked* and rejected instead of crashing
  the verifier;
* scalars are Python ints reduced mod :data:`Q`.

Why not coincurve's ``PublicKey`` objects: a proof check makes hundreds of products and sums, and each
``PublicKey`` call adds Python work (scalar re-validation, an object, a copy) of about a tenth of a product;
:func:`msm` and :func:`lincomb` keep their terms as parsed points and encode only the result, which is hashed.

Encodings (protocol.md Appendix B.1): a point is 33 bytes, SEC 1 compressed (``02``/``03`` then ``x``);
:func:`decode_point` accepts nothing else (no uncompressed or hybrid form, no ``x >= p``, no point off the curve,
never the identity). A scalar is 32 bytes big-endian below ``Q``. The cofactor of secp256k1 is 1, so a point on
the curve is in the prime-order group: no subgroup check is needed.

coincurve is optional (the extra ``p2php[verified]``): this module imports without it, and the first operation
raises :class:`VerifiedUnavailable`. The LAN path (``crypto/group.py``, P-256 via ``cryptography``) never needs it.

*Timing.* ``tweak_mul`` is variable time and is used with secret scalars (re-masking exponents, key shares). That
is accepted for a card game played through Python over a network (protocol.md Appendix B.8); base-point products
(the ``base`` term of :func:`lincomb`, :func:`base_mul`) use the constant-time ``pubkey_create``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, Final, final

from p2php import tags
from p2php.canonical import digest
from p2php.errors import P2phpError
from p2php.rng import DetRng

_MISSING = "verified dealing needs coincurve: install it with pip install 'p2php[verified]'"
try:
    import coincurve as _coincurve
except ImportError:  # pragma: no cover - exercised only without the extra
    _coincurve = None  # type: ignore[assignment]
try:  # coincurve's own cffi binding of libsecp256k1 (internal to coincurve: pyproject pins coincurve < 22)
    from coincurve._libsecp256k1 import ffi as _ffi  # type: ignore[import-not-found]
    from coincurve._libsecp256k1 import lib as _lib
    from coincurve.context import GLOBAL_CONTEXT as _CONTEXT
except ImportError:  # pragma: no cover - without the extra, or a coincurve that moved its binding
    if _coincurve is not None:
        _MISSING = (f"verified dealing needs coincurve 21.x (found {getattr(_coincurve, '__version__', '?')}, "
                    "whose libsecp256k1 binding moved): pip install 'coincurve>=21,<22'")
    _coincurve = None  # type: ignore[assignment]
    _ffi = _lib = None
    _CONTEXT = None  # type: ignore[assignment]

__all__ = [
    "POINT_SIZE",
    "Q",
    "SCALAR_SIZE",
    "InvalidEncoding",
    "Point",
    "VerifiedUnavailable",
    "available",
    "unavailable_reason",
    "base_mul",
    "check_scalar",
    "commitment_generators",
    "decode_point",
    "decode_scalar",
    "encode_scalar",
    "generator",
    "hash_to_group",
    "hash_to_scalar",
    "hash_to_scalars",
    "identity",
    "lincomb",
    "msm",
    "random_scalar",
    "sum_points",
]

#: Order ``q`` of the secp256k1 group (prime): the modulus of every scalar.
Q: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

#: Field prime ``p``: an x-coordinate is canonical only below it.
P: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F

#: Size of an encoded point (SEC 1 compressed) and of an encoded scalar, in bytes.
POINT_SIZE: Final = 33
SCALAR_SIZE: Final = 32

_IDENTITY_BYTES: Final = bytes(POINT_SIZE)  # hashed for the identity; never valid on the wire


class VerifiedUnavailable(P2phpError, ImportError):
    """Verified dealing needs coincurve, which is not installed."""


class InvalidEncoding(P2phpError, ValueError):
    """Bytes that are not a canonical point or scalar (wrong size or form, off the curve, ``>= q``, identity)."""


def available() -> bool:
    """Whether coincurve is installed (``pip install 'p2php[verified]'``)."""
    return _coincurve is not None


def unavailable_reason() -> str:
    """Why :func:`available` is false, in one line a player can act on (empty when it is true)."""
    return "" if _coincurve is not None else _MISSING


def _need() -> None:
    if _coincurve is None:
        raise VerifiedUnavailable(_MISSING)


# ----------------------------------------------------------------------------- the calls into libsecp256k1
#
# ``_mul``, ``_gen`` and ``_combine`` are every group operation this module makes, and ``_parse`` every point
# decompression (benchmarks/deal.py counts them by wrapping these four names, so call them through the module,
# never through a local alias). A "raw" point is a ``secp256k1_pubkey *`` or ``None`` for the identity; a raw
# point is never modified once made.


def _mul(raw: Any, k: int) -> Any:
    """``k·P`` for a raw point ``P`` and ``0 < k < q`` (``secp256k1_ec_pubkey_tweak_mul``, variable time)."""
    out = _ffi.new("secp256k1_pubkey *", raw[0])
    if not _lib.secp256k1_ec_pubkey_tweak_mul(_CONTEXT.ctx, out, k.to_bytes(SCALAR_SIZE, "big")):
        raise AssertionError("secp256k1_ec_pubkey_tweak_mul refused a scalar in (0, q)")  # pragma: no cover
    return out


def _gen(k: int) -> Any:
    """``k·G`` for ``0 < k < q`` (``secp256k1_ec_pubkey_create``, constant time)."""
    out = _ffi.new("secp256k1_pubkey *")
    if not _lib.secp256k1_ec_pubkey_create(_CONTEXT.ctx, out, k.to_bytes(SCALAR_SIZE, "big")):
        raise AssertionError("secp256k1_ec_pubkey_create refused a scalar in (0, q)")  # pragma: no cover
    return out


def _combine(raws: list[Any]) -> Any:
    """The sum of two or more raw points in one ``secp256k1_ec_pubkey_combine`` call; ``None`` if it is ``O``."""
    out = _ffi.new("secp256k1_pubkey *")
    if not _lib.secp256k1_ec_pubkey_combine(_CONTEXT.ctx, out, raws, len(raws)):
        return None  # libsecp256k1 refuses a sum that is the point at infinity
    return out


def _parse(data: bytes) -> Any:
    """The raw point of 33 compressed bytes, or ``None`` if ``x`` is not on the curve (``secp256k1_ec_pubkey_parse``:
    a field square root recovers ``y``)."""
    raw = _ffi.new("secp256k1_pubkey *")
    return raw if _lib.secp256k1_ec_pubkey_parse(_CONTEXT.ctx, raw, data, POINT_SIZE) else None


def _sum(raws: list[Any]) -> Any:
    """The sum of raw points other than the identity: ``None`` (``O``) for none, no call for one."""
    if len(raws) > 1:
        return _combine(raws)
    return raws[0] if raws else None


def _encode(raw: Any) -> bytes:
    out = _ffi.new("unsigned char[33]")
    size = _ffi.new("size_t *", POINT_SIZE)
    _lib.secp256k1_ec_pubkey_serialize(_CONTEXT.ctx, out, size, raw, _lib.SECP256K1_EC_COMPRESSED)
    return bytes(_ffi.buffer(out, POINT_SIZE))


def _point(raw: Any) -> Point:
    """The :class:`Point` of a raw point (``None``: the identity)."""
    return _IDENTITY if raw is None else Point(raw, _encode(raw))


@final
class Point:
    """An element of the secp256k1 group; immutable, compared and hashed by its encoding.

    Made only by this module (:func:`base_mul`, :func:`decode_point`, :func:`hash_to_group`, arithmetic), so a
    ``Point`` is always a valid group element. ``+``, ``-``, unary ``-`` and ``k * P`` (``k`` an int, reduced mod
    ``q``) are the group operations.
    """

    __slots__ = ("_raw", "_bytes")

    def __init__(self, raw: Any, encoded: bytes) -> None:
        self._raw = raw
        self._bytes = encoded

    @property
    def is_identity(self) -> bool:
        """Whether this is the neutral element (never on the wire)."""
        return self._raw is None

    def encode(self) -> bytes:
        """The 33-byte compressed encoding; raises :class:`InvalidEncoding` for the identity."""
        if self._raw is None:
            raise InvalidEncoding("the identity has no wire encoding")
        return self._bytes

    def hash_bytes(self) -> bytes:
        """The 33 bytes hashed into a transcript: :meth:`encode`, or 33 zero bytes for the identity."""
        return self._bytes

    def __add__(self, other: Point) -> Point:
        return sum_points((self, other))

    def __neg__(self) -> Point:
        if self._raw is None:
            return self
        raw = _ffi.new("secp256k1_pubkey *", self._raw[0])
        _lib.secp256k1_ec_pubkey_negate(_CONTEXT.ctx, raw)
        return Point(raw, bytes((self._bytes[0] ^ 1,)) + self._bytes[1:])  # -(x, y) = (x, p - y): the other parity

    def __sub__(self, other: Point) -> Point:
        return sum_points((self, -other))

    def __mul__(self, k: int) -> Point:
        k %= Q
        if k == 0 or self._raw is None:
            return _IDENTITY
        return _point(_mul(self._raw, k))

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and self._bytes == other._bytes

    def __hash__(self) -> int:
        return hash(self._bytes)

    def __repr__(self) -> str:
        return "Point(identity)" if self._raw is None else f"Point({self._bytes.hex()})"


_IDENTITY: Final = Point(None, _IDENTITY_BYTES)


def identity() -> Point:
    """The neutral element ``O``."""
    return _IDENTITY


def sum_points(points: Iterable[Point]) -> Point:
    """``Σ points`` in one ``combine`` call; identities are skipped and a zero sum is the identity."""
    terms = [p for p in points if p._raw is not None]
    if len(terms) == 1:
        return terms[0]  # the one term itself: no call, no new encoding
    return _point(_sum([p._raw for p in terms]))


def base_mul(k: int) -> Point:
    """``k·G`` (constant-time ``pubkey_create``); ``k`` is reduced mod ``q``, 0 gives the identity."""
    _need()
    k %= Q
    if k == 0:
        return _IDENTITY
    return _point(_gen(k))


def generator() -> Point:
    """The standard generator ``G`` of SEC 2."""
    return base_mul(1)


def lincomb(points: Sequence[Point], scalars: Sequence[int], base: int = 0) -> Point:
    """``base·G + Σ kᵢ·Pᵢ``: one product per term (none for ``kᵢ = 1``) and one ``combine`` call for the sum.

    Only the result is encoded (it is what a proof hashes); the terms stay libsecp256k1 points.

    Scalars are reduced mod ``q`` (so ``-k`` subtracts); zero terms and identity points are skipped, and a sum
    that is ``O`` is the identity. The ``base`` term is the constant-time ``pubkey_create`` (it may be secret).
    """
    if len(points) != len(scalars):
        raise ValueError(f"lincomb: {len(points)} points but {len(scalars)} scalars")
    raws = []
    base %= Q
    if base:
        _need()
        raws.append(_gen(base))
    for p, k in zip(points, scalars, strict=True):
        k %= Q
        if k and p._raw is not None:
            raws.append(p._raw if k == 1 else _mul(p._raw, k))  # 1·P is P: no product
    return _point(_sum(raws))


def msm(points: Sequence[Point], scalars: Sequence[int]) -> Point:
    """``Σ kᵢ·Pᵢ``: one scalar product per term and one addition call (libsecp256k1 exposes no faster MSM)."""
    if len(points) != len(scalars):
        raise ValueError(f"msm: {len(points)} points but {len(scalars)} scalars")
    return lincomb(points, scalars)


def decode_point(data: object) -> Point:
    """Strictly decode 33 wire bytes into a point; anything non-canonical raises :class:`InvalidEncoding`."""
    if not isinstance(data, bytes) or len(data) != POINT_SIZE:
        got = f"{len(data)} bytes" if isinstance(data, bytes | bytearray) else type(data).__name__
        raise InvalidEncoding(f"a point is {POINT_SIZE} bytes (SEC 1 compressed), got {got}")
    if data[0] not in (2, 3):
        raise InvalidEncoding(f"a point starts with 02 or 03, got {data[0]:02x}")
    if int.from_bytes(data[1:], "big") >= P:
        raise InvalidEncoding("a point's x-coordinate must be below the field prime")
    _need()
    raw = _parse(data)
    if raw is None:
        raise InvalidEncoding(f"{data.hex()} is not a point of secp256k1")
    return Point(raw, data)


def check_scalar(k: object, what: str = "a scalar") -> int:
    """``k`` itself if it is an int (not a bool) with ``0 <= k < q``; else :class:`InvalidEncoding`."""
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < Q:
        raise InvalidEncoding(f"{what} must be an int with 0 <= k < q")
    return k


def encode_scalar(k: int) -> bytes:
    """32 bytes big-endian of a scalar in ``[0, q)``."""
    return check_scalar(k).to_bytes(SCALAR_SIZE, "big")


def decode_scalar(data: object) -> int:
    """Strictly decode 32 bytes big-endian into a scalar below ``q``."""
    if not isinstance(data, bytes) or len(data) != SCALAR_SIZE:
        got = f"{len(data)} bytes" if isinstance(data, bytes | bytearray) else type(data).__name__
        raise InvalidEncoding(f"a scalar is {SCALAR_SIZE} bytes, got {got}")
    return check_scalar(int.from_bytes(data, "big"))


def random_scalar(rng: DetRng) -> int:
    """A uniform scalar in ``[1, q)`` drawn from ``rng`` (reproducible from its seed)."""
    return 1 + rng.below(Q - 1)


def hash_to_group(domain: bytes, *parts: bytes) -> Point:
    """A point nobody knows a discrete logarithm of, from public inputs (try-and-increment).

    For ``ctr = 0, 1, …``: ``x = D(H2G tag, domain, *parts, u32(ctr))`` and the point is ``02 || x`` as soon as
    that decodes (about two tries on average). Timing depends only on public inputs.
    """
    for ctr in range(1 << 16):
        raw = b"\x02" + digest(tags.VERIFIED_H2G, domain, *parts, ctr.to_bytes(4, "big"))
        try:
            return decode_point(raw)
        except InvalidEncoding:
            continue
    raise AssertionError("hash_to_group: no point in 65536 tries")  # probability 2^-65536


def hash_to_scalar(tag: bytes, *parts: bytes) -> int:
    """``Hs(tag, parts)``: SHA-512 over length-prefixed ``tag`` and parts, as an integer mod ``q`` (bias 2^-256).

    The Fiat–Shamir challenges are full size: every value in ``[0, q)`` is (almost) equally likely.
    """
    return _hs_scalar(_hs_absorb(hashlib.sha512(), (tag, *parts)))


def hash_to_scalars(tag: bytes, parts: Sequence[bytes], lasts: Iterable[bytes]) -> list[int]:
    """``[Hs(tag, *parts, last) for last in lasts]``, hashing the common ``tag, *parts`` once."""
    prefix = _hs_absorb(hashlib.sha512(), (tag, *parts))
    return [_hs_scalar(_hs_absorb(prefix.copy(), (last,))) for last in lasts]


def _hs_absorb(h: hashlib._Hash, parts: Iterable[bytes]) -> hashlib._Hash:
    """``Hs``'s encoding, in one place: each part as ``u64(len) || part``."""
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h


def _hs_scalar(h: hashlib._Hash) -> int:
    return int.from_bytes(h.digest(), "big") % Q


_GENERATORS: list[Point] = []


def commitment_generators(n: int) -> tuple[Point, ...]:
    """``(H_0, H_1, …, H_n)`` with ``H_i = hash_to_group(GENS tag, u32(i))``: the Pedersen commitment bases.

    Independent of ``G`` and of one another (nobody knows a discrete log between any two), fixed for the protocol
    version, and cached here.
    """
    if n < 0:
        raise ValueError("commitment_generators needs n >= 0")
    while len(_GENERATORS) <= n:
        _GENERATORS.append(hash_to_group(tags.VERIFIED_GENS, len(_GENERATORS).to_bytes(4, "big")))
    return tuple(_GENERATORS[: n + 1])
