"""A fault-injecting TCP proxy for p2php links, and a table that runs with one between every pair of seats.

In p2php the higher seat of a pair dials the lower one (protocol.md §3.2) and redials it after a drop
(§3.5).  :class:`FaultProxy` listens on 127.0.0.1, and for every connection a dialer makes it opens one to
the real listener of the lower seat and forwards both ways, injecting what a :class:`LinkPlan` says:

* ``reset``: both sockets closed abruptly (``SO_LINGER`` 0, so each end gets an RST);
* ``skewed_reset``: the dialing side's socket is reset first and the accepting side's only ``duration``
  seconds later, so one end sees the reset long before the other (its redial meets a seat that still
  believes the old link is up);
* ``blackhole``: nothing is forwarded either way for ``duration`` seconds, sockets kept open (a partition
  that heals before TCP gives up: nothing is lost, everything is late);
* ``stall_up`` / ``stall_down``: the proxy stops reading from the dialer (up) or from the accepting side
  (down) for ``duration`` seconds;
* shaping per direction (:class:`Shaping`): latency with jitter (order kept), pieces of at most ``chunk``
  bytes (1 = one byte per send) with a gap between them, and a byte rate (a slow link).

A fault fires at a time (seconds after the connection's handshake went through, i.e. after two frames each
way) or when a frame of a given message kind is about to cross (``on_kind="audit"``: a reset while that
message is in flight — the frame that triggered it is not delivered).  The proxy parses the length prefix
of the frames it carries only to see their kinds; it forwards the bytes as they came.

Everything is bounded: a proxy injects at most ``max_faults`` faults and none after ``horizon`` seconds;
every sleep is finite; connections end when either end closes; :func:`run_faulted_table` bounds the whole
run with ``trio.fail_after``.  Only 127.0.0.1 is ever listened on or dialed.

The decisions are sans-IO (:class:`FrameSplitter`, :class:`Shaper`, :class:`FaultClock`,
:func:`random_plan`) and testable on plain bytes and times; :class:`FaultProxy` is the trio edge.
"""

from __future__ import annotations

import contextlib
import math
import random
import socket
import struct
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack
import trio

from p2php.net.deflate import FEATURE as DEFLATE
from p2php.net.deflate import DeflateError, Inflater
from p2php.net.framing import MAX_FRAME
from p2php.net.linkauth import TAG_SIZE
from p2php.session.messages import KINDS

LOOPBACK = "127.0.0.1"
_READ_SIZE = 65536
_MAX_FRAME = 4 * 1024 * 1024 + 4
_HANDSHAKE_FRAMES = 4  # hello, challenge, proof, verdict: each way (protocol v2)

FAULT_KINDS = ("reset", "skewed_reset", "blackhole", "stall_up", "stall_down")
SPOIL_KINDS = ("corrupt", "tamper")
"""Faults that change a frame in flight (with ``on_kind``): a flipped bit, or an on-path attacker's edit of the
message inside (re-encoded, the original tag kept).  Not drawn by random plans (the soak's seeds stay as
measured); the receiver must close the link and name nobody (protocol.md §3.2, link keys)."""


# ---------------------------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Shaping:
    """How one direction of a link carries bytes (all zero: as fast as loopback)."""

    latency: float = 0.0
    """Seconds added to every chunk's delivery; order is kept, throughput is not reduced."""
    jitter: float = 0.0
    """Up to this many extra seconds per chunk (seeded; never reorders)."""
    chunk: int = 0
    """Deliver in pieces of at most this many bytes (1: one byte per send); 0: as received."""
    chunk_gap: float = 0.0
    """Pause between two pieces of the same chunk."""
    chunk_head: int = 0
    """Split only the first this many bytes of each frame (length prefix and msgpack headers), send the
    rest in one piece; 0: split all of it.  One byte per send costs a scheduling round of the trio loop the
    peers share, so whole 7 kB UNO frames byte by byte can outlast the silence timeout under load."""
    rate: float = 0.0
    """Bytes per second (a slow link); 0: unlimited."""
    until: float = math.inf
    """Seconds after the proxy started from which this direction is no longer shaped."""


