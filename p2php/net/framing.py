# mypy: disable-error-code="import-untyped"
"""Length-prefixed msgpack frames: the wire format between peers (sans-IO).

A frame is a 4-byte big-endian unsigned length followed by exactly that many
bytes holding one msgpack map with ``str`` keys.  This module does no I/O, so
the same code is driven by :mod:`p2php.net.mesh` over TCP and by tests over
plain byte strings, split any way they like.

Every byte of a frame may come from a cheating or broken peer, so decoding is
defensive first and fast second.  Before msgpack builds a single object, a small
structural scan (:func:`_check_structure`) walks the body and refuses anything
outside the wire contract: ext types, non-``str`` map keys, nesting deeper than
:data:`MAX_DEPTH`, a top level that is not a map, trailing bytes, truncation.
The scan also refuses a container that declares more items than the bytes left
could hold.  That matters because msgpack preallocates a list for the count it
is told: without the check, a few hundred bytes of nested ``array32`` headers
would ask for gigabytes.  With it, every allocation is bounded by the body size,
which is itself bounded by ``max_size`` before a single body byte is buffered.
"""

from __future__ import annotations

import functools
import re
from collections import deque
from typing import Any

import msgpack

from p2php.errors import P2phpError
from p2php.net.deflate import MAX_RUN_FRAMES, DeflateError, Inflater, wire_slack
from p2php.net.linkauth import TAG_SIZE as _TAG_SIZE
from p2php.net.linkauth import LinkMac

MAX_FRAME = 4 * 1024 * 1024
"""Default largest body a peer may send (the length prefix excluded)."""

MAX_DEPTH = 32
"""Deepest container nesting allowed in a frame; the top-level map is depth 1."""

MAX_VALUES = 65536
"""Most values (the items of every container, map keys included) one frame -- or one compressed run of frames --
may hold. Decoding builds an object per value: a 4 MiB body of one-byte empty maps cost 2.7 s of CPU in the
event loop and 330 MiB, enough for an outsider's hello or a cheater's chat frame to make an honest seat miss its
deadlines. A game's own messages hold a few hundred (a verified pass of N cards about N + 40); an abort or an audit
carrying signed copies as evidence holds up to a quarter of it (``p2php.session.ending``)."""

VALUE_BYTES = 4
"""Bytes a signed message spends at least on each value (§3.1's count) of its wire form, else a seat refuses it
(§5.2 check 6, ``p2php.session.lockstep.too_dense``): the budget a transcript or resume log reader has for a whole
file (``p2php.session.transcript.Spans``), so that a record can hold every message a seat accepts. An honest
message spends 7 bytes or more on each (the densest: an action and its keys, about 7.4); a cheater's accepted action
packed with 65 000 one-byte values made every honest record of the table unreadable by ``p2php verify`` and every
honest resume log unusable (red-team rt6-dense)."""

HANDSHAKE_FRAME = 256 * 1024
"""Largest frame before a link is authenticated (its hellos and handshake): anyone can open a connection and send
one. A hello is a few KiB, but it carries the table's options, and a trading-card table's deck lists may be long."""

HEADER_SIZE = 4
_MAX_DECLARABLE = 2**32 - 1


class FrameError(P2phpError, ValueError):
    """A frame that breaks the wire contract; the peer that sent it is at fault."""


class TooManyValues(FrameError):
    """A body holding more values than its reader's budget (:data:`MAX_VALUES`, or what a run or file has left)."""


# What a msgpack type byte announces, outside the fixint/fixmap/fixarray/fixstr ranges.
# Fixed-size scalars: type byte -> (kind, payload bytes that follow).
_FIXED: dict[int, tuple[str, int]] = {
    0xC0: ("nil", 0),
    0xC2: ("bool", 0),
    0xC3: ("bool", 0),
    0xCA: ("float", 4),
    0xCB: ("float", 8),
    0xCC: ("int", 1),
    0xCD: ("int", 2),
    0xCE: ("int", 4),
    0xCF: ("int", 8),
    0xD0: ("int", 1),
    0xD1: ("int", 2),
    0xD2: ("int", 4),
    0xD3: ("int", 8),
}
# Length-prefixed values: type byte -> (kind, width of the big-endian length/count).
_SIZED: dict[int, tuple[str, int]] = {
    0xC4: ("bin", 1),
    0xC5: ("bin", 2),
    0xC6: ("bin", 4),
    0xD9: ("str", 1),
    0xDA: ("str", 2),
    0xDB: ("str", 4),
    0xDC: ("array", 2),
    0xDD: ("array", 4),
    0xDE: ("map", 2),
    0xDF: ("map", 4),
}
_EXT = frozenset({0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8})


