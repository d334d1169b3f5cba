"""Commutative encryption on P-256: the group under every mental-poker operation.

Mental poker needs a cipher where locks commute, ``E_a(E_b(m)) == E_b(E_a(m))``, so
that peers can add and remove their locks in any order without ever seeing the
plaintext.  Pohlig–Hellman/SRA exponentiation in a prime-order group is such a
cipher: "encrypting" a point ``P`` under key ``k`` is the scalar product ``k·P`` and
"decrypting" multiplies by ``k⁻¹ mod n``.  Breaking it is the decisional
Diffie–Hellman problem in the group.

We do not implement curve arithmetic ourselves.  A scalar product is exactly what an
ECDH key exchange computes, so :func:`mul` asks ``cryptography`` (OpenSSL) for
``derive_private_key(k).exchange(ECDH, P)``, which returns the x-coordinate of
``k·P``.  That is why a point is represented *x-only*: as the 32-byte big-endian
x-coordinate.  Dropping ``y`` identifies ``P`` with ``-P``, and because
``x(k·P) == x(k·(-P))`` scalar multiplication is well defined on these classes, so
commutativity and inversion hold exactly as in the full group.

No randomness is drawn here: :func:`random_scalar` takes a :class:`~p2php.rng.DetRng`
so that secrets are reproducible from a seed that is revealed at the audit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from cryptography.hazmat.primitives.asymmetric import ec

from p2php import tags
from p2php.errors import P2phpError
from p2php.rng import DetRng

__all__ = [
    "ORDER",
    "POINT_SIZE",
    "InvalidPoint",
    "hash_to_point",
    "inverse",
    "is_point",
    "mul",
    "mul_many",
    "random_scalar",
]

#: Order ``n`` of the P-256 group (prime), the modulus of every scalar.
ORDER: int = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

#: Field prime ``p`` of P-256; x-coordinates live in ``[0, p)``.
_FIELD: int = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF

#: Size of an encoded point (an x-coordinate) in bytes.
POINT_SIZE = 32

_CURVE = ec.SECP256R1()
_ECDH = ec.ECDH()
_from_encoded = ec.EllipticCurvePublicKey.from_encoded_point
_derive = ec.derive_private_key


class InvalidPoint(P2phpError, ValueError):
    """Bytes that are not the x-coordinate of a P-256 point (wrong size or off the curve)."""


def _decode(point: bytes) -> ec.EllipticCurvePublicKey:
    """Turn an x-only point into a public key object; either sign of ``y`` will do."""
    if not isinstance(point, bytes) or len(point) != POINT_SIZE:
        size = len(point) if isinstance(point, bytes | bytearray) else type(point).__name__
        raise InvalidPoint(f"a point is 32 bytes (an x-coordinate), got {size}")
    try:
        return _from_encoded(_CURVE, b"\x02" + point)
    except ValueError:
        raise InvalidPoint(f"{point.hex()} is not the x-coordinate of a P-256 point") from None


def _check_scalar(k: int) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k < ORDER:
        raise ValueError("a scalar must be an int with 1 <= k < ORDER")


def is_point(x: bytes) -> bool:
    """Whether ``x`` is a valid 32-byte x-coordinate of a P-256 point."""
    try:
        _decode(x)
    except InvalidPoint:
        return False
    return True


def hash_to_point(domain: bytes, data: bytes) -> bytes:
    """A point nobody knows a discrete logarithm of, derived from ``(domain, data)``.

    Card faces must be points whose mutual discrete logs are unknown: if anyone knew
    ``Q = d·P`` for two cards, they could test an encrypted card against both.  Hashing
    (try-and-increment) gives such points.  About half of all x-coordinates are on the
    curve, so the expected number of tries is two.  Timing leaks nothing here: the
    inputs are public card labels.
    """
    prefix = tags.H2C + len(domain).to_bytes(8, "big") + domain + data
    counter = 0
    while True:
        h = hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
        x = (int.from_bytes(h, "big") % _FIELD).to_bytes(POINT_SIZE, "big")
        try:
            _from_encoded(_CURVE, b"\x02" + x)
        except ValueError:
            counter += 1
            continue
        return x


def mul(point: bytes, k: int) -> bytes:
    """``x(k·P)``: encrypt (or, with an inverse, decrypt) one point under key ``k``.

    Raises :class:`InvalidPoint` for a malformed or off-curve point, which is how a
    garbage entry in a peer's message is caught.
    """
    _check_scalar(k)
    public = _decode(point)
    return _derive(k, _CURVE).exchange(_ECDH, public)


def mul_many(points: Sequence[bytes], k: int) -> list[bytes]:
    """``[x(k·P) for P in points]``, deriving the key object once (a third of a mul)."""
    _check_scalar(k)
    private = _derive(k, _CURVE)
    exchange = private.exchange
    return [exchange(_ECDH, _decode(p)) for p in points]


def inverse(k: int) -> int:
    """``k⁻¹ mod ORDER``: the key that removes a lock made with ``k``."""
    _check_scalar(k)
    return pow(k, -1, ORDER)


def random_scalar(rng: DetRng) -> int:
    """A uniform scalar in ``[1, ORDER)`` drawn from ``rng`` (never 0: 0 destroys the point)."""
    return 1 + rng.below(ORDER - 1)