@dataclass(frozen=True)
class Fault:
    """One injected fault on one connection."""

    kind: str
    at: float = 0.0
    """Seconds after the connection's handshake went through (ignored when ``on_kind`` is set)."""
    duration: float = 0.0
    """Blackhole or stall length; for ``skewed_reset``, the delay before the accepting side is reset."""
    on_kind: str | None = None
    """Fire instead when a frame of this kind is about to cross (``"audit"``, ``"action"``, ``"relay"`` …)."""
    direction: str = "any"
    """With ``on_kind``: ``"up"`` (dialer → accepting side), ``"down"`` or ``"any"``."""
    nth: int = 1
    """With ``on_kind``: fire at the nth such frame on this connection."""

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS + SPOIL_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r} (kinds: {', '.join(FAULT_KINDS + SPOIL_KINDS)})")
        if self.kind in SPOIL_KINDS and self.on_kind is None:
            raise ValueError(f"a {self.kind} fault needs on_kind: it changes one frame")
        if self.direction not in ("up", "down", "any"):
            raise ValueError(f"direction must be up, down or any, not {self.direction!r}")
        if not (0 <= self.at < math.inf and 0 <= self.duration < math.inf):
            raise ValueError("fault times must be finite and non-negative")


@dataclass(frozen=True)
class ConnPlan:
    """What happens to one connection through a proxy."""

    faults: tuple[Fault, ...] = ()
    up: Shaping = Shaping()
    down: Shaping = Shaping()


@dataclass(frozen=True)
class LinkPlan:
    """What happens to the successive connections of one link: ``connections[k]`` for the k-th (from 0),
    ``then`` for every later one."""

    connections: tuple[ConnPlan, ...] = ()
    then: ConnPlan = ConnPlan()
    max_faults: int = 8
    """Faults this link injects at most, over all its connections."""
    horizon: float = 60.0
    """No fault fires later than this many seconds after the proxy started."""
    seed: int = 0
    """Seeds the jitter."""

    def for_connection(self, k: int) -> ConnPlan:
        return self.connections[k] if k < len(self.connections) else self.then

    @staticmethod
    def clean(up: Shaping = Shaping(), down: Shaping | None = None) -> LinkPlan:
        """No faults, the same shaping on every connection."""
        conn = ConnPlan((), up, up if down is None else down)
        return LinkPlan((), conn)

    @staticmethod
    def first(*faults: Fault, up: Shaping = Shaping(), down: Shaping | None = None,
              horizon: float = 60.0) -> LinkPlan:
        """These faults on the first connection only; later connections shaped alike but left alone."""
        down = up if down is None else down
        return LinkPlan((ConnPlan(tuple(faults), up, down),), ConnPlan((), up, down), horizon=horizon)

    @staticmethod
    def every(*faults: Fault, up: Shaping = Shaping(), down: Shaping | None = None, max_faults: int = 8,
              horizon: float = 60.0) -> LinkPlan:
        """These faults on every connection, until ``max_faults`` or ``horizon``."""
        down = up if down is None else down
        return LinkPlan((), ConnPlan(tuple(faults), up, down), max_faults=max_faults, horizon=horizon)


TRIGGER_KINDS = ("shuffle", "lock", "keys", "action", "show", "beacon", "commit", "audit", "sync", "relay")
"""Frame kinds a random fault may wait for (``audit``: a reset while the audit is in flight)."""


CHUNK_HEAD = 512
"""Random plans split only the first 512 bytes of each frame (see :attr:`Shaping.chunk_head`)."""

_WEIGHTS = {"reset": 4, "skewed_reset": 2, "blackhole": 2, "stall_up": 1, "stall_down": 1, "corrupt": 1, "tamper": 1}