def _header(body: bytes, pos: int) -> tuple[str, int, int]:
    """Read the msgpack header at ``pos``: ``(kind, n, next_pos)``.

    ``n`` is the item count for an array or map, and for anything else the
    number of payload bytes to skip, so the scan never looks inside scalars.
    """
    b = body[pos]
    pos += 1
    if b <= 0x7F or b >= 0xE0:
        return "int", 0, pos
    if b <= 0x8F:
        return "map", b & 0x0F, pos
    if b <= 0x9F:
        return "array", b & 0x0F, pos
    if b <= 0xBF:
        return "str", b & 0x1F, pos
    if b in _FIXED:
        kind, size = _FIXED[b]
        return kind, size, pos
    if b in _SIZED:
        kind, width = _SIZED[b]
        if pos + width > len(body):
            raise FrameError(f"body is truncated inside a {kind} header at byte {pos - 1}")
        return kind, int.from_bytes(body[pos : pos + width], "big"), pos + width
    if b in _EXT:
        raise FrameError(f"msgpack ext type (byte 0x{b:02x} at {pos - 1}) is not allowed in a frame")
    raise FrameError(f"body is not valid msgpack: byte 0x{b:02x} at {pos - 1} is never used")


# The fast scan's table for the type bytes outside the fix ranges: byte -> (header bytes after it, container kind or
# "" for a scalar, payload bytes of a fixed-size scalar). A byte missing here (ext, 0xc1) is refused.
_FAST: dict[int, tuple[int, str, int]] = {
    **{b: (0, "", size) for b, (_, size) in _FIXED.items()},
    **{b: (width, kind if kind in ("array", "map") else "", 0) for b, (kind, width) in _SIZED.items()},
}


_INT = rb"(?:[\x00-\x7f\xe0-\xff]|[\xcc\xd0].|[\xcd\xd1].{2}|[\xce\xd2].{4}|[\xcf\xd3].{8})"
_TUPLE = re.compile(rb"(?:\x92" + _INT + rb"|\x93" + _INT + _INT + rb")\xc4(?:\x20.{32}|\x21.{33})", re.DOTALL)
"""One ``[int, bin]`` or ``[int, int, bin]`` with a 32- or 33-byte bin: an entry of a ``seen`` list, a ``keys`` list
or a verified ``shares`` list, the commonest small containers on the wire (matched in C, one call each)."""


@functools.cache
def _bin_run(size: int) -> re.Pattern[bytes]:
    """Bytes of zero or more msgpack bin8 values of ``size`` bytes each."""
    return re.compile(b"(?:" + re.escape(bytes([0xC4, size])) + b".{%d})*" % size, re.DOTALL)


