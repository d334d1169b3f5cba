# mypy: disable-error-code="import-untyped"
"""A full mesh of TCP connections between seated peers (the I/O edge, on trio).

There is no server: every pair of seats shares one connection.  To get exactly
one per pair without negotiation, seat ``i`` dials every lower seat and accepts
every higher one.  A dialer retries until the deadline because the seat it dials
may not be listening yet.

Handshake, identical on both ends of every connection (each step sends one
frame and reads the other's, so both ends learn the verdict and neither keeps a
half-open peer; protocol.md §3.2):

1. send our ``hello`` frame, read theirs (it must claim an int ``"seat"``);
2. judge it: the seat must be one we expect on this connection, not our own,
   not already connected, and the caller's ``check_hello`` must accept it;
3. send a fresh challenge and key-exchange value, read theirs;
4. send our proof (a signature over both hellos, challenges and key-exchange
   values), read theirs and check it against their hello's key;
5. send our verdict ``{"mesh": "ok"}`` or ``{"mesh": "reject", "reason": ...}``,
   read theirs; the connection is up only if both said ok.  From then on every
   frame either way carries a tag under the link keys (:mod:`p2php.net.linkauth`),
   so bytes that are not the peer's end the connection instead of being blamed on it.

Once formed, each connection gets a reader task (frames in, as :class:`Frame`
events) and a writer task draining an unbounded per-peer queue, so :meth:`Mesh.send`
never blocks and peers that all broadcast at once cannot deadlock.  Incoming
events go through one bounded channel: a peer that floods us only stalls its own
TCP stream.  Whatever a peer does wrong (bad frame, reset, EOF) ends that one
connection and becomes a :class:`PeerError` event; the mesh and the other peers
carry on.
"""

from __future__ import annotations

import errno
import logging
import math
import os
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from types import TracebackType
from typing import Any

import trio
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2php import tags
from p2php.canonical import NotCanonical, digest, encode
from p2php.errors import P2phpError
from p2php.net import deflate
from p2php.net.admission import Admission, Ticket, host_key, host_of
from p2php.net.framing import (
    HANDSHAKE_FRAME,
    MAX_FRAME,
    MAX_VALUES,
    FrameDecoder,
    FrameError,
    encode_frame,
    frame_values,
)
from p2php.net.linkauth import KeyExchange, LinkKeyError, LinkMac, seal_frame
from p2php.net.ratelimit import TokenBucket
from p2php.net.transport import Dial, Listener, Stream, remote_address, tcp_dial
from p2php.text import safe

log = logging.getLogger(__name__)

_READ_SIZE = 65536
_EVENT_BUFFER = 64  # frames waiting for the application before readers stop reading (at most 64 x 4 MiB)
_REASON_LIMIT = 200  # a remote peer's reject reason is shown, but not at any length
MAX_QUEUED_BYTES = 64 * 1024 * 1024
"""Bytes queued for one connection before its peer is dropped as not reading."""
MAX_SPECTATORS = 8
SPECTATOR_JOINS = (8, 2.0)
"""Spectators one host (a :func:`~p2php.net.admission.host_key`) may have join a peer in a burst, and the seconds
after which one more may: each new one is sent the whole record, so an outsider that comes and goes as fast as it
can must not keep a seat's loop busy. Per host: with one bucket for all, an outsider sending a spectator hello every
0.1 s took each join as it came back, and a friend watching from another address was refused for as long as it
tried (red-team rt10-spec)."""
SPECTATOR_JOINS_ALL = (16, 1.0)
"""The same for all hosts together: many hosts' joins still cost the seat only so much (so an outsider with two
addresses or more, or libp2p peer ids, can still keep others waiting)."""
SPECTATOR_JOIN_HOSTS = 256
"""Hosts whose join bucket a peer keeps (one not yet full again); past that, a new host is refused for now."""
SPECTATOR_QUEUE_BYTES = 8 * 1024 * 1024
SPECTATOR_LINGER = 5.0
"""Seconds a closing mesh waits for its spectators to hang up after their last frames went out."""
MAX_GREETING = 32
"""Connections still in their handshake, in all; beyond it a new one takes the place of the oldest of the host
holding the most, or is closed at once (:mod:`p2php.net.admission`)."""
MAX_GREETING_PER_HOST = 8
COMPACT = "compact"
"""The link feature of the compact wire form of messages (protocol.md §5.4)."""
DEFLATE = deflate.FEATURE
"""The link feature of compressed runs of frames (:mod:`p2php.net.deflate`, protocol.md §3.2)."""
WIRE_FEATURES = (COMPACT, DEFLATE)
"""What a mesh offers every new link unless told otherwise (``open_mesh(features=…)``)."""
HEARTBEAT_EVERY = 2.0
"""Seconds between heartbeat frames on an idle-or-not link (they never reach the game)."""
DEAD_AFTER = 12.0
"""A link from which nothing (not even a heartbeat) arrived for this long is dead."""
_ACCEPT_BACKOFF = 0.1
_RESOURCE_ERRNOS = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
Signer = Callable[[bytes], bytes]
"""Signs a link proof with the seat's identity key (see :func:`link_proof_bytes`)."""
# What a failed handshake may raise besides HandshakeError: the peer's fault, or the network's.
_HANDSHAKE_FAILURES = (FrameError, OSError, trio.BrokenResourceError, trio.TooSlowError)