def random_plan(rng: random.Random, *, span: float, timeout: float, max_faults: int = 3,
                kinds: Sequence[str] = FAULT_KINDS) -> LinkPlan:
    """A seeded random plan for one link: some shaping (chunking only for the first :data:`CHUNK_HEAD`
    bytes of each frame), and up to ``max_faults`` faults (of ``kinds``) on
    its first connections, each at a random time within ``span`` seconds of the handshake or at the nth
    frame of a random kind.  Blackholes and stalls stay shorter than 0.4 × ``timeout``: a partition longer
    than the silence timeout is, by design, a silent peer."""

    def shaping() -> Shaping:
        roll = rng.random()
        if roll < 0.45:
            return Shaping()
        if roll < 0.7:
            return Shaping(latency=rng.uniform(0.0, 0.3), jitter=rng.uniform(0.0, 0.05), until=span * 2)
        if roll < 0.85:
            return Shaping(chunk=1 if rng.random() < 0.5 else rng.randint(2, 64), chunk_head=CHUNK_HEAD,
                           until=span * 2)
        return Shaping(rate=rng.uniform(50_000, 400_000), latency=rng.uniform(0.0, 0.05), until=span * 2)

    def fault() -> Fault:
        kind = rng.choices(list(kinds), weights=[_WEIGHTS[k] for k in kinds])[0]
        duration = 0.0
        if kind == "skewed_reset":
            duration = rng.uniform(0.05, 1.5)
        elif kind != "reset":
            duration = rng.uniform(0.05, timeout * 0.4)
        if kind not in SPOIL_KINDS and rng.random() < 0.5:  # (a spoil fault changes a frame: on_kind only)
            return Fault(kind, rng.uniform(0.0, span), duration)
        return Fault(kind, duration=duration, on_kind=rng.choice(TRIGGER_KINDS),
                     direction=rng.choice(("up", "down", "any")), nth=rng.randint(1, 3))

    up, down = shaping(), shaping()
    # Faults that keep the connection go on the same one as the next; a reset moves on to the next one.
    conns: list[ConnPlan] = []
    pending: list[Fault] = []
    for _ in range(rng.randint(0, max_faults)):
        pending.append(fault())
        if pending[-1].kind in ("reset", "skewed_reset"):
            conns.append(ConnPlan(tuple(pending), up, down))
            pending = []
    if pending:
        conns.append(ConnPlan(tuple(pending), up, down))
    return LinkPlan(tuple(conns), ConnPlan((), up, down), max_faults=max_faults, horizon=span * 3,
                    seed=rng.randrange(2**32))


def random_links(seed: int, players: int, *, span: float, timeout: float, max_faults: int = 3,
                 kinds: Sequence[str] = FAULT_KINDS) -> dict[tuple[int, int], LinkPlan]:
    """A :func:`random_plan` for every link of a table, all from one seed."""
    rng = random.Random(f"p2php-faults:{seed}")
    return {(hi, lo): random_plan(rng, span=span, timeout=timeout, max_faults=max_faults, kinds=kinds)
            for hi in range(players) for lo in range(hi)}


NO_RESETS = ("blackhole", "stall_up", "stall_down")
"""Faults that never break a connection: everything arrives, late."""


# ---------------------------------------------------------------------------------------------- sans-IO


@dataclass(frozen=True)
class RawFrame:
    data: bytes
    """The frame exactly as it came (length prefix included)."""
    kinds: tuple[str, ...]
    """What the frame holds: ``hello``, ``mesh``, ``sync``, a message kind, ``relay:<kind>``, or ``?``; on a
    ``deflate`` link (protocol.md §3.2) a frame is a compressed run of frames, one kind each."""

    @property
    def kind(self) -> str:
        """The kind of the (first) frame inside."""
        return self.kinds[0]


def frame_kind(body: bytes) -> str:
    """What a frame body is, for triggers and statistics (never raises).

    After the handshake a body ends in its 16-byte link tag (protocol.md §3.2): the proxy
    can read frames, but it cannot change one without the receiver noticing.
    """
    obj: Any = None
    for end in (len(body), len(body) - 16):
        try:
            obj = msgpack.unpackb(body[:end], raw=False, strict_map_key=False)
            break
        except Exception:
            continue
    if not isinstance(obj, dict):
        return "?"
    if "relay" in obj:
        inner = obj["relay"]
        return f"relay:{inner.get('kind', '?')}" if isinstance(inner, dict) else "relay:?"
    for key in ("sync", "mesh", "watch", "fin"):
        if key in obj:
            return key
    if "kind" in obj and "sig" in obj:
        return str(obj["kind"])
    compact = obj.get("c")  # a message in its compact wire form (protocol.md §5.4): the kind is an index
    if isinstance(compact, list) and len(compact) == 7 and isinstance(compact[4], int) \
            and 0 <= compact[4] < len(KINDS):
        return KINDS[compact[4]]
    if isinstance(obj.get("full"), dict):
        return str(obj["full"].get("kind", "?"))
    if "want" in obj:
        return "want"
    if "seat" in obj:
        return "hello"
    return "?"