def _structure_ok(body: bytes, budget: int, depth: int = 0) -> int:
    """The values ``body`` holds when it is certainly inside the wire contract (at most ``budget`` of them), else
    -1: :func:`_check_structure`'s walk, inlined. ``depth``: containers around ``body`` in the value it is part of
    (:func:`nested_values`), which count against :data:`MAX_DEPTH` as the walk of that whole value counts them.

    The same rules in one tight loop, without naming what is wrong: on -1 the exact walk runs again to say
    what (only a bad frame pays twice). Bounds are checked once per container and at the end, not per scalar:
    a scalar that runs past the end leaves ``pos`` beyond it, which the loop's guard or the final check refuses.
    ``tests/test_net_framing.py`` holds the two walks to the same verdict on valid, mutated and hostile bodies.
    """
    end = len(body)
    pos = 0
    owed = 1
    total = 0  # values declared so far (every container's items)
    lefts: list[int] = []  # items still to come in each open container
    maps: list[bool] = []  # whether that container is a map
    fast = _FAST
    max_depth = MAX_DEPTH - depth
    while owed:
        if pos >= end:
            return -1
        b = body[pos]
        if lefts:
            left = lefts[-1]
            if maps[-1] and not left & 1 and not (0xA0 <= b <= 0xBF or 0xD9 <= b <= 0xDB):
                return -1  # a map key that is not a str
            lefts[-1] = left - 1
        elif not (0x80 <= b <= 0x8F or b == 0xDE or b == 0xDF):
            return -1  # the top level is not a map
        owed -= 1
        if b <= 0x7F or b >= 0xE0:
            pos += 1
        elif b >= 0xA0 and b <= 0xBF:
            pos += 1 + (b & 0x1F)
        else:
            if b <= 0x9F:
                n, is_map, container = b & 0x0F, b <= 0x8F, True
                pos += 1
            else:
                entry = fast.get(b)
                if entry is None:
                    return -1
                width, kind, size = entry
                if not width:
                    pos += 1 + size
                    container = False
                else:
                    n = int.from_bytes(body[pos + 1 : pos + 1 + width], "big")
                    pos += 1 + width
                    container = kind != ""
                    if not container:
                        pos += n
                    is_map = kind == "map"
            if container:
                if len(lefts) >= max_depth:
                    return -1
                items = 2 * n if is_map else n
                owed += items
                total += items
                if owed > end - pos or total > budget:
                    return -1
                if items >= 4 and not is_map and pos + 1 < end and body[pos] == 0xC4:
                    # A run of equal-sized bin8 items (points, keys, ciphertexts) is matched in C at once.
                    run = _bin_run(body[pos + 1])
                    step = body[pos + 1] + 2
                    matched = run.match(body, pos, min(end, pos + items * step))
                    done = (matched.end() - pos) // step if matched else 0
                    pos += done * step
                    owed -= done
                    items -= done
                elif items and not is_map and len(lefts) + 1 < max_depth and pos < end and body[pos] in b"\x92\x93":
                    # Entries that are small [int, (int,) bin32/33] tuples (seen heads, keys, shares): one C match
                    # each instead of three or four turns of this loop. Such a tuple is one item of this array.
                    match = _TUPLE.match
                    while items:
                        found = match(body, pos)
                        if found is None:
                            break
                        total += body[pos] & 0x0F  # (the tuple's own items count too)
                        pos = found.end()
                        owed -= 1
                        items -= 1
                    if total > budget:
                        return -1
                if items:
                    lefts.append(items)
                    maps.append(is_map)
                    continue
        while lefts and not lefts[-1]:
            lefts.pop()
            maps.pop()
    return total if pos == end else -1


def _check_structure(body: bytes, budget: int = MAX_VALUES) -> int:
    """Refuse, without building any object, a body outside the wire contract or holding more than ``budget``
    values (the fast walk, else the exact one); the values it holds."""
    values = _structure_ok(body, budget)
    if values < 0:
        _walk_structure(body, budget)
        raise AssertionError("the two walks disagree")  # pragma: no cover (tests hold them to one verdict)
    return values


def _walk_structure(body: bytes, budget: int = MAX_VALUES) -> None:
    """Refuse, without building any object, a body outside the wire contract, saying what is wrong.

    The walk keeps one counter per open container (items still to come) and the
    total still owed; since every item takes at least one byte, a total above
    the bytes left is a lie that would only make msgpack preallocate memory.
    """
    end = len(body)
    if end == 0:
        raise FrameError("frame body is empty")
    pos = 0
    owed = 1  # items still to read, across all open containers; first the top-level map
    total = 0  # values declared so far
    stack: list[list[int]] = []  # per open container: [items left, 1 if it is a map]
    while owed:
        if pos >= end:
            raise FrameError(f"body is truncated msgpack: {owed} item(s) missing after {end} bytes")
        start = pos
        kind, n, pos = _header(body, pos)
        if not stack:
            if kind != "map":
                raise FrameError(f"top-level value is {kind}, a frame must be a map")
        else:
            parent = stack[-1]
            if parent[1] and parent[0] % 2 == 0 and kind != "str":
                raise FrameError(f"map key at byte {start} is {kind}, frame map keys must all be str")
            parent[0] -= 1
        owed -= 1
        if kind in ("array", "map"):
            if len(stack) >= MAX_DEPTH:
                raise FrameError(f"nesting deeper than {MAX_DEPTH} levels at byte {start}")
            items = 2 * n if kind == "map" else n
            owed += items
            if owed > end - pos:
                raise FrameError(
                    f"{kind} at byte {start} declares {n} items, more than the {end - pos} bytes left can hold"
                )
            total += items
            if total > budget:
                raise TooManyValues(f"more than {budget} values (at byte {start})")
            stack.append([items, kind == "map"])
        else:
            pos += n
            if pos > end:
                raise FrameError(f"body is truncated inside a {kind} starting at byte {start}")
        while stack and stack[-1][0] == 0:
            stack.pop()
    if pos != end:
        raise FrameError(f"{end - pos} trailing byte(s) after the msgpack map ({pos} of {end} used)")


