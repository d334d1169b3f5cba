"""The ``deflate`` link feature: frames that go out together travel as one compressed run (sans-IO; protocol.md
§3.2, "The deflate feature").

On a link whose two ends offered ``deflate``, each direction keeps one raw DEFLATE stream (RFC 1951) for the
life of the connection.  The writer takes every frame waiting for the link (``u32(L) || body`` each, as
:func:`~p2php.net.framing.encode_frame` makes them), compresses them in one go and ends the run with a sync
flush, whose fixed four-byte tail ``00 00 FF FF`` is left off (the receiver puts it back), as WebSocket's
permessage-deflate does.  The run then goes out as one authenticated frame.

Why: most of what a table sends is random to a compressor (points, signatures, hashes), but the rest -- map
keys, small numbers, the shape of the envelope -- repeats from frame to frame, and a stream that remembers the
last 32 KiB finds it.  Frames that leave together also share one length prefix and one link tag.

Why it is safe: nothing on a link is encrypted -- public messages are public and private payloads are sealed
before they reach the link (§7.5) -- so compressing cannot leak a secret through a length (the attacks on
compressed encrypted streams need a secret and attacker-chosen text in one compressed, encrypted stream).
Inflating is bounded: a run may grow to at most ``limit`` bytes, and one that would grow further, that is not
valid DEFLATE, or that ends the stream is a framing error on an authenticated link.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Final

from p2php.errors import P2phpError

FEATURE: Final = "deflate"
"""The feature's name in the ``"wire"`` offer of a challenge frame (§3.2)."""

LEVEL: Final = 1
"""zlib's fastest level: on these frames it compresses within a percent of level 6 for a fraction of the time."""

MAX_RUN_FRAMES: Final = 64
"""Frames a writer puts into one run at most (more wait for the next run)."""

_TAIL: Final = b"\x00\x00\xff\xff"
_HEADER: Final = 4


class DeflateError(P2phpError, ValueError):
    """A run that does not inflate to whole frames within the limit."""


def run_limit(max_frame: int) -> int:
    """Most bytes one run may inflate to: one largest frame with its length prefix."""
    return max_frame + _HEADER


def wire_slack(max_frame: int) -> int:
    """How far a run's compressed size may exceed ``max_frame`` (DEFLATE's few bytes per stored block)."""
    return (max_frame >> 8) + 64


class Deflater:
    """The sending half of one link direction: frames in, one compressed run out."""

    def __init__(self) -> None:
        self._stream = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)

    def pack(self, frames: Sequence[bytes]) -> bytes:
        """One run holding ``frames`` (each ``u32(L) || body``), in order, the sync-flush tail left off."""
        stream = self._stream
        out = b"".join([stream.compress(frame) for frame in frames]) + stream.flush(zlib.Z_SYNC_FLUSH)
        if not out.endswith(_TAIL):  # zlib always ends a sync flush so; anything else is a broken library
            raise RuntimeError("zlib's sync flush did not end in 00 00 FF FF")
        return out[: -len(_TAIL)]


class Inflater:
    """The receiving half of one link direction: a run in, the frame bodies it holds out."""

    def __init__(self, max_frame: int) -> None:
        self.max_frame = max_frame
        self._stream = zlib.decompressobj(-15)

    def unpack(self, run: bytes) -> list[bytes]:
        """The bodies of the frames in ``run``, in order.  Raises :class:`DeflateError` (the stream is then lost)."""
        stream, limit = self._stream, run_limit(self.max_frame)
        try:
            data = stream.decompress(run + _TAIL, limit + 1)
        except zlib.error as exc:
            raise DeflateError(f"not a valid deflate run: {exc}") from None
        if len(data) > limit or stream.unconsumed_tail:
            raise DeflateError(f"a run inflates past the {limit}-byte limit")
        if stream.eof:
            raise DeflateError("a run ends the link's deflate stream")
        bodies = []
        pos = 0
        while pos < len(data):
            if len(data) - pos < _HEADER:
                raise DeflateError("a run ends inside a frame's length prefix")
            length = int.from_bytes(data[pos : pos + _HEADER], "big")
            if not 1 <= length <= self.max_frame:
                raise DeflateError(f"a frame in a run declares {length} bytes (1..{self.max_frame} allowed)")
            end = pos + _HEADER + length
            if end > len(data):
                raise DeflateError("a run ends inside a frame")
            bodies.append(data[pos + _HEADER : end])
            pos = end
        if not bodies:
            raise DeflateError("an empty run")
        return bodies