def spoil(data: bytes, kind: str) -> bytes:
    """``data`` (one frame, prefix included) as a ``corrupt`` or ``tamper`` fault delivers it."""
    if kind == "corrupt":
        i = max(4, len(data) - 17)  # the last body byte before the tag
        return data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:]
    body, tag = data[4:-16], data[-16:]
    try:
        obj = msgpack.unpackb(body, raw=False, strict_map_key=False)
    except Exception:
        obj = {}
    if not isinstance(obj, dict):
        obj = {}
    if isinstance(obj.get("body"), dict):
        obj["body"] = {**obj["body"], "tampered": True}  # a message: its signature no longer fits
    else:
        obj["tampered"] = True
    new = msgpack.packb(obj, use_bin_type=True) + tag
    return len(new).to_bytes(4, "big") + new


class FrameSplitter:
    """Bytes in, whole frames out (``u32`` length + body), kept byte for byte.  A length above the limit
    switches to passing raw bytes on (kind ``?``): the proxy never judges a frame, the peers do.

    If this direction's challenge frame offers ``deflate``, the frames after the handshake are compressed runs
    (protocol.md §3.2): the splitter inflates a copy of the stream to read their kinds.  It assumes the other
    end offered it too, as every peer of a faulted table does."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._raw = False
        self._seen = 0
        self._inflater: Inflater | None = None  # a copy of the peer's, once its challenge offered deflate

    def feed(self, data: bytes) -> list[RawFrame]:
        if self._raw:
            return [RawFrame(bytes(data), ("?",))] if data else []
        self._buf += data
        out: list[RawFrame] = []
        while len(self._buf) >= 4:
            (length,) = struct.unpack_from(">I", self._buf)
            if length == 0 or length + 4 > _MAX_FRAME:
                self._raw = True
                out.append(RawFrame(bytes(self._buf), ("?",)))
                self._buf.clear()
                break
            if len(self._buf) < 4 + length:
                break
            data = bytes(self._buf[: 4 + length])
            del self._buf[: 4 + length]
            out.append(self._frame(data))
        return out

    def _frame(self, data: bytes) -> RawFrame:
        self._seen += 1
        if self._seen == 2:  # the challenge frame: which link features this end offers
            try:
                offer = msgpack.unpackb(data[4:], raw=False).get("wire")
            except Exception:
                offer = None
            if isinstance(offer, list) and DEFLATE in offer:
                self._inflater = Inflater(MAX_FRAME)
        if self._seen <= _HANDSHAKE_FRAMES or self._inflater is None:
            return RawFrame(data, (frame_kind(data[4:]),))
        try:
            bodies = self._inflater.unpack(data[4:-TAG_SIZE])
        except DeflateError:
            self._inflater = None  # a spoiled run: the link is about to close; stop reading kinds
            return RawFrame(data, ("?",))
        return RawFrame(data, tuple(frame_kind(body) for body in bodies))

    @property
    def pending(self) -> int:
        return len(self._buf)


class Shaper:
    """When each piece of a chunk is delivered, by a :class:`Shaping`: ``schedule(now, data)`` returns
    ``[(deliver_at, piece), …]`` with non-decreasing times (order is never changed)."""

    def __init__(self, shaping: Shaping, rng: random.Random) -> None:
        self.shaping = shaping
        self.rng = rng
        self._last = 0.0  # delivery time of the previous piece (keeps the order)
        self._free = 0.0  # when the slow link is free again

    def schedule(self, now: float, data: bytes, elapsed: float = 0.0) -> list[tuple[float, bytes]]:
        """``elapsed``: seconds since the proxy started (shaping ends at ``Shaping.until``)."""
        s = self.shaping if elapsed < self.shaping.until else Shaping()
        size = s.chunk if s.chunk > 0 else max(1, len(data))
        head = len(data) if s.chunk_head <= 0 else min(s.chunk_head, len(data))
        pieces = [data[i : min(i + size, head)] for i in range(0, head, size)]
        pieces += [data[head:]] if head < len(data) else []
        pieces = pieces or [b""]
        out: list[tuple[float, bytes]] = []
        due = now + s.latency + (self.rng.uniform(0.0, s.jitter) if s.jitter > 0 else 0.0)
        for n, piece in enumerate(pieces):
            if n:
                due += s.chunk_gap
            if s.rate > 0:
                start = max(due, self._free)
                self._free = start + len(piece) / s.rate
                due = self._free
            due = max(due, self._last)
            self._last = due
            out.append((due, piece))
        return out


class FaultClock:
    """Which faults of one connection are due: by time (after the handshake) or by a frame's kind."""

    def __init__(self, faults: Iterable[Fault]) -> None:
        self.timed = sorted((f for f in faults if f.on_kind is None), key=lambda f: f.at)
        self.watch = [f for f in faults if f.on_kind is not None]
        self.seen: dict[tuple[str, str], int] = {}

    def next_time(self) -> float | None:
        return self.timed[0].at if self.timed else None

    def pop_due(self, elapsed: float) -> list[Fault]:
        due = [f for f in self.timed if f.at <= elapsed]
        self.timed = [f for f in self.timed if f.at > elapsed]
        return due

    def on_frame(self, direction: str, kind: str) -> Fault | None:
        """The fault that this frame triggers (at most one; it is then used up)."""
        base = kind.removeprefix("relay:") if kind.startswith("relay:") else kind
        for f in self.watch:
            if f.on_kind in (kind, base) and f.direction in (direction, "any"):
                key = (f.on_kind, f.direction)
                self.seen[key] = self.seen.get(key, 0) + 1
                if self.seen[key] >= f.nth:
                    self.watch.remove(f)
                    return f
        return None