class HandshakeError(P2phpError, ValueError):
    """A peer's hello was refused (by the mesh rules or by ``check_hello``).

    ``check_hello`` raises it with just a message; the mesh fills in ``seat``, the
    seat the hello claimed, so a failure can be reported against that seat.
    """

    def __init__(self, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.seat = seat


class MeshError(P2phpError):
    """The mesh could not be formed; ``missing`` lists the seats not connected."""

    def __init__(self, message: str, missing: list[int]) -> None:
        super().__init__(message)
        self.missing = missing


@dataclass(frozen=True)
class Frame:
    """A frame received from ``seat``."""

    seat: int
    frame: dict[str, Any]


@dataclass(frozen=True)
class PeerError:
    """The connection to ``seat`` is over (bad frame, reset, closed); why, in words."""

    seat: int
    reason: str


@dataclass(frozen=True)
class Rejoined:
    """``seat``'s connection is up again (it reconnected, or we redialled it)."""

    seat: int


@dataclass(frozen=True)
class SpectatorJoined:
    """A spectator connected; send it frames with :meth:`Mesh.send_spectator`."""

    spectator: int
    hello: dict[str, Any]


@dataclass(frozen=True)
class SpectatorLeft:
    """A spectator's link ended (``reason``: ``"spectator left"`` when it hung up); the mesh forgets it.

    ``unsent``: bytes queued for it that never went out (it left before it had everything)."""

    spectator: int
    reason: str
    unsent: int = 0


MeshEvent = Frame | PeerError | Rejoined | SpectatorJoined | SpectatorLeft
"""What a formed mesh reports (distinct from the session's step records, :class:`p2php.session.records.Event`)."""
CheckHello = Callable[[int, dict[str, Any]], None]


def link_proof_bytes(role: bytes, dialer_hello: dict[str, Any], acceptor_hello: dict[str, Any],
                     dialer_challenge: bytes, acceptor_challenge: bytes, dialer_kx: bytes,
                     acceptor_kx: bytes) -> bytes:
    """What each end of a new connection signs to prove it holds its hello's key.

    Both hellos and both fresh challenges are in it, so a copied hello (hellos are
    public: spectators get them all) or a recorded proof is useless on another
    connection; ``role`` (``b"dial"`` / ``b"accept"``) keeps one end's proof from
    being reflected back as the other's; both key-exchange values are in it, so
    nobody in the middle can swap them and hold the link keys (§3.2).
    """
    return digest(tags.LINK, role, encode(dialer_hello), encode(acceptor_hello), dialer_challenge,
                  acceptor_challenge, dialer_kx, acceptor_kx)


@dataclass(frozen=True)
class LinkProof:
    """One connection's handshake values, dialer's first: what each end signs and the link keys' transcript."""

    dialer_hello: dict[str, Any]
    acceptor_hello: dict[str, Any]
    dialer_challenge: bytes
    acceptor_challenge: bytes
    dialer_kx: bytes
    acceptor_kx: bytes
    dialer: bool  # whether *we* dialed

    @staticmethod
    def of(mine: dict[str, Any], theirs: dict[str, Any], my_challenge: bytes, their_challenge: bytes,
           my_kx: bytes, their_kx: bytes, dialer: bool) -> LinkProof:
        if dialer:
            return LinkProof(mine, theirs, my_challenge, their_challenge, my_kx, their_kx, True)
        return LinkProof(theirs, mine, their_challenge, my_challenge, their_kx, my_kx, False)

    def _bytes(self, role: bytes) -> bytes:
        return link_proof_bytes(role, self.dialer_hello, self.acceptor_hello, self.dialer_challenge,
                                self.acceptor_challenge, self.dialer_kx, self.acceptor_kx)

    def ours(self) -> bytes:
        """What we sign."""
        return self._bytes(b"dial" if self.dialer else b"accept")

    def theirs(self) -> bytes:
        """What the other end must have signed."""
        return self._bytes(b"accept" if self.dialer else b"dial")

    def transcript(self) -> bytes:
        """The link keys' transcript (protocol.md §3.2): both hellos, challenges and kx values."""
        return (encode(self.dialer_hello) + encode(self.acceptor_hello) + self.dialer_challenge
                + self.acceptor_challenge + self.dialer_kx + self.acceptor_kx)


class LinkSetup:
    """One end's part of a link's handshake after the hellos, without I/O (both the mesh and a
    spectator drive it): send :meth:`challenge`; given the other end's challenge frame,
    :meth:`proof` computes the link (:class:`LinkProof`), the link keys and our signed proof;
    :meth:`proven` checks the other end's proof.  One class, so the two ends of every link --
    peer or spectator -- cannot drift apart in what they sign and check.
    """

    def __init__(self, hello: dict[str, Any], theirs: dict[str, Any], dialer: bool,
                 sign: Callable[[bytes], bytes] | None, features: tuple[str, ...] = ()) -> None:
        self.hello, self.theirs, self.dialer, self.sign = hello, theirs, dialer, sign
        self.features = features  # link features we offer (``"wire"`` in our challenge frame)
        self.agreed: frozenset[str] = frozenset()  # those the other end offered too
        self.mine = os.urandom(32)
        self.kx = KeyExchange()
        self.link: LinkProof | None = None
        self.macs: tuple[LinkMac, LinkMac] | None = None  # (send, receive) once the challenge was good

    def challenge(self) -> dict[str, Any]:
        frame: dict[str, Any] = {"challenge": self.mine, "kx": self.kx.public}
        if self.features:
            frame["wire"] = list(self.features)
        return frame

    def proof(self, frame: Any) -> dict[str, Any]:
        """Our proof frame, given the other end's challenge frame (an empty proof if it was malformed
        or we hold no key: the exchange stays in step either way)."""
        other = frame.get("challenge") if isinstance(frame, dict) else None
        other_kx = frame.get("kx") if isinstance(frame, dict) else None
        offered = frame.get("wire") if isinstance(frame, dict) else None
        if isinstance(offered, list):
            self.agreed = frozenset(f for f in self.features if f in offered[:16])
        if isinstance(other, bytes) and len(other) == 32 and isinstance(other_kx, bytes):
            link = LinkProof.of(self.hello, self.theirs, self.mine, other, self.kx.public, other_kx, self.dialer)
            try:
                ours = link.ours()
                self.macs = self.kx.link_macs(other_kx, link.transcript(), self.dialer)
                self.link = link
            except (NotCanonical, LinkKeyError):
                self.link = self.macs = None
        if self.link is None or self.sign is None:
            return {"proof": b""}
        return {"proof": self.sign(ours)}

    def proven(self, frame: Any) -> bool:
        """Whether the other end's proof frame proves it holds its hello's signing key."""
        if self.link is None or not isinstance(frame, dict):
            return False
        return check_proof(self.theirs, frame.get("proof"), self.link.theirs())


def check_proof(hello: dict[str, Any], proof: Any, data: bytes) -> bool:
    key = hello.get("sign_key")
    if not isinstance(key, bytes) or len(key) != 32 or not isinstance(proof, bytes) or len(proof) != 64:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(proof, data)
    except (InvalidSignature, ValueError):
        return False
    return True


async def accept_forever(listener: Listener, handle: Callable[[Stream], Any],
                         nursery: trio.Nursery) -> None:
    """Accept connections until cancelled, surviving EMFILE/ENFILE (back off, keep serving).

    A flood of idle connections must never crash a running peer: when the process
    is out of file descriptors we wait a little and try again, as trio's own
    ``serve_listeners`` does.
    """
    while True:
        try:
            stream = await listener.accept()
        except OSError as exc:
            if exc.errno in _RESOURCE_ERRNOS:
                log.warning("accept: %s; backing off", os.strerror(exc.errno or 0))
                await trio.sleep(_ACCEPT_BACKOFF)
                continue
            raise
        nursery.start_soon(handle, stream)


async def listen(host: str = "127.0.0.1", port: int = 0) -> trio.SocketListener:
    """A TCP listener on ``host:port`` (port 0: any free port, see :func:`listener_port`)."""
    listeners = await trio.open_tcp_listeners(port, host=host)
    for extra in listeners[1:]:  # a name resolving to several addresses: keep the first
        await extra.aclose()
    return listeners[0]


def listener_port(listener: Listener) -> int:
    """The port ``listener`` is bound to, to tell the other peers where to dial."""
    port = getattr(listener, "port", None)  # an in-memory listener knows its own
    if isinstance(port, int):
        return port
    assert isinstance(listener, trio.SocketListener)
    bound: int = listener.socket.getsockname()[1]
    return bound


def _frame_label(frame: dict[str, Any]) -> str:
    """What :attr:`Mesh.frame_bytes` counts a frame under: a message's kind, else its first key."""
    kind = frame.get("kind")
    if isinstance(kind, str):
        return kind
    return str(next(iter(frame), "?"))


class _Peer:
    """One connection: its stream, decoder, byte counters and outgoing queue."""

    def __init__(self, stream: Stream, max_frame: int) -> None:
        if isinstance(stream, trio.SocketStream):  # trio enables TCP_NODELAY; say it: small frames need it
            stream.setsockopt(trio.socket.IPPROTO_TCP, trio.socket.TCP_NODELAY, True)
        self.stream = stream
        self.max_frame = max_frame
        self.decoder = FrameDecoder(min(max_frame, HANDSHAKE_FRAME))  # anyone may connect: small until proven
        self.bytes_sent = 0
        self.bytes_received = 0
        self.outbox, self._outbox_out = trio.open_memory_channel(math.inf)
        self.scope = trio.CancelScope()
        self.reason: str | None = None  # set once, when the connection ends
        self.drained = trio.Event()  # set when the writer has stopped
        self.ended = trio.Event()  # set with ``reason``
        self.queued = 0  # bytes in the outbox, not yet written
        self.heard = trio.current_time()  # when anything last arrived
        self.send_mac: LinkMac | None = None  # set after the handshake: every frame we write is tagged
        self.link_macs: tuple[LinkMac, LinkMac] | None = None  # (send, receive), agreed in the handshake
        self.features: frozenset[str] = frozenset()  # link features both ends offered (§3.2)
        self.deflater: deflate.Deflater | None = None  # set after the handshake if both ends offered ``deflate``
        self.hello: dict[str, Any] = {}  # the other end's, once its handshake read it

    def queue(self, data: bytes, limit: int = MAX_QUEUED_BYTES) -> None:
        """Queue ``data`` for the writer; a peer that lets ``limit`` bytes pile up is dropped."""
        if self.reason is not None:
            return
        if self.queued + len(data) > limit:
            self.end(f"not reading: more than {limit} bytes waiting to be sent")
            return
        try:
            self.outbox.send_nowait(data)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return  # the mesh is closing: nothing more goes out
        self.queued += len(data)

    async def write(self, data: bytes) -> None:
        """Write one encoded frame, tagged with the link key once the handshake is over."""
        await self.write_run([data])

    async def write_run(self, frames: list[bytes]) -> None:
        """Write encoded frames in one go: one compressed run on a ``deflate`` link, else one tagged frame each."""
        mac = self.send_mac
        if mac is None:
            data = b"".join(frames)
        elif self.deflater is not None:
            run = self.deflater.pack(frames)
            data = seal_frame(len(run).to_bytes(4, "big") + run, mac)
        else:
            data = b"".join([seal_frame(frame, mac) for frame in frames])
        await self.stream.send_all(data)
        self.bytes_sent += len(data)

    def authenticate(self) -> None:
        """The handshake is over: from now on every frame either way carries its link tag (§3.2)."""
        if self.link_macs is None:
            raise HandshakeError("no link keys were agreed")
        self.send_mac, receive = self.link_macs
        compress = DEFLATE in self.features
        self.deflater = deflate.Deflater() if compress else None
        self.decoder.authenticate(receive, deflate=compress, max_size=self.max_frame)

    def next_run(self, first: bytes) -> tuple[list[bytes], bytes | None]:
        """``first`` and the frames queued behind it that fit into one run with it (its bytes, its frames and its
        values: the receiver's bounds, §3.2), and the one that did not."""
        frames, size, values = [first], len(first), frame_values(first)
        limit = deflate.run_limit(self.decoder.max_size)
        while len(frames) < deflate.MAX_RUN_FRAMES:
            try:
                data = self._outbox_out.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                break
            count = frame_values(data)
            if size + len(data) > limit or values + count > MAX_VALUES:
                return frames, data
            frames.append(data)
            size, values = size + len(data), values + count
        return frames, None

    async def read_frame(self) -> dict[str, Any] | None:
        """The next frame, or None at end of stream."""
        while (frame := self.decoder.next_frame()) is None:
            data = await self.stream.receive_some(_READ_SIZE)
            if not data:
                return None
            self.bytes_received += len(data)
            self.heard = trio.current_time()
            self.decoder.receive_data(data)
        return frame

    def end(self, reason: str) -> None:
        """Stop both tasks of this connection; the first reason given wins."""
        if self.reason is None:
            self.reason = reason
            self.ended.set()
        self.scope.cancel()


class _NoLink(trio.abc.HalfCloseableStream):
    """The connection of a seat that a restored peer's mesh formed without (``open_mesh(partial=True)``): it is
    down from the start, and a new link replaces it as after any drop."""

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        raise trio.BrokenResourceError("no link")

    async def wait_send_all_might_not_block(self) -> None:
        raise trio.BrokenResourceError("no link")

    async def send_eof(self) -> None:
        raise trio.BrokenResourceError("no link")

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        raise trio.BrokenResourceError("no link")

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


class Mesh:
    """The formed mesh: send, broadcast, receive events, close.

    Run it with ``async with mesh: ...`` or ``await nursery.start(mesh.run)``;
    until it runs, frames wait in the sockets and sends wait in the queues.
    """

    def __init__(self, seat: int, peers: dict[int, _Peer], max_frame: int = MAX_FRAME,
                 features: tuple[str, ...] = WIRE_FEATURES) -> None:
        self.seat = seat
        self.max_frame = max_frame
        self.features = features  # what new links (rejoins) offer
        self.compactor: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
        """The compact form of a frame for links that agreed to ``compact`` (None: send it as it is)."""
        self.connect: Dial = tcp_dial  # how redials reach a seat (open_mesh sets the transport's)
        self.seats = sorted(peers)  # the other seats
        self._peers = peers
        self._events_in, self._events = trio.open_memory_channel(_EVENT_BUFFER)
        self._run_scope = trio.CancelScope()
        self._running = False
        self._closed = False
        self._nursery_cm: Any = None
        self._nursery: trio.Nursery | None = None
        self._spectators: dict[int, _Peer] = {}  # those whose link is up (a gone one is forgotten: they come and go)
        self._spectators_joined = 0
        self._spectator_joins: dict[str, TokenBucket] = {}  # by host: a bucket not yet full again
        self._spectator_joins_all: TokenBucket | None = None
        self._spectator_places = Admission(MAX_SPECTATORS, MAX_SPECTATORS)  # a full room makes way for another host
        self._retired: dict[int, tuple[int, int]] = {}  # bytes of connections that were replaced
        self._progress: Any = None  # where our game stands, told in every heartbeat
        self.beats: dict[int, Any] = {}  # where each seat's last heartbeat said its game stands
        self.frame_bytes: dict[str, int] = {}
        """Encoded bytes queued per kind of frame, each copy counted (before deflate and link tags): a message's
        ``kind``, else the frame's first key. Only our own frames are counted, so the labels are few."""

    def hello_of(self, seat: int) -> dict[str, Any]:
        """The hello ``seat``'s proven link presented: the one a table is built from. A hello read on a
        connection that then failed its proof is nobody's (an outsider can send any seat's, or a made-up one)."""
        return self._peer(seat).hello

    def set_progress(self, progress: Any) -> None:
        """What our heartbeats report (the lockstep point we are at): plain data, advisory only."""
        self._progress = progress

    @property
    def bytes_sent(self) -> dict[int, int]:
        """Bytes written to each seat, framing and handshake included."""
        return {s: p.bytes_sent + self._retired.get(s, (0, 0))[0] for s, p in self._peers.items()}

    @property
    def bytes_received(self) -> dict[int, int]:
        """Bytes read from each seat, framing and handshake included."""
        return {s: p.bytes_received + self._retired.get(s, (0, 0))[1] for s, p in self._peers.items()}

    def is_down(self, seat: int) -> bool:
        return self._peer(seat).reason is not None

    def _replace(self, seat: int, peer: _Peer) -> None:
        """A new connection for ``seat`` (after a drop): serve it like the first one."""
        old = self._peers[seat]
        old.end("replaced by a new connection that proved the seat's key")
        sent, received = self._retired.get(seat, (0, 0))
        self._retired[seat] = (sent + old.bytes_sent, received + old.bytes_received)
        self._peers[seat] = peer
        assert self._nursery is not None
        self._nursery.start_soon(self._rejoined, seat, peer)

    async def _rejoined(self, seat: int, peer: _Peer) -> None:
        """Tell the runner, then serve the new link (its frames after the news). The news waits its turn: a runner
        busy with a full channel of events made ``send_nowait`` raise, and an honest peer crash at a rejoin."""
        await self._events_in.send(Rejoined(seat))
        await self._serve(seat, peer)

    def spectator_may_join(self, host: str = "?") -> str | None:
        """Why another spectator from ``host`` (a :func:`~p2php.net.admission.host_key`) may not join now (None: it
        may; it counts as joining).

        With every place taken it may still join when another host holds more places than its own: the oldest
        spectator of the host holding the most then leaves to make room (one outsider cannot hold every place).
        """
        if not self._spectator_places.room_for(host):
            return f"this peer already has {MAX_SPECTATORS} spectators"
        now = trio.current_time()
        capacity, refill = SPECTATOR_JOINS
        for other in [h for h, b in self._spectator_joins.items() if b.full(now)]:
            del self._spectator_joins[other]  # full again: as good as a new one (so the map stays small)
        known = host in self._spectator_joins
        bucket = self._spectator_joins.get(host) or TokenBucket(capacity, refill, now)
        if self._spectator_joins_all is None:
            self._spectator_joins_all = TokenBucket(*SPECTATOR_JOINS_ALL, now)
        # A host's own bucket is asked first and spent last, so a host refused its own joins spends nobody else's.
        if (not bucket.ready(now) or (not known and len(self._spectator_joins) >= SPECTATOR_JOIN_HOSTS)
                or not self._spectator_joins_all.take(now)):
            return "spectators are joining this peer too fast: try again in a few seconds"
        self._spectator_joins[host] = bucket
        bucket.take(now)
        return None

    def spectator_up(self, spectator: int) -> bool:
        """Whether a spectator's link is up (frames queued for it go out)."""
        peer = self._spectators.get(spectator)
        return peer is not None and peer.reason is None

    def _add_spectator(self, peer: _Peer) -> bool:
        """Serve a spectator whose handshake ended (its own hello: spectators greet concurrently); False: no place
        for it after all (close it)."""
        place = self._spectator_places.enter(host_of(peer.stream),
                                             partial(peer.end, "its place went to a spectator from another host"))
        if place is None:  # the room filled while its handshake ran
            return False
        number = self._spectators_joined
        self._spectators_joined += 1
        self._spectators[number] = peer
        assert self._nursery is not None
        self._nursery.start_soon(self._serve_spectator, number, peer, place)
        return True

    async def _serve_spectator(self, number: int, peer: _Peer, place: Ticket) -> None:
        await self._events_in.send(SpectatorJoined(number, peer.hello))  # (awaited: see _rejoined)
        with peer.scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._drain_spectator, peer)
                nursery.start_soon(self._write_loop, peer)
        self._spectator_places.leave(place)
        peer.drained.set()  # (its write loop was cancelled if the spectator left first: nothing more goes out)
        await trio.aclose_forcefully(peer.stream)
        if not self._closed:  # forget it, so spectators that come and go cost nothing once gone
            del self._spectators[number]
            await self._events_in.send(SpectatorLeft(number, peer.reason or "spectator left", peer.queued))

    @staticmethod
    async def _drain_spectator(peer: _Peer) -> None:
        """Spectators only listen: what one sends is read and dropped unparsed (nothing is buffered), EOF ends it."""
        try:
            while data := await peer.stream.receive_some(_READ_SIZE):
                peer.bytes_received += len(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        peer.end("spectator left")

    def send_spectator(self, spectator: int, frame: dict[str, Any] | bytes) -> None:
        """Queue ``frame`` for a spectator (dropped if it left); bytes: a frame :func:`encode_frame` made, so one
        encoding serves every spectator (each new one is sent the whole record)."""
        peer = self._spectators.get(spectator)
        if peer is not None and peer.reason is None and not self._closed:
            data = frame if isinstance(frame, bytes) else encode_frame(frame, self.max_frame)
            peer.queue(data, SPECTATOR_QUEUE_BYTES)  # a slow one is dropped

    async def serve_rejoins(
        self,
        listener: Listener,
        hello: dict[str, Any],
        check_hello: CheckHello,
        *,
        spectators: bool = False,
        handshake_timeout: float = 10.0,
        sign: Signer | None = None,
    ) -> None:
        """Accept, for as long as the mesh runs, a known seat that reconnects (a peer that
        lost its link or restarted) and, if allowed, spectators.

        A seat that is still connected may connect again: once the new connection has
        proven it holds the seat's key, it replaces the old one (which may be dead
        without our knowing yet), so nobody can lock a real peer out.
        """
        rejoin = _Rejoin(self, hello, check_hello, handshake_timeout, spectators, sign)
        async with trio.open_nursery() as nursery:
            await rejoin.accept(listener, nursery)

    async def redial(self, seat: int, address: tuple[str, int], hello: dict[str, Any],
                     check_hello: CheckHello, give_up_after: float, handshake_timeout: float = 10.0,
                     sign: Signer | None = None) -> bool:
        """Dial ``seat`` again after its connection dropped, until it answers or time is up.

        A refusal is retried with backoff too: the other end may not have noticed yet
        that the old link is dead.
        """
        rejoin = _Rejoin(self, hello, check_hello, handshake_timeout, False, sign)
        rejoin.retry_refusals = True
        with trio.move_on_after(give_up_after):
            await rejoin.dial(seat, address)
            return rejoin.fatal is None
        return False

    def connected(self) -> list[int]:
        """Seats whose connection is still up."""
        return [s for s, p in self._peers.items() if p.reason is None]

    def receive(self) -> trio.MemoryReceiveChannel[MeshEvent]:
        """The channel of :class:`Frame` / :class:`PeerError` events; ends at :meth:`aclose`."""
        return self._events

    async def __aiter__(self) -> AsyncIterator[MeshEvent]:
        async for event in self._events:
            yield event

    async def send(self, seat: int, frame: dict[str, Any]) -> None:
        """Queue ``frame`` for ``seat``; dropped silently if that peer is gone.

        Encoding happens here, so a frame the receiver would refuse raises now.
        """
        await self.broadcast(frame, [seat])

    async def broadcast(self, frame: dict[str, Any], seats: list[int] | None = None) -> None:
        """Queue ``frame`` for every other seat (or ``seats``), encoded once per wire form.

        Links that agreed to the ``compact`` feature get :attr:`compactor`'s form of it, if it has one.
        """
        seats = self.seats if seats is None else seats
        compact = [s for s in seats if COMPACT in self._peer(s).features] if self.compactor is not None else []
        short = self.compactor(frame) if compact and self.compactor is not None else None
        if short is None:
            compact = []
        full = [s for s in seats if s not in compact]
        size = 0
        if full:
            data = encode_frame(frame, self.max_frame)
            self._enqueue(full, data)
            size += len(data) * len(full)
        if compact:
            assert short is not None
            data = encode_frame(short, self.max_frame)
            self._enqueue(compact, data)
            size += len(data) * len(compact)
        label = _frame_label(frame)
        self.frame_bytes[label] = self.frame_bytes.get(label, 0) + size
        await trio.lowlevel.checkpoint()

    async def disconnect(self, seat: int, reason: str) -> None:
        """Drop ``seat`` (a cheater, say); a PeerError with ``reason`` follows."""
        self._peer(seat).end(reason)
        await trio.lowlevel.checkpoint()

    def _peer(self, seat: int) -> _Peer:
        try:
            return self._peers[seat]
        except KeyError:
            raise ValueError(f"seat {seat} is not a peer of this mesh (peers: {self.seats})") from None

    def _enqueue(self, seats: list[int], data: bytes) -> None:
        if self._closed:
            raise trio.ClosedResourceError("the mesh is closed")
        for seat in seats:
            self._peer(seat).queue(data)

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Serve every connection until :meth:`aclose` (use with ``nursery.start``)."""
        if self._running or self._closed:
            raise RuntimeError("Mesh.run can only be started once, before aclose")
        self._running = True
        with self._run_scope:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                for seat, peer in self._peers.items():
                    nursery.start_soon(self._serve, seat, peer)
                nursery.start_soon(self._heartbeats)
                task_status.started()
                await trio.sleep_forever()

    async def _heartbeats(self) -> None:
        """Keep every link provably alive, and end one that has gone quiet.

        Liveness is judged by what arrives, not by a refused redial: a link that
        delivered nothing for :data:`DEAD_AFTER` seconds is closed, so the redial
        logic takes over.  Heartbeats never reach the game, so they reset no wait.  They go on busy
        links too: their ``at`` is what keeps a seat that waits for someone else from being named
        silent (§6.9, "behind"), so it must be fresh whatever else the link carries; on a ``deflate``
        link a beat costs about 30 bytes.
        """
        while True:
            await trio.sleep(HEARTBEAT_EVERY)
            self._beat()

    def _beat(self) -> None:
        """One heartbeat to every link (a function of its own, so no connection outlives it in a loop variable while
        the next beat is awaited: a spectator gone since, its queue with it, was kept up to 2 s)."""
        beat = encode_frame({"hb": 1, "at": self._progress}, self.max_frame)
        now = trio.current_time()
        for peer in list(self._peers.values()):
            if peer.reason is not None:
                continue
            if now - peer.heard > DEAD_AFTER:
                peer.end(f"no heartbeat for {DEAD_AFTER:.0f} s")
            else:
                peer.queue(beat)
        for peer in list(self._spectators.values()):  # so a spectator can tell a quiet table from a dead link
            if peer.reason is None:
                peer.queue(beat, SPECTATOR_QUEUE_BYTES)

    async def _serve(self, seat: int, peer: _Peer) -> None:
        with peer.scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._read_loop, seat, peer)
                nursery.start_soon(self._write_loop, peer)
        peer.drained.set()
        await trio.aclose_forcefully(peer.stream)
        log.info("seat %d: connection to seat %d ended: %s", self.seat, seat, peer.reason)
        if not self._closed and self._peers.get(seat) is peer:  # a replaced link ends quietly
            await self._events_in.send(PeerError(seat, peer.reason or "connection ended"))

    async def _read_loop(self, seat: int, peer: _Peer) -> None:
        try:
            while (frame := await peer.read_frame()) is not None:
                if "hb" in frame and frame.keys() <= {"hb", "at"}:
                    self.beats[seat] = frame.get("at")  # a heartbeat: the link is alive (never the game)
                    continue
                await self._events_in.send(Frame(seat, frame))
        except FrameError as exc:
            peer.end(f"framing error: {exc}")
        except (trio.BrokenResourceError, OSError) as exc:
            peer.end(f"connection broken: {exc.__cause__ or exc}")
        except trio.ClosedResourceError:
            peer.end("connection closed locally")
        else:
            peer.end("connection closed by peer")

    async def _write_loop(self, peer: _Peer) -> None:
        """Write what is queued for ``peer``, everything waiting at once (one compressed run on a deflate link)."""
        try:
            carried: bytes | None = None
            while True:
                if carried is None:
                    try:
                        carried = await peer._outbox_out.receive()
                    except trio.EndOfChannel:
                        break
                frames, carried = peer.next_run(carried)
                peer.queued -= sum(map(len, frames))
                await peer.write_run(frames)
            await peer.stream.send_eof()  # aclose: everything queued was sent; tell the peer
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            peer.end(f"send failed: {exc.__cause__ or exc}")
        peer.drained.set()

    async def aclose(self, linger: float = 1.0) -> None:
        """Close every connection, first giving queued frames ``linger`` seconds to go out.

        The event channel then ends, so ``async for event in mesh`` loops finish.
        """
        if self._closed:
            return
        self._closed = True
        for peer in [*self._peers.values(), *self._spectators.values()]:
            peer.outbox.close()
        try:
            if self._running:
                with trio.move_on_after(linger):
                    for peer in self._peers.values():
                        await peer.drained.wait()
                # A spectator's last frames (the end of the game) are out once its write loop drained; let it
                # hang up before the streams close, so none are dropped by a reset (over libp2p a closed
                # stream that still holds unread bytes is reset, and the reset loses them).
                with trio.move_on_after(max(linger, SPECTATOR_LINGER)):
                    for peer in list(self._spectators.values()):
                        await peer.drained.wait()
                        await peer.ended.wait()  # "spectator left" (its end of stream), or a failure
        finally:  # even when cancelled: the sockets must not outlive the mesh
            self._run_scope.cancel()
            with trio.CancelScope(shield=True):
                for peer in [*self._peers.values(), *self._spectators.values()]:
                    if peer.reason is None:
                        peer.reason = "mesh closed"
                    await trio.aclose_forcefully(peer.stream)
            self._events_in.close()

    async def __aenter__(self) -> Mesh:
        self._nursery_cm = trio.open_nursery()
        nursery = await self._nursery_cm.__aenter__()
        try:
            await nursery.start(self.run)
        except BaseException as exc:
            await self._nursery_cm.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        try:
            await self.aclose()
        finally:
            suppressed = await self._nursery_cm.__aexit__(exc_type, exc, tb)
        return bool(suppressed)


class _Formation:
    """The state of one :func:`open_mesh` call: who is up, who is being greeted, what failed."""

    def __init__(
        self,
        seat: int,
        expected: set[int],
        hello: dict[str, Any],
        check_hello: CheckHello,
        handshake_timeout: float,
        max_frame: int,
        sign: Signer | None = None,
        connect: Dial = tcp_dial,
        features: tuple[str, ...] = (),
    ) -> None:
        self.sign = sign
        self.features = features
        self.connect = connect  # the transport's dial (TCP unless a test or another transport says)
        self.retry_refusals = False
        self.admission = Admission(MAX_GREETING, MAX_GREETING_PER_HOST)
        self.stale: list[_Peer] = []  # connections replaced during formation, closed at its end
        self.seat = seat
        self.expected = expected
        self.hello = hello
        self.check_hello = check_hello
        self.handshake_timeout = handshake_timeout
        self.max_frame = max_frame
        self.peers: dict[int, _Peer] = {}
        self.failures: dict[int, str] = {}  # last failure per expected seat
        self.strays: deque[str] = deque(maxlen=5)  # the last connections that never named an acceptable seat
        # (a running peer's listener is open to anyone: every refused stranger kept a line for good)
        self.foreign: set[int] = set()  # seats we dialed whose answer's hello our check_hello refused
        self.fatal: str | None = None
        self.done = trio.Event()
        self.linked = trio.Event()  # a first link is up, or the formation is done (``partial_wait`` counts from it)

    def judge(self, expect: int | None, hello: dict[str, Any], host: str = "?") -> int:
        """The seat ``hello`` claims, if acceptable on this connection (from ``host``, a
        :func:`~p2php.net.admission.host_key`); else HandshakeError."""
        claimed = hello.get("seat")
        if not isinstance(claimed, int) or isinstance(claimed, bool):
            raise HandshakeError(f"hello has no int 'seat' (got {claimed!r:.40})")
        if claimed == self.seat:
            raise HandshakeError(f"hello claims seat {claimed}, which is our own")
        if expect is not None and claimed != expect:
            raise HandshakeError(f"dialed seat {expect} but the hello claims seat {claimed}")
        if expect is None and (claimed not in self.expected or claimed < self.seat):
            raise HandshakeError(f"seat {claimed} is not expected to connect to seat {self.seat}")
        linked = self.peers.get(claimed)
        if linked is not None and linked.hello != hello:
            raise HandshakeError(f"seat {claimed} is already linked with another hello")
        try:
            self.check_hello(claimed, hello)
        except HandshakeError:
            if expect is not None:
                self.foreign.add(claimed)  # what listens at that seat's address is not that seat (of this table)
            raise
        except Exception as exc:  # a hostile hello must not crash us through check_hello
            log.exception("check_hello raised on seat %d's hello", claimed)
            raise HandshakeError(f"check_hello raised {type(exc).__name__}: {exc}") from exc
        return claimed

    async def greet(self, stream: Stream, expect: int | None) -> tuple[int, _Peer]:
        """Run the handshake on ``stream``: (seat, peer), or HandshakeError / ConnectionError."""
        peer = _Peer(stream, self.max_frame)
        seat: int | None = None
        with trio.fail_after(self.handshake_timeout):
            await peer.write(encode_frame(self.hello, self.max_frame))
            theirs = await peer.read_frame()
            if theirs is None:
                raise ConnectionError("connection closed before the hello")
            peer.hello = theirs
            claimed = theirs.get("seat")
            named = claimed if isinstance(claimed, int) and not isinstance(claimed, bool) else None
            refusal: str | None = None
            try:
                seat = self.judge(expect, theirs, host_of(stream))
            except HandshakeError as exc:
                refusal = str(exc)
            unproven = await self._prove(peer, expect is not None, theirs, seat if refusal is None else None)
            refusal = refusal or unproven
            verdict = {"mesh": "ok"} if refusal is None else {"mesh": "reject", "reason": refusal}
            await peer.write(encode_frame(verdict, self.max_frame))
            answer = await peer.read_frame()
        if refusal is not None:
            raise HandshakeError(refusal, named)
        if answer is None:
            raise ConnectionError("connection closed before the handshake verdict")
        if answer.get("mesh") == "reject":
            why = safe(answer.get("reason"), _REASON_LIMIT)  # the other end's words: escaped, as any remote text
            raise HandshakeError(f"seat {seat} rejected our hello: {why}", seat)
        if answer != {"mesh": "ok"}:
            raise HandshakeError(f"seat {seat} sent a malformed handshake verdict", seat)
        assert seat is not None
        peer.authenticate()
        return seat, peer

    async def _prove(self, peer: _Peer, dialer: bool, theirs: dict[str, Any], seat: int | None) -> str | None:
        """Challenge and response: both ends prove they hold their hello's signing key.

        Both ends always send one challenge and one proof (even when one of them will
        refuse), so the exchange stays in step.  Returns a refusal reason, or None.
        ``seat`` None: nothing to verify (already refused); a spectator (seat -1)
        holds no key and proves nothing, so it cannot speak for a seat.  Without
        ``sign`` (a bare mesh in tests) nothing is proven either way.
        """
        setup = LinkSetup(self.hello, theirs, dialer, self.sign, self.features if seat != SPECTATOR else ())
        await peer.write(encode_frame(setup.challenge(), self.max_frame))
        frame = await peer.read_frame()
        if frame is None:
            raise ConnectionError("connection closed before the challenge")
        await peer.write(encode_frame(setup.proof(frame), self.max_frame))
        peer.link_macs = setup.macs
        peer.features = setup.agreed
        frame = await peer.read_frame()
        if frame is None:
            raise ConnectionError("connection closed before the proof")
        if seat is None:
            return None
        if setup.link is None:
            return "malformed challenge or hello"
        if seat == SPECTATOR or self.sign is None:
            return None
        if not setup.proven(frame):
            return f"seat {seat} did not prove it holds the key of its hello"
        return None

    def connected(self, seat: int, peer: _Peer) -> bool:
        """Take a proven connection; a newer proven one for the same seat replaces the older.

        The other end only dials again when its first connection broke (perhaps
        before we noticed), so the newest proven connection is the live one.
        """
        old = self.peers.get(seat)
        if old is not None and old.hello != peer.hello:  # (both passed judge at once): the first proven one stays
            self.strays.append(f"seat {seat} proved a second link with another hello; it was closed")
            return False
        if old is not None:
            self.stale.append(old)
            self.strays.append(f"seat {seat} connected again; its older connection was closed")
        self.peers[seat] = peer
        self.failures.pop(seat, None)
        self.linked.set()
        if set(self.peers) == self.expected:
            self.done.set()
        return True

    async def dial(self, seat: int, address: tuple[str, int]) -> None:
        """Connect to a lower ``seat``, retrying until it answers; a rejection is final."""
        host, port = address
        delay = 0.05
        while True:
            try:
                stream = await self.connect(host, port)
            except (OSError, ValueError, trio.BrokenResourceError) as exc:  # (ValueError: a host name IDNA refuses)
                self.failures[seat] = f"cannot connect to {host}:{port}: {exc}"
            else:
                try:
                    if not self.connected(*await self.greet(stream, seat)):
                        await trio.aclose_forcefully(stream)
                    return
                except HandshakeError as exc:
                    await trio.aclose_forcefully(stream)
                    if not self.retry_refusals:
                        self.fatal = f"seat {seat} at {host}:{port}: handshake failed: {exc}"
                        self.done.set()
                        self.linked.set()
                        return
                    self.failures[seat] = f"handshake with {host}:{port} refused: {exc}"
                except _HANDSHAKE_FAILURES as exc:
                    await trio.aclose_forcefully(stream)
                    self.failures[seat] = f"handshake with {host}:{port} failed: {_describe(exc)}"
                except BaseException:
                    await trio.aclose_forcefully(stream)
                    raise
            await trio.sleep(delay)  # the deadline is enforced by open_mesh's cancel scope
            delay = min(delay * 2, 0.5)

    async def accept(self, listener: Listener, nursery: trio.Nursery) -> None:
        """Accept connections, each greeted in its own task so a silent one blocks nobody."""
        await accept_forever(listener, self._greet_accepted, nursery)

    async def _greet_accepted(self, stream: Stream) -> None:
        host, where = remote_address(stream)
        # Unauthenticated connections are bounded in number, per remote host too (a full room makes
        # way for another host's connection: p2php.net.admission), and each must finish its handshake
        # within handshake_timeout.
        ticket = self.admission.enter(host_key(host))
        if ticket is None:
            await trio.aclose_forcefully(stream)
            return
        try:
            with ticket.scope:
                await self._greet_counted(stream, where)
        finally:
            self.admission.leave(ticket)
        if ticket.evicted:
            self.strays.append(f"connection from {where} dropped in its handshake: its place went to another host's")

    async def _greet_counted(self, stream: Stream, where: str) -> None:
        try:
            if not self.connected(*await self.greet(stream, None)):
                await trio.aclose_forcefully(stream)
        except (HandshakeError, *_HANDSHAKE_FAILURES) as exc:
            await trio.aclose_forcefully(stream)
            message = f"connection from {where} dropped: {_describe(exc)}"
            log.warning("seat %d: %s", self.seat, message)
            claimed = exc.seat if isinstance(exc, HandshakeError) else None
            if claimed is not None and claimed in self.expected and claimed not in self.peers:
                self.failures[claimed] = message
            else:
                self.strays.append(message)
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise


class _Rejoin(_Formation):
    """Greets connections after the mesh is formed: returning seats, and spectators."""

    def __init__(self, mesh: Mesh, hello: dict[str, Any], check_hello: CheckHello, handshake_timeout: float,
                 spectators: bool, sign: Signer | None = None) -> None:
        super().__init__(mesh.seat, set(mesh.seats), hello, check_hello, handshake_timeout, mesh.max_frame, sign,
                         mesh.connect, mesh.features)
        self.mesh = mesh
        self.spectators = spectators

    def judge(self, expect: int | None, hello: dict[str, Any], host: str = "?") -> int:
        claimed = hello.get("seat")
        if expect is None and claimed == SPECTATOR and hello.get("spectator") is True:
            if not self.spectators:
                raise HandshakeError("this peer does not accept spectators")
            if (refusal := self.mesh.spectator_may_join(host)) is not None:
                raise HandshakeError(refusal)
            return SPECTATOR
        if not isinstance(claimed, int) or isinstance(claimed, bool) or claimed not in self.expected:
            raise HandshakeError(f"seat {claimed!r:.20} is not a seat of this table")
        if expect is not None and claimed != expect:
            raise HandshakeError(f"dialed seat {expect} but the hello claims seat {claimed}")
        try:
            self.check_hello(claimed, hello)
        except HandshakeError:
            raise
        except Exception as exc:
            raise HandshakeError(f"check_hello raised {type(exc).__name__}: {exc}") from exc
        return claimed

    def connected(self, seat: int, peer: _Peer) -> bool:  # proven: a returning seat replaces its old link
        if seat == SPECTATOR:
            return self.mesh._add_spectator(peer)
        else:
            self.mesh._replace(seat, peer)
        return True


SPECTATOR = -1
"""The ``seat`` a spectator's hello claims (with ``"spectator": true``)."""


def _describe(exc: BaseException) -> str:
    if isinstance(exc, trio.TooSlowError):
        return "handshake timed out"
    if isinstance(exc, FrameError):
        return f"framing error: {exc}"
    if isinstance(exc, trio.BrokenResourceError) and exc.__cause__ is not None:
        return f"connection broken: {exc.__cause__}"
    return str(exc) or type(exc).__name__


async def open_mesh(
    seat: int,
    peers: Mapping[int, tuple[str, int]],
    listener: Listener | None,
    hello: dict[str, Any],
    check_hello: CheckHello,
    *,
    connect_timeout: float = 10.0,
    handshake_timeout: float = 10.0,
    max_frame: int = MAX_FRAME,
    sign: Signer | None = None,
    connect: Dial = tcp_dial,
    retry_refusals: bool = False,
    features: tuple[str, ...] = WIRE_FEATURES,
    partial: bool = False,
    partial_wait: float | None = None,
    partial_alone: bool = False,
) -> Mesh:
    """Connect ``seat`` to every other seat of ``peers``; raise MeshError if that fails.

    ``peers`` maps every seat (ours may be included, and is ignored) to the
    address it listens on; only the addresses of lower seats are dialed.
    ``listener`` accepts the higher seats and may be None if there are none; it
    is left open (close it once the mesh is formed).  ``hello`` is our handshake
    frame and must hold our int ``"seat"``; ``check_hello(seat, hello)`` raises
    :class:`HandshakeError` to refuse a peer's.  ``connect_timeout`` bounds the
    whole formation, ``handshake_timeout`` each single handshake.  ``features``: the link features offered
    (``()``: none, as a peer that does not know them; a link uses those both ends offer).
    ``retry_refusals``: a refused handshake on a connection we dialed is retried until the deadline instead of
    ending the formation (a rematch: the seat we dial may still be finishing the ended game, or not have agreed
    yet). ``partial`` (a restored peer rejoining its game): at the deadline the mesh forms with the links that
    did, if any did, and every missing seat's link starts down (a :class:`PeerError` first thing), so the runner
    redials a lower seat and waits for a higher one to dial in, as after any drop: one seat that never dials us
    again must not keep us from coming back to the others (it is then the one whose link stays down).
    ``partial_wait`` (with ``partial``): once a first link is up, the others get only this long more. That seat
    holds a link to us with no heartbeat and no message of ours: it gave us its ``timeout`` from the moment the link
    came, so waiting out ``connect_timeout`` for a seat that is away (killed too, back later) got us named silent
    (chaos soak ``--extra`` seed 5004).
    ``partial_alone`` (with ``partial``): the mesh forms even when no link did, every link down (a restored peer of
    a game not over, whose every other seat is away too: it waits ``resume_timeout`` for them as after any drop,
    then ends with a verdict and its record, as a seat never restarted does; before, it ended with neither). Not
    when a seat we dialed answered with a hello ``check_hello`` refused (the log of another table, say: what listens
    there is not that seat): the formation fails as before, saying why, at once — waiting alone, the user learned it
    only after ``resume_timeout``, as ``could not reach`` (a network fault), and the log was closed on that verdict.
    """
    if hello.get("seat") != seat or isinstance(hello.get("seat"), bool):
        raise ValueError(f"hello must contain 'seat': {seat}, got {hello.get('seat')!r}")
    encode_frame(hello, min(max_frame, HANDSHAKE_FRAME))  # refuse an unsendable hello here, not in every handshake
    others = set(peers) - {seat}
    higher = sorted(s for s in others if s > seat)
    if higher and listener is None:
        raise ValueError(f"seat {seat} must accept seats {higher} but was given no listener")
    form = _Formation(seat, others, hello, check_hello, handshake_timeout, max_frame, sign, connect, features)
    form.retry_refusals = retry_refusals or partial  # (a restored peer: one seat's refusal leaves only it missing)
    formed = False
    try:
        if others:
            async with trio.open_nursery() as nursery:
                for other in sorted(others):
                    if other < seat:
                        nursery.start_soon(form.dial, other, peers[other])
                if higher:
                    assert listener is not None  # checked above
                    nursery.start_soon(form.accept, listener, nursery)
                with trio.move_on_after(connect_timeout):
                    if partial and partial_wait is not None:
                        await form.linked.wait()
                        with trio.move_on_after(partial_wait):
                            await form.done.wait()
                    else:
                        await form.done.wait()
                nursery.cancel_scope.cancel()
        missing = sorted(others - set(form.peers))
        alone = partial_alone and not form.foreign & set(missing)
        formed = form.fatal is None and (not missing or (partial and (bool(form.peers) or alone)))
    finally:
        with trio.CancelScope(shield=True):
            for peer in form.stale:
                await trio.aclose_forcefully(peer.stream)
            if not formed:
                for peer in form.peers.values():
                    await trio.aclose_forcefully(peer.stream)
    if formed:
        for other in missing:
            form.peers[other] = _Peer(_NoLink(), max_frame)
            form.peers[other].end("no link since we restarted")
        mesh = Mesh(seat, form.peers, max_frame, features)
        mesh.connect = connect
        return mesh
    if form.fatal is not None:
        head = f"seat {seat}: mesh not formed: {form.fatal}"
    else:
        head = f"seat {seat}: no connection with seat(s) {missing} after {connect_timeout}s"
    details = [f"seat {s}: {form.failures.get(s, 'nothing received')}" for s in missing]
    details += [f"other: {stray}" for stray in form.strays]
    raise MeshError("; ".join([head, *details]), missing)
