"""The secp256k1 group for verified dealing: points, scalars, strict encodings, hashing into the group.

This is the only module that touches coincurve (libsecp256k1, Bitcoin Core's library, bundled in its wheels).
We compose its documented public API and add nothing cryptographic of our own:

* a :class:`Point` wraps a ``coincurve.PublicKey``, or the identity, which coincurve cannot represent (adding
  ``P`` and ``-P`` or multiplying by 0 raise there); the identity is handled here, explicitly, so that a malicious
  proof with a zero response is *checked* and rejected instead of crashing the verifier;
* addition is ``PublicKey.combine_keys`` (n-ary, so a long sum costs one call), negation flips the parity byte of
  the compressed encoding, scalar multiplication is ``multiply`` (variable time, see below) and ``k·G`` is
  ``PublicKey.from_secret`` (constant time);
* scalars are Python ints reduced mod :data:`Q`.

Encodings (protocol.md Appendix B.1): a point is 33 bytes, SEC 1 compressed (``02``/``03`` then ``x``);
:func:`decode_point` accepts nothing else (no uncompressed or hybrid form, no ``x >= p``, no point off the curve,
never the identity). A scalar is 32 bytes big-endian below ``Q``. The cofactor of secp256k1 is 1, so a point on
the curve is in the prime-order group: no subgroup check is needed.

coincurve is optional (the extra ``p2php[verified]``): this module imports without it, and the first operation
raises :class:`VerifiedUnavailable`. The LAN path (``crypto/group.py``, P-256 via ``cryptography``) never needs it.

*Timing.* ``multiply`` is variable time and is used with secret scalars (re-masking exponents, key shares). That
is accepted for a card game played through Python over a network (protocol.md Appendix B.8); base-point products
use the constant-time ``from_secret``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final, final

from p2php import tags
from p2php.canonical import digest
from p2php.errors import P2phpError
from p2php.rng import DetRng

if TYPE_CHECKING:
    from coincurve import PublicKey

try:
    import coincurve as _coincurve
except ImportError:  # pragma: no cover - exercised only without the extra
    _coincurve = None  # type: ignore[assignment]

__all__ = [
    "POINT_SIZE",
    "Q",
    "SCALAR_SIZE",
    "InvalidEncoding",
    "Point",
    "VerifiedUnavailable",
    "available",
    "base_mul",
    "check_scalar",
    "commitment_generators",
    "decode_point",
    "decode_scalar",
    "encode_scalar",
    "generator",
    "hash_to_group",
    "hash_to_scalar",
    "identity",
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


def _public_key() -> type[PublicKey]:
    if _coincurve is None:
        raise VerifiedUnavailable(
            "verified dealing needs coincurve: install it with pip install 'p2php[verified]'"
        )
    return _coincurve.PublicKey


@final
class Point:
    """An element of the secp256k1 group; immutable, compared and hashed by its encoding.

    Made only by this module (:func:`base_mul`, :func:`decode_point`, :func:`hash_to_group`, arithmetic), so a
    ``Point`` is always a valid group element. ``+``, ``-``, unary ``-`` and ``k * P`` (``k`` an int, reduced mod
    ``q``) are the group operations.
    """

    __slots__ = ("_key", "_bytes")

    def __init__(self, key: PublicKey | None, raw: bytes) -> None:
        self._key = key
        self._bytes = raw

    @property
    def is_identity(self) -> bool:
        """Whether this is the neutral element (never on the wire)."""
        return self._key is None

    def encode(self) -> bytes:
        """The 33-byte compressed encoding; raises :class:`InvalidEncoding` for the identity."""
        if self._key is None:
            raise InvalidEncoding("the identity has no wire encoding")
        return self._bytes

    def hash_bytes(self) -> bytes:
        """The 33 bytes hashed into a transcript: :meth:`encode`, or 33 zero bytes for the identity."""
        return self._bytes

    def __add__(self, other: Point) -> Point:
        return sum_points((self, other))

    def __neg__(self) -> Point:
        if self._key is None:
            return self
        raw = bytes((self._bytes[0] ^ 1,)) + self._bytes[1:]
        return Point(_public_key()(raw), raw)

    def __sub__(self, other: Point) -> Point:
        return sum_points((self, -other))

    def __mul__(self, k: int) -> Point:
        k %= Q
        if k == 0 or self._key is None:
            return _IDENTITY
        key = self._key.multiply(k.to_bytes(SCALAR_SIZE, "big"))
        return Point(key, key.format())

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and self._bytes == other._bytes

    def __hash__(self) -> int:
        return hash(self._bytes)

    def __repr__(self) -> str:
        return "Point(identity)" if self._key is None else f"Point({self._bytes.hex()})"


_IDENTITY: Final = Point(None, _IDENTITY_BYTES)


def identity() -> Point:
    """The neutral element ``O``."""
    return _IDENTITY


def _wrap(key: PublicKey) -> Point:
    return Point(key, key.format())


def sum_points(points: Iterable[Point]) -> Point:
    """``Σ points`` in one ``combine_keys`` call; identities are skipped and a zero sum is the identity."""
    keys = [p._key for p in points if p._key is not None]
    if not keys:
        return _IDENTITY
    if len(keys) == 1:
        return _wrap(keys[0])
    try:
        return _wrap(_public_key().combine_keys(keys))
    except ValueError:  # libsecp256k1 refuses a sum that is the point at infinity
        return _IDENTITY


def base_mul(k: int) -> Point:
    """``k·G`` (constant-time ``from_secret``); ``k`` is reduced mod ``q``, 0 gives the identity."""
    k %= Q
    if k == 0:
        return _IDENTITY
    return _wrap(_public_key().from_secret(k.to_bytes(SCALAR_SIZE, "big")))


def generator() -> Point:
    """The standard generator ``G`` of SEC 2."""
    return base_mul(1)


def msm(points: Sequence[Point], scalars: Sequence[int]) -> Point:
    """``Σ kᵢ·Pᵢ``: one scalar product per term and one addition pass (coincurve exposes no faster MSM)."""
    if len(points) != len(scalars):
        raise ValueError(f"msm: {len(points)} points but {len(scalars)} scalars")
    keys = []
    for p, k in zip(points, scalars, strict=True):
        k %= Q
        if k and p._key is not None:  # the terms are summed at once: no Point (and no encoding) for each
            keys.append(p._key.multiply(k.to_bytes(SCALAR_SIZE, "big")))
    if not keys:
        return _IDENTITY
    try:
        return _wrap(_public_key().combine_keys(keys))
    except ValueError:  # the sum is the point at infinity
        return _IDENTITY


def decode_point(data: object) -> Point:
    """Strictly decode 33 wire bytes into a point; anything non-canonical raises :class:`InvalidEncoding`."""
    if not isinstance(data, bytes) or len(data) != POINT_SIZE:
        got = f"{len(data)} bytes" if isinstance(data, bytes | bytearray) else type(data).__name__
        raise InvalidEncoding(f"a point is {POINT_SIZE} bytes (SEC 1 compressed), got {got}")
    if data[0] not in (2, 3):
        raise InvalidEncoding(f"a point starts with 02 or 03, got {data[0]:02x}")
    if int.from_bytes(data[1:], "big") >= P:
        raise InvalidEncoding("a point's x-coordinate must be below the field prime")
    try:
        key = _public_key()(data)
    except ValueError:
        raise InvalidEncoding(f"{data.hex()} is not a point of secp256k1") from None
    return Point(key, data)


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
    h = hashlib.sha512()
    for part in (tag, *parts):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
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