@dataclass
class ProxyEvent:
    t: float
    connection: int
    what: str


@dataclass
class ProxyStats:
    connections: int = 0
    refused: int = 0
    """Connections whose target could not be reached (the listener was gone)."""
    faults: dict[str, int] = field(default_factory=dict)
    frames: dict[str, int] = field(default_factory=dict)
    bytes_up: int = 0
    bytes_down: int = 0
    events: list[ProxyEvent] = field(default_factory=list)

    @property
    def resets(self) -> int:
        return self.faults.get("reset", 0) + self.faults.get("skewed_reset", 0)

    @property
    def injected(self) -> int:
        return sum(self.faults.values())


# ---------------------------------------------------------------------------------------------- trio edge


def _reset(stream: trio.SocketStream) -> None:
    """Make the next close send an RST instead of a FIN."""
    with contextlib.suppress(OSError):
        stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


class _Gate:
    """Open or shut (a stall or a blackhole shuts it for a while)."""

    def __init__(self) -> None:
        self.until = 0.0

    def shut_for(self, seconds: float) -> None:
        self.until = max(self.until, trio.current_time() + seconds)

    async def wait_open(self) -> None:
        while (left := self.until - trio.current_time()) > 0:
            await trio.sleep(left)


class _Connection:
    def __init__(self, proxy: FaultProxy, number: int, client: trio.SocketStream, server: trio.SocketStream,
                 plan: ConnPlan) -> None:
        self.proxy = proxy
        self.number = number
        self.client = client  # the dialing side
        self.server = server  # the accepting side (the real listener)
        self.plan = plan
        self.clock = FaultClock(plan.faults)
        self.frames = {"up": 0, "down": 0}
        self.established = trio.Event()
        self.gates = {"up": _Gate(), "down": _Gate()}  # reading from the source of each direction
        self.hole = _Gate()  # both directions, reading and writing
        self.scope = trio.CancelScope()
        self.skew: float | None = None  # set by a skewed reset: reset the server side after this delay
        self.half_closed = 0

    async def run(self) -> None:
        with self.scope:
            async with trio.open_nursery() as nursery:
                for direction, src, dst, shaping in (("up", self.client, self.server, self.plan.up),
                                                     ("down", self.server, self.client, self.plan.down)):
                    send, receive = trio.open_memory_channel(math.inf)
                    rng = random.Random(f"{self.proxy.plan.seed}:{self.number}:{direction}")  # jitter draws
                    nursery.start_soon(self._read, direction, src, send, Shaper(shaping, rng))
                    nursery.start_soon(self._write, direction, dst, receive)
                nursery.start_soon(self._timed_faults)
        # Here the connection is over: both ends closed, one reset, or a fault ended it.
        try:
            if self.skew is not None:
                _reset(self.client)
                await trio.aclose_forcefully(self.client)
                self.proxy._note(self.number, f"dialing side reset; accepting side in {self.skew:.2f}s")
                await trio.sleep(self.skew)
                _reset(self.server)
                self.proxy._note(self.number, "accepting side reset")
        finally:
            await trio.aclose_forcefully(self.client)
            await trio.aclose_forcefully(self.server)

    async def _read(self, direction: str, src: trio.SocketStream,
                    out: trio.MemorySendChannel[tuple[float, bytes]], shaper: Shaper) -> None:
        splitter = FrameSplitter()
        async with out:
            while True:
                await self.gates[direction].wait_open()
                await self.hole.wait_open()
                try:
                    data = await src.receive_some(_READ_SIZE)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    self._abort()  # reset from this side: the other side gets a reset too
                    return
                if not data:
                    # EOF from this side: passed on (as a half-close) once the queue is delivered.
                    await out.send((-1.0, b""))
                    return
                if direction == "up":
                    self.proxy.stats.bytes_up += len(data)
                else:
                    self.proxy.stats.bytes_down += len(data)
                for frame in splitter.feed(data):
                    for kind in frame.kinds:
                        self.proxy.stats.frames[kind] = self.proxy.stats.frames.get(kind, 0) + 1
                    self.frames[direction] += 1
                    if min(self.frames.values()) >= _HANDSHAKE_FRAMES:
                        self.established.set()
                    fault = None
                    for kind in frame.kinds:  # a run of several frames: any of them may trigger the fault
                        fault = self.clock.on_frame(direction, kind)
                        if fault is not None:
                            break
                    if fault is not None and self.proxy._allow(fault):
                        self.proxy._note(self.number, f"{fault.kind} on a {kind} frame going {direction}")
                        self._inject(fault)
                        if fault.kind in ("reset", "skewed_reset"):
                            return  # the triggering frame is lost in flight
                        if fault.kind in SPOIL_KINDS:
                            frame = RawFrame(spoil(frame.data, fault.kind), frame.kinds)
                    now = trio.current_time()
                    for item in shaper.schedule(now, frame.data, now - self.proxy._start):
                        await out.send(item)

    async def _write(self, direction: str, dst: trio.SocketStream,
                     queue: trio.MemoryReceiveChannel[tuple[float, bytes]]) -> None:
        async with queue:
            async for due, data in queue:
                if due < 0:
                    break
                if (left := due - trio.current_time()) > 0:
                    await trio.sleep(left)
                await self.hole.wait_open()
                try:
                    await dst.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    self._abort()
                    return
        try:
            await dst.send_eof()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            self._abort()
            return
        self.half_closed += 1
        if self.half_closed == 2:  # both ends said goodbye: the connection is over
            self.scope.cancel()

    def _abort(self) -> None:
        _reset(self.client)
        _reset(self.server)
        self.scope.cancel()

    async def _timed_faults(self) -> None:
        await self.established.wait()
        start = trio.current_time()
        while (at := self.clock.next_time()) is not None:
            await trio.sleep(max(0.0, start + at - trio.current_time()))
            for fault in self.clock.pop_due(trio.current_time() - start):
                if self.proxy._allow(fault):
                    self.proxy._note(self.number, f"{fault.kind} at {fault.at:.2f}s")
                    self._inject(fault)

    def _inject(self, fault: Fault) -> None:
        stats = self.proxy.stats
        stats.faults[fault.kind] = stats.faults.get(fault.kind, 0) + 1
        if fault.kind == "reset":
            self._abort()
        elif fault.kind == "skewed_reset":
            self.skew = fault.duration
            self.scope.cancel()
        elif fault.kind == "blackhole":
            self.hole.shut_for(fault.duration)
        elif fault.kind == "stall_up":
            self.gates["up"].shut_for(fault.duration)
        elif fault.kind == "stall_down":
            self.gates["down"].shut_for(fault.duration)