def body_values(body: bytes) -> int:
    """The values an encoded map (a frame body, or a message's wire form) counts against :data:`MAX_VALUES`, for a
    writer that must stay under it: the readers' own walk, so the two never count differently."""
    return max(_structure_ok(body, 1 << 62), 0)


def nested_values(body: bytes, depth: int) -> int:
    """:func:`body_values` of an encoded map, as the walk of a value that holds it ``depth`` containers deep counts
    it (its own items and everything inside them), or -1 where that walk would refuse the whole value for something
    inside it (the map is always valid msgpack here: nothing outside it changes the verdict but its depth)."""
    return _structure_ok(body, 1 << 62, depth)


def frame_values(frame: bytes) -> int:
    """The values an encoded frame (its length prefix included) counts against :data:`MAX_VALUES`: a writer's
    count, cheap for a small frame (every value takes a byte at least, so its length bounds it)."""
    return len(frame) if len(frame) <= 4096 else body_values(frame[HEADER_SIZE:])


def decode_frame_body(body: bytes) -> dict[str, Any]:
    """Decode one frame body (no length prefix) into a dict, or raise FrameError."""
    return decode_counted(body)[0]


def decode_counted(body: bytes, budget: int = MAX_VALUES) -> tuple[dict[str, Any], int]:
    """Decode one frame body holding at most ``budget`` values (else FrameError): the dict, and its values (for
    a reader that bounds the values of many bodies together: a compressed run, a transcript)."""
    body = bytes(body)
    values = _check_structure(body, budget)
    return decode_checked(body), values


def decode_checked(body: bytes) -> dict[str, Any]:
    """Decode a body :func:`decode_counted` accepted before, its bytes unchanged (a reader that keeps a file's bytes
    and decodes an entry each time it is read, :class:`p2php.session.transcript.Frames`): the same dict, without the
    rules' walk in Python again (rv7-reader: a verifier reads each message five times or more)."""
    try:
        # The scan bounded every count already; these limits, strict_map_key and
        # the ext_hook are a second line of defence should the two ever disagree.
        limit = len(body)
        obj = msgpack.unpackb(
            body,
            raw=False,
            use_list=True,
            strict_map_key=True,
            ext_hook=_refuse_ext,
            max_str_len=limit,
            max_bin_len=limit,
            max_array_len=limit,
            max_map_len=limit // 2,
            max_ext_len=0,
        )
    except Exception as exc:  # hostile bytes must never escape as anything but FrameError
        raise FrameError(f"body is not valid msgpack: {exc}") from exc
    if not isinstance(obj, dict):  # guaranteed by _check_structure
        raise FrameError("top-level value is not a map")
    return obj


def _refuse_ext(code: int, data: bytes) -> Any:
    """ext_hook that can only fire if the structural scan were bypassed."""
    raise FrameError(f"msgpack ext type {code} is not allowed in a frame")


_pack = msgpack.Packer(use_bin_type=True).pack
"""``msgpack.packb(obj, use_bin_type=True)`` without making a Packer per frame (it resets after each pack, and
after an error)."""


def encode_frame(obj: dict[str, Any], max_size: int = MAX_FRAME) -> bytes:
    """Encode ``obj`` as one frame (length prefix + msgpack body).

    The body is checked by the very rules the receiver applies, so a frame a
    peer would reject (an int key, too deep, too big) fails loudly here, in the
    sender's own code, instead of getting an honest peer disconnected as a cheat.
    """
    if not isinstance(obj, dict):
        raise TypeError(f"a frame must be a dict, got {type(obj).__name__}")
    body: bytes = _pack(obj)
    _check_structure(body)
    if len(body) > max_size:
        raise FrameError(f"frame body is {len(body)} bytes, over the {max_size}-byte limit")
    return len(body).to_bytes(HEADER_SIZE, "big") + body


