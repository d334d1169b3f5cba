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
from collections import deque
from collections.abc import Sequence
from typing import Any, Final

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


STORE_FROM: Final = 1024
"""A frame this long or longer whose middle looks random (:func:`_looks_random`) goes out as stored DEFLATE
blocks, not through the compressor.

Such a frame is a pass, a key release or an audit: points, proofs and seeds, random to a compressor. In whole
games over deflate links (UNO 4 peers, both decks; HP Sha 5 peers) frames of 1 KiB or more shrank by 0.4 % at
most in their stream, while zlib spent ~170 µs compressing each 7 KB of them (~40 MB/s on random bytes): about 2 %
of a verified 10-peer set-up's CPU and 5 % of a fast one's. Storing them costs a copy."""

_SAMPLE: Final = 256
_DISTINCT: Final = 128
"""Random bytes show ~162 distinct values in 256 (256 · (1 − 1/e)); text, numbers and msgpack structure far fewer."""


def _looks_random(frame: bytes) -> bool:
    """Whether the :data:`_SAMPLE` bytes in the middle of ``frame`` hold :data:`_DISTINCT` distinct values or more:
    a test of a few µs that tells points and hashes from text (a long frame's middle is its body)."""
    middle = len(frame) // 2
    return len(set(frame[middle : middle + _SAMPLE])) >= _DISTINCT

WINDOW: Final = 32 * 1024
"""DEFLATE's window: how far back a match may reach, so how much of the stream a new compressor must be primed with."""

_STORED_MAX: Final = 0xFFFF  # bytes in one stored block


def _stored(data: bytes) -> bytes:
    """``data`` as non-final stored blocks (RFC 1951 §3.2.4) on a byte boundary: per block of at most 65 535 bytes,
    the header byte ``00`` (BFINAL 0, BTYPE 00, padding), ``LEN`` and ``NLEN`` little-endian, then the bytes."""
    out = []
    for start in range(0, len(data), _STORED_MAX):
        chunk = data[start : start + _STORED_MAX]
        out += [b"\x00", len(chunk).to_bytes(2, "little"), (len(chunk) ^ 0xFFFF).to_bytes(2, "little"), chunk]
    return b"".join(out)


class Deflater:
    """The sending half of one link direction: frames in, one compressed run out.

    Frames go through zlib, but a long random one (:data:`STORE_FROM`) is written as stored blocks by this
    class, after a sync flush has brought zlib's output to a byte boundary. The receiver's inflater copies those
    bytes into its window like any others, so the compressor, which did not see them, is dropped, and the next
    compressible frame gets a new one primed with the last :data:`WINDOW` bytes the receiver holds: its matches then
    point at the same bytes on both ends. Every run is still plain raw DEFLATE; the receiver cannot tell.
    """

    def __init__(self) -> None:
        self._stream: Any = None  # a compressor in step with the receiver's window; None: make one when needed
        self._recent: deque[bytes] = deque()  # the latest frames sent, at least WINDOW bytes of them when there are
        self._recent_size = 0
        self._stored_since = 0  # bytes stored since the last compressed frame: at WINDOW, nothing useful is in reach

    def pack(self, frames: Sequence[bytes]) -> bytes:
        """One run holding ``frames`` (each ``u32(L) || body``), in order, the sync-flush tail left off."""
        out: list[bytes] = []
        short: list[bytes] = []
        for frame in frames:
            if len(frame) < STORE_FROM or not _looks_random(frame):
                short.append(frame)
                continue
            if short:
                out.append(self._compress(short))
                short = []
            out.append(_stored(frame))
            self._stream = None
            self._stored_since += len(frame)
            self._remember(frame)
        if short:
            out.append(self._compress(short)[: -len(_TAIL)])
        else:
            out.append(b"\x00")  # an empty stored block's header: the receiver adds its LEN and NLEN, the tail
        return b"".join(out)

    def _compress(self, frames: list[bytes]) -> bytes:
        """``frames`` through the compressor, ending in a sync flush (tail included)."""
        stream: Any = self._stream
        if stream is None:
            # Priming costs ~100 µs for a full window; a window of stored random bytes alone is not worth it.
            window = b"".join(self._recent)[-WINDOW:] if self._stored_since < WINDOW else b""
            stream = self._stream = (zlib.compressobj(LEVEL, zlib.DEFLATED, -15, zdict=window) if window
                                     else zlib.compressobj(LEVEL, zlib.DEFLATED, -15))
        out: bytes = b"".join([stream.compress(frame) for frame in frames]) + stream.flush(zlib.Z_SYNC_FLUSH)
        if not out.endswith(_TAIL):  # zlib always ends a sync flush so; anything else is a broken library
            raise RuntimeError("zlib's sync flush did not end in 00 00 FF FF")
        for frame in frames:
            self._remember(frame)
        self._stored_since = 0
        return out

    def _remember(self, frame: bytes) -> None:
        """Keep the frames that hold the stream's last :data:`WINDOW` bytes (what a new compressor is primed with)."""
        recent = self._recent
        recent.append(frame)
        self._recent_size += len(frame)
        while self._recent_size - len(recent[0]) >= WINDOW:
            self._recent_size -= len(recent.popleft())


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