class FaultProxy:
    """Forwards every connection made to :attr:`address` to ``target`` (both on 127.0.0.1), by ``plan``.

    Run it with ``await nursery.start(proxy.run)``; cancel the nursery to stop it (connections in progress
    are closed).  :attr:`stats` counts connections, injected faults, frames by kind and bytes.
    """

    def __init__(self, target: tuple[str, int], plan: LinkPlan | None = None, name: str = "", *,
                 lifetime: float = 600.0, max_connections: int = 1000) -> None:
        if target[0] != LOOPBACK:
            raise ValueError(f"the fault proxy only talks to {LOOPBACK}, not {target[0]}")
        self.target = target
        self.plan = plan or LinkPlan.clean()
        self.name = name
        self.lifetime = lifetime
        """The proxy closes everything after this many seconds, even if nobody stops it."""
        self.max_connections = max_connections
        """Connections beyond this many are reset at once (a dialer looping forever ends up here)."""
        self.stats = ProxyStats()
        self.address: tuple[str, int] = (LOOPBACK, 0)
        self._start = 0.0
        self._count = 0
        self._listener: trio.SocketListener | None = None

    def _allow(self, fault: Fault) -> bool:
        return (self.stats.injected < self.plan.max_faults
                and trio.current_time() - self._start <= self.plan.horizon)

    def _note(self, number: int, what: str) -> None:
        self.stats.events.append(ProxyEvent(round(trio.current_time() - self._start, 3), number, what))

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host=LOOPBACK)
        for extra in listeners[1:]:
            await extra.aclose()
        self._listener = listeners[0]
        self.address = (LOOPBACK, self._listener.socket.getsockname()[1])
        self._start = trio.current_time()
        with trio.move_on_after(self.lifetime):
            async with self._listener, trio.open_nursery() as nursery:
                task_status.started(self.address)
                while True:
                    client = await self._listener.accept()
                    nursery.start_soon(self._serve, client)

    async def _serve(self, client: trio.SocketStream) -> None:
        number = self._count
        self._count += 1
        self.stats.connections += 1
        if number >= self.max_connections:
            self.stats.refused += 1
            _reset(client)
            await trio.aclose_forcefully(client)
            return
        try:
            with trio.fail_after(5):
                server = await trio.open_tcp_stream(*self.target)
        except (OSError, trio.TooSlowError):
            self.stats.refused += 1
            _reset(client)  # the dialer sees what it would see from a dead host: a reset
            await trio.aclose_forcefully(client)
            return
        for stream in (client, server):
            stream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, True)
        await _Connection(self, number, client, server, self.plan.for_connection(number)).run()