class FrameDecoder:
    """Turns a byte stream, split anywhere, into decoded frames.

    h11-style: :meth:`receive_data` buffers bytes, :meth:`next_frame` returns one
    frame or None when more bytes are needed; :meth:`feed` does both at once.
    The length prefix is checked as soon as its 4 bytes arrive, so an oversized
    frame is refused before any of its body is waited for or kept.  After a
    :class:`FrameError` the stream position is lost, so the decoder refuses all
    further use rather than guess where the next frame starts.
    """

    def __init__(self, max_size: int = MAX_FRAME) -> None:
        if not 1 <= max_size <= _MAX_DECLARABLE - _TAG_SIZE:
            raise ValueError(f"max_size must be in 1..{_MAX_DECLARABLE - _TAG_SIZE}, got {max_size}")
        self.max_size = max_size
        self._buffer = bytearray()
        self._error: FrameError | None = None
        self._mac: LinkMac | None = None
        self._inflater: Inflater | None = None
        self._ready: deque[dict[str, Any]] = deque()  # decoded frames of a run not yet handed out

    def authenticate(self, mac: LinkMac, deflate: bool = False, max_size: int | None = None) -> None:
        """From the next frame on, every frame ends in a tag that ``mac`` must accept (§3.2, link keys).

        Set once, right after the handshake; bytes already buffered are the peer's
        first authenticated frames and are checked too.  ``deflate``: the link agreed
        to the ``deflate`` feature, so each authenticated frame is a compressed run of
        frames (:mod:`p2php.net.deflate`).  ``max_size``: the largest frame from now on
        (a link reads its handshake under the smaller :data:`HANDSHAKE_FRAME`).
        """
        if self._mac is not None:
            raise ValueError("the decoder already authenticates its frames")
        if max_size is not None:
            if not 1 <= max_size <= _MAX_DECLARABLE - _TAG_SIZE:
                raise ValueError(f"max_size must be in 1..{_MAX_DECLARABLE - _TAG_SIZE}, got {max_size}")
            self.max_size = max_size
        self._mac = mac
        self._inflater = Inflater(self.max_size) if deflate else None

    @property
    def pending(self) -> int:
        """Bytes buffered that do not yet form a complete frame."""
        return len(self._buffer)

    def receive_data(self, data: bytes | bytearray) -> None:
        """Buffer ``data``; decode it with :meth:`next_frame`."""
        self._raise_if_failed()
        self._buffer += data

    def next_frame(self) -> dict[str, Any] | None:
        """The next complete frame, or None if more bytes are needed."""
        self._raise_if_failed()
        if self._ready:
            return self._ready.popleft()
        buffer = self._buffer
        if len(buffer) < HEADER_SIZE:
            return None
        length = int.from_bytes(buffer[:HEADER_SIZE], "big")
        mac, inflater = self._mac, self._inflater
        tag = _TAG_SIZE if mac is not None else 0
        slack = wire_slack(self.max_size) if inflater is not None else 0
        try:
            if length > self.max_size + slack + tag:
                raise FrameError(f"frame declares {length - tag} bytes, over the {self.max_size}-byte limit")
            if length <= tag:
                raise FrameError("zero-length frame")
            if len(buffer) < HEADER_SIZE + length:
                return None
            end = HEADER_SIZE + length - tag
            body = bytes(buffer[HEADER_SIZE:end])
            if mac is not None and not mac.check(body, buffer[end : HEADER_SIZE + length]):
                raise FrameError("frame failed its link authentication: altered, injected or lost in transit")
            del buffer[: HEADER_SIZE + length]
            if inflater is None:
                return decode_frame_body(body)
            try:
                bodies = inflater.unpack(body)
            except DeflateError as exc:
                raise FrameError(str(exc)) from None
            if len(bodies) > MAX_RUN_FRAMES:
                raise FrameError(f"a run of {len(bodies)} frames (a writer sends {MAX_RUN_FRAMES} at most)")
            budget = MAX_VALUES  # for the whole run: one compressed run is read in one go
            for inner in bodies:
                try:
                    frame, values = decode_counted(inner, budget)
                except TooManyValues:
                    raise FrameError(f"a run of frames holding more than {MAX_VALUES} values") from None
                budget -= values
                self._ready.append(frame)
            return self._ready.popleft()
        except FrameError as exc:
            self._ready.clear()
            self._error = exc
            buffer.clear()
            raise

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Buffer ``data`` and return every frame it completes, in order.

        On a FrameError the frames before the bad one in ``data`` are lost with
        the exception; loop on :meth:`next_frame` to keep them.
        """
        self.receive_data(data)
        frames = []
        while (frame := self.next_frame()) is not None:
            frames.append(frame)
        return frames

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise FrameError(f"decoder is unusable after an earlier error: {self._error}")