# ---------------------------------------------------------------------------------------------- a whole table


Links = Mapping[tuple[int, int], LinkPlan] | Callable[[int, int], LinkPlan]
"""Plans by link ``(dialer, accepter)`` with dialer > accepter; missing links get a clean proxy."""


@dataclass
class SeatOutcome:
    seat: int
    result: Any | None  # PeerResult
    error: str | None
    ended: float = 0.0  # seconds from the table's start to this seat's run_peer ending

    @property
    def verdict(self) -> Any | None:
        return None if self.result is None else self.result.lockstep.verdict


@dataclass
class TableRun:
    """Every seat's outcome and every proxy's statistics, with the checks of issue 8."""

    game: str
    players: int
    seconds: float
    seats: list[SeatOutcome]
    proxies: dict[tuple[int, int], FaultProxy]

    @property
    def results(self) -> list[Any | None]:
        return [s.result for s in self.seats]

    @property
    def verdicts(self) -> list[Any | None]:
        return [s.verdict for s in self.seats]

    @property
    def resets(self) -> int:
        return sum(p.stats.resets for p in self.proxies.values())

    @property
    def injected(self) -> int:
        return sum(p.stats.injected for p in self.proxies.values())

    def all_finished(self) -> bool:
        return all(s.error is None and s.verdict is not None for s in self.seats)

    def all_clean(self) -> bool:
        verdicts = self.verdicts
        return (all(v is not None and v.clean for v in verdicts)
                and len({v.state_hash for v in verdicts if v is not None}) == 1)

    def named(self) -> dict[int, tuple[int, str]]:
        """Seats whose verdict names somebody: seat -> (culprit, reason).  After a network fault this must
        stay empty (every seat here is honest)."""
        return {s.seat: (s.verdict.culprit, s.verdict.reason) for s in self.seats
                if s.verdict is not None and s.verdict.culprit is not None}

    def outcome(self) -> str:
        """``clean``, ``unattributed``, ``named`` (a false blame) or ``unfinished``."""
        if not self.all_finished():
            return "unfinished"
        if self.named():
            return "named"
        if self.all_clean():
            return "clean"
        return "unattributed"

    def describe(self) -> str:
        lines = [f"{self.game}, {self.players} seats, {self.seconds:.1f}s, outcome {self.outcome()}"]
        for s in self.seats:
            v = s.verdict
            text = s.error if v is None else ("clean" if v.clean else
                                             f"culprit={v.culprit} code={getattr(v, 'code', None)} {v.reason}")
            lines.append(f"  seat {s.seat}: {text}")
        for (hi, lo), p in sorted(self.proxies.items()):
            st = p.stats
            lines.append(f"  link {hi}->{lo}: {st.connections} connections, faults {st.faults}, refused "
                         f"{st.refused}; " + "; ".join(f"{e.t}s #{e.connection} {e.what}" for e in st.events[:12]))
        return "\n".join(lines)

    def check(self) -> None:
        """Issue 8's invariant: every seat finishes; all clean with one state hash, or nobody named."""
        assert self.all_finished(), self.describe()
        assert self.all_clean() or not self.named(), self.describe()


async def run_faulted_table(
    game: str,
    players: int,
    deciders: Sequence[Any],
    options: Mapping[str, Any] | None = None,
    *,
    links: Links | None = None,
    seed: int = 0,
    timeout: float = 5.0,
    resume_timeout: float = 10.0,
    connect_timeout: float = 10.0,
    deadline: float = 120.0,
    linger: float = 10.0,
) -> TableRun:
    """Run ``players`` peers in this process over loopback, a :class:`FaultProxy` between every pair.

    Seat ``i`` dials each lower seat ``j`` at proxy ``(i, j)``, which forwards to ``j``'s real listener, so
    redials go through the same proxy.  Every seat is a plain ``run_peer`` with seeded secrets.  The whole
    run is bounded by ``deadline`` seconds: a seat still running then is reported with an error, as is a
    seat whose ``run_peer`` raised.
    """
    from p2php.net.mesh import listen, listener_port
    from p2php.session.memory import seeded_secrets
    from p2php.session.runner import PeerConfig, run_peer

    def plan_for(hi: int, lo: int) -> LinkPlan:
        if links is None:
            return LinkPlan.clean()
        if callable(links):
            return links(hi, lo)
        return links.get((hi, lo), LinkPlan.clean())

    started = time.perf_counter()
    listeners = [await listen(LOOPBACK, 0) for _ in range(players)]
    real = {s: (LOOPBACK, listener_port(listeners[s])) for s in range(players)}
    proxies = {(hi, lo): FaultProxy(real[lo], plan_for(hi, lo), name=f"{hi}->{lo}")
               for hi in range(players) for lo in range(hi)}
    seats = [SeatOutcome(s, None, "did not finish") for s in range(players)]

    async def one(seat: int) -> None:
        cfg = PeerConfig(game=game, options=dict(options or {}), players=players, seat=seat, name=f"bot{seat}",
                         timeout=timeout, resume_timeout=resume_timeout, connect_timeout=connect_timeout,
                         secrets=seeded_secrets(seed, seat), linger=linger)
        addresses = {s: proxies[(seat, s)].address if s < seat else real[s] for s in range(players)}
        try:
            seats[seat].result = await run_peer(cfg, addresses, listeners[seat], deciders[seat])
            seats[seat].error = None
        except Exception as exc:  # a seat that crashes is reported, the others go on
            seats[seat].error = f"{type(exc).__name__}: {exc}"
        finally:
            seats[seat].ended = time.perf_counter() - started
            await listeners[seat].aclose()

    try:
        with trio.move_on_after(deadline):
            async with trio.open_nursery() as outer:
                for proxy in proxies.values():
                    await outer.start(proxy.run)
                async with trio.open_nursery() as peers:
                    for seat in range(players):
                        peers.start_soon(one, seat)
                outer.cancel_scope.cancel()  # every seat is done: stop the proxies
    finally:
        for listener in listeners:
            await listener.aclose()
    for s in seats:
        if s.error == "did not finish":
            s.error = f"did not finish within {deadline}s"
    return TableRun(game, players, time.perf_counter() - started, seats, proxies)


def game_deciders(name: str, players: int, seed: int, kind: str = "heuristic") -> list[Any]:
    """Seeded bots of the registered game ``name``, one per seat."""
    from p2php.engine.registry import get_game
    from p2php.session.runner import bot_decider

    game = get_game(name)
    return [bot_decider(game.make_bot(kind, f"{seed}:{s}")) for s in range(players)]


def uno_deciders(players: int, seed: int, kind: str = "heuristic") -> list[Any]:
    """Seeded UNO bots, one per seat."""
    return game_deciders("uno", players, seed, kind)


def toy_deciders(players: int, seed: int) -> list[Any]:
    """Seeded random bots for the test game ``toy`` (tests/toygame.py must be imported)."""
    from p2php.bots import RandomBot
    from p2php.session.runner import bot_decider

    return [bot_decider(RandomBot(f"{seed}:{s}")) for s in range(players)]
