"""Seats over libp2p (py-libp2p, the optional extra ``p2php[internet]``): direct, or through a circuit relay v2.

The mesh sees what it sees over TCP: ordered byte streams (:class:`Libp2pStream`, a
``trio.abc.HalfCloseableStream`` over one libp2p stream of protocol :data:`PROTOCOL_ID`) from a dial function
and a listener (:mod:`p2php.net.transport`). Our framing, link tags, limits and timeouts stay above the seam,
unchanged: libp2p's Noise and yamux are one more layer below them, never a substitute (protocol.md §3.6).

A seat's libp2p identity is bound to its seat key (protocol.md §3.6):

* its libp2p Ed25519 key is derived from the seat's master secret (:func:`libp2p_key_seed`), so a peer that
  restarts from its resume log comes back under the same peer id and the others' directory still finds it;
* its seat key signs its peer id (:func:`binding_proof`); the first bytes each end sends on a new libp2p stream
  are that proof (:data:`BINDING_SIZE` bytes, before any frame), and the other end checks it against the peer id
  libp2p authenticated (Noise) and then against the ``sign_key`` of the hello that follows. A stream whose
  peer id is not vouched for by the key of the seat speaking on it is refused (:class:`BindingError`).

:class:`Libp2pLoopback` is a :class:`~p2php.session.local_net.LocalNetwork` for ``run_local_table``: one libp2p
host per seat on 127.0.0.1, and with ``relayed=True`` a local relay node that carries every link
(``/p2p/RELAY/p2p-circuit/p2p/PEER``). :meth:`Libp2pLoopback.links` says how each pair of seats is carried.

libp2p is imported lazily: without it :func:`require_libp2p` raises :class:`Libp2pMissing`, naming the extra.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import operator
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import trio
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2php import tags
from p2php.canonical import digest
from p2php.errors import P2phpError
from p2php.net.admission import host_key
from p2php.net.framing import HANDSHAKE_FRAME, FrameDecoder, FrameError
from p2php.net.libp2p_host import INBOUND_PER_IP, new_dcutr, new_host, remote_ip
from p2php.net.transport import Listener

if TYPE_CHECKING:
    from p2php.session.handshake import LocalSecrets

__all__ = [
    "BINDING_SIZE", "LOBBY_PROTOCOL_ID", "PROTOCOL_ID", "BindingError", "Libp2pListener", "Libp2pLoopback",
    "Libp2pMissing", "Libp2pNode", "Libp2pStream", "RelayLimitsSpec", "binding_proof", "check_binding",
    "libp2p_key_seed", "libp2p_loopback", "require_libp2p", "serve_relay",
]

log = logging.getLogger(__name__)

PROTOCOL_ID = "/p2php/mesh/4"
"""The libp2p protocol id of a mesh link (the number is the p2php protocol version)."""
LOBBY_PROTOCOL_ID = "/p2php/lobby/4"
"""The libp2p protocol id of a lobby connection to an online table's host (protocol.md §3.7)."""
INSTALL_HINT = "libp2p transport needs py-libp2p: pip install 'p2php[internet]'"
_MAGIC = b"P2B1"  # a binding proof's first bytes (version 1), so a stray stream fails at once
BINDING_SIZE = len(_MAGIC) + 32 + 64
"""Bytes of the binding proof each end sends first on a stream: magic, seat sign key, signature."""
BINDING_TIMEOUT = 10.0
"""Seconds a new stream has to open and exchange its binding proofs."""
READ_SIZE = 65536
CLOSE_TIMEOUT = 1.0
"""Seconds a graceful close of a stream may take before it is reset instead."""
RESERVATION_CHECK = 1.0
"""Seconds between checks that the relay connection our reservation was made on (so the reservation) is still there."""
RESERVE_PATIENCE = 10.0
"""Seconds a node keeps trying its first reservation, a second apart, before it says its relay gave none: a relay
that restarts refuses everyone until it is up again (the relay soak saw three tries over two seconds fall inside one
restart, and the table never formed)."""
RESERVATION_RENEW = 600.0
"""Seconds after which a reservation is renewed anyway (relays give an hour by default)."""
RELAY_PROBE_EVERY = 15.0
"""Seconds between pings of the relay on the connection our reservation was made on (see ``_relay_answers``)."""
RELAY_PROBE_TIMEOUT = 5.0
"""Seconds the relay has to answer such a ping before that connection is taken for dead and closed (shorter than
py-libp2p's own timeouts on the way, 10 s and more, so silence always ends here, never in a library error)."""
PUNCH_TIMEOUT = 5.0
"""Seconds a relayed link tries DCUtR for a direct connection before it stays relayed."""
LINGER = 10.0
"""Seconds after our close during which the other end's end of stream is awaited (else: a reset)."""
MAX_NOTED = 128
"""Peers whose latest mesh stream a node remembers (seats and spectators; the oldest are forgotten first)."""
BACKLOG = 16
"""Accepted streams waiting for the mesh before further ones are refused (reset)."""
_HELLO_LIMIT = HANDSHAKE_FRAME


class Libp2pMissing(P2phpError, ImportError):
    """py-libp2p is not installed (the ``p2php[internet]`` extra)."""


class BindingError(P2phpError, ValueError):
    """A libp2p stream's peer id is not vouched for by the key of the seat speaking on it."""


def require_libp2p() -> Any:
    """The ``libp2p`` package, or :class:`Libp2pMissing` with the extra to install."""
    try:
        module = importlib.import_module("libp2p")
    except ImportError as exc:
        raise Libp2pMissing(INSTALL_HINT) from exc
    quiet = logging.getLogger("libp2p")  # its import leaves it handler-less: warnings would go to stderr raw
    if not quiet.handlers:  # (set LIBP2P_DEBUG to see them: py-libp2p then installs its own handlers)
        quiet.addHandler(logging.NullHandler())
    return module


def _lib(name: str) -> Any:
    require_libp2p()
    return importlib.import_module(name)


# ----------------------------------------------------------------------------- identity binding (protocol.md §3.6)

@contextlib.contextmanager
def _unreachable(what: str) -> Iterator[None]:
    """py-libp2p raises many kinds of exception where a peer or relay cannot be reached: each becomes a
    ``ConnectionRefusedError`` saying ``what`` (an ``OSError``: the mesh retries it, callers say it in one line).
    ``OSError`` and ``trio.TooSlowError`` pass as they are (cancellation is no ``Exception``)."""
    try:
        yield
    except (OSError, trio.TooSlowError):
        raise
    except Exception as exc:  # noqa: BLE001 - any other py-libp2p failure
        raise ConnectionRefusedError(f"{what}: {type(exc).__name__} {exc}") from exc


def libp2p_key_seed(master: bytes) -> bytes:
    """The 32-byte seed of a seat's libp2p Ed25519 key: ``D(IDENTITY, master, "libp2p")``.

    The seat's own identity secret is ``D(IDENTITY, master)`` (one part); this one has two, so the two keys are
    independent (``D`` length-prefixes its parts) and neither reveals the other.
    """
    return digest(tags.IDENTITY, master, b"libp2p")


def binding_bytes(peer_id: bytes) -> bytes:
    """What a seat key signs to vouch for a libp2p peer id: ``D(LINK, "libp2p-peer", peer id)``.

    A link proof (§3.2) is ``D(LINK, role, …)`` with eight parts and role ``dial`` or ``accept``; this is three
    parts with its own role, so neither can stand for the other.
    """
    return digest(tags.LINK, b"libp2p-peer", peer_id)


def binding_proof(secrets: LocalSecrets, peer_id: bytes) -> bytes:
    """The :data:`BINDING_SIZE` bytes a seat's host sends first on every stream."""
    return _MAGIC + secrets.identity.public.sign_key + secrets.identity.sign(binding_bytes(peer_id))


def check_binding(proof: bytes, peer_id: bytes) -> bytes:
    """The seat sign key that vouches for ``peer_id`` in ``proof``, or :class:`BindingError`."""
    if len(proof) != BINDING_SIZE or not proof.startswith(_MAGIC):
        raise BindingError("the stream did not start with a p2php binding proof")
    key, sig = proof[len(_MAGIC):len(_MAGIC) + 32], proof[len(_MAGIC) + 32:]
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(sig, binding_bytes(peer_id))
    except (InvalidSignature, ValueError):
        raise BindingError("the binding proof does not vouch for the stream's libp2p peer id") from None
    return key


# ----------------------------------------------------------------------------- the stream adapter

def _libp2p_errors() -> tuple[type[BaseException], ...]:
    base: type[BaseException] = _lib("libp2p.exceptions").BaseLibp2pError
    return (base, OSError, EOFError, ConnectionError)


class Libp2pStream(trio.abc.HalfCloseableStream):
    """One libp2p stream as a trio stream: ``send_all``, ``receive_some``, ``send_eof``, ``aclose``.

    End of stream reads as ``b""``; a reset or a dead connection raises ``trio.BrokenResourceError``; anything
    after our own :meth:`aclose` (also a call another task is blocked in) raises ``trio.ClosedResourceError``.
    Nothing is buffered here beyond one read's worth: yamux's flow-control window bounds what waits below.

    ``expected_key``: after :meth:`bind`, the seat sign key the other end proved; the first frame it sends
    (its hello) must carry that ``sign_key``, else the stream fails with :class:`BindingError`.
    """

    def __init__(self, stream: Any, nursery: trio.Nursery | None = None) -> None:
        self._stream = stream
        self._nursery = nursery  # where a closed stream waits for the other end's end (else: reset at once)
        self._errors = _libp2p_errors()
        self._eof_type: type[BaseException] = _lib("libp2p.network.stream.exceptions").StreamEOF
        self.peer_id: bytes = stream.muxed_conn.peer_id.to_bytes()
        self.remote = str(stream.muxed_conn.peer_id)  # what transport.remote_address() reports
        self.via: str | None = None  # set by whoever knows more than the connection (a DCUtR upgrade)
        self.expected_key: bytes | None = None
        self._hello: FrameDecoder | None = None
        self._pending = b""
        self._closed = False
        self._eof_sent = False
        self._eof_seen = False
        self._sending = False
        self._receiving = False
        self._scopes: set[trio.CancelScope] = set()

    @property
    def source(self) -> str:
        """Whom per-host limits count this stream against (``transport.remote_address``): the IP of the other end
        of a direct (or hole-punched) connection — a stranger can make peer ids without end, not IPs — and the
        peer id of a relayed one, whose connection shows only the relay's IP (every relayed peer would share it)."""
        ip = remote_ip(self._stream.muxed_conn) if self.carried in ("direct", "hole-punched") else None
        return self.remote if ip is None else ip

    @property
    def carried(self) -> str:
        """How libp2p carries this stream: ``direct``, ``relayed``, ``hole-punched`` (or ``unknown``)."""
        if self.via is not None:
            return self.via
        try:
            kind = self._stream.muxed_conn.get_connection_type()
        except Exception:  # noqa: BLE001 - a muxer without the call: we cannot say
            return "unknown"
        return str(getattr(kind, "value", kind))

    async def _io(self, call: Callable[[], Any], what: str) -> Any:
        if self._closed:
            raise trio.ClosedResourceError("this libp2p stream is closed")
        scope = trio.CancelScope()
        self._scopes.add(scope)
        try:
            with scope:
                try:
                    return await call()
                except self._eof_type:
                    raise
                except self._errors as exc:
                    if self._closed:
                        raise trio.ClosedResourceError("this libp2p stream is closed") from None
                    raise trio.BrokenResourceError(f"libp2p stream {what} failed: {type(exc).__name__} {exc}") from exc
            raise trio.ClosedResourceError("this libp2p stream was closed during the call")
        finally:
            self._scopes.discard(scope)

    async def bind(self, proof: bytes) -> bytes:
        """Send our binding proof, read and check theirs (protocol.md §3.6); returns their seat sign key."""
        await self.send_all(proof)
        theirs = b""
        while len(theirs) < BINDING_SIZE:
            data = await self._read(BINDING_SIZE - len(theirs))
            if not data:
                raise BindingError("the stream ended before its binding proof")
            theirs += data
        self.expected_key = check_binding(theirs, self.peer_id)
        self._hello = FrameDecoder(_HELLO_LIMIT)
        return self.expected_key

    async def _read(self, max_bytes: int) -> bytes:
        if self._pending:
            data, self._pending = self._pending[:max_bytes], self._pending[max_bytes:]
            await trio.lowlevel.checkpoint()
            return data
        if self._eof_seen:
            await trio.lowlevel.checkpoint()
            return b""
        try:
            data = bytes(await self._io(lambda: self._stream.read(max_bytes), "read"))
        except self._eof_type:
            # py-libp2p 0.8's yamux reads a peer's reset (RST) as an end of stream; it keeps a flag that tells
            if getattr(getattr(self._stream, "muxed_stream", None), "reset_received", False) is True:
                raise trio.BrokenResourceError("the other end reset this libp2p stream") from None
            self._eof_seen = True
            return b""
        if len(data) > max_bytes:  # never asked for, but never lost either
            data, self._pending = data[:max_bytes], data[max_bytes:]
        if not data:
            self._eof_seen = True
        return data

    def _watch_hello(self, data: bytes) -> None:
        """Check the other end's first frame (its hello) names the seat key that vouched for this stream."""
        if self._hello is None:
            return
        try:
            self._hello.receive_data(data)
            frame = self._hello.next_frame()
        except FrameError:
            self._hello = None  # not ours to judge: the mesh refuses a malformed hello itself
            return
        if frame is None:
            return
        self._hello = None
        key = frame.get("sign_key")
        if isinstance(key, bytes) and key != self.expected_key:
            raise BindingError(f"libp2p peer {self.remote} is vouched for by another key than its hello's")

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if max_bytes is not None:
            max_bytes = operator.index(max_bytes)  # TypeError for a float
            if max_bytes < 1:
                raise ValueError("max_bytes must be at least 1")
        if self._receiving:
            raise trio.BusyResourceError("another task is receiving on this stream")
        self._receiving = True
        try:
            data = await self._read(max_bytes or READ_SIZE)
            if data:
                try:
                    self._watch_hello(data)
                except BindingError as exc:
                    await self._reset()
                    raise trio.BrokenResourceError(str(exc)) from exc
            return data
        finally:
            self._receiving = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._sending:
            raise trio.BusyResourceError("another task is sending on this stream")
        if self._eof_sent and not self._closed:
            raise trio.ClosedResourceError("send_eof was called on this stream")
        self._sending = True
        try:
            if data:
                await self._io(lambda: self._stream.write(bytes(data)), "write")
            else:
                await self._io(trio.lowlevel.checkpoint, "write")
        finally:
            self._sending = False

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()
        if self._closed:
            raise trio.ClosedResourceError("this libp2p stream is closed")

    async def send_eof(self) -> None:
        if self._eof_sent:
            await trio.lowlevel.checkpoint()
            return
        self._eof_sent = True
        await self._io(self._stream.close_write, "half-close")

    async def _reset(self) -> None:
        with contextlib.suppress(Exception):  # the stream is gone either way
            await self._stream.reset()

    async def aclose(self) -> None:
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        self._closed = True
        for scope in list(self._scopes):
            scope.cancel()
        try:
            with trio.fail_after(CLOSE_TIMEOUT):
                await self._stream.close()  # a graceful end: yamux's FIN after our data
        except trio.Cancelled:  # closed forcefully (trio.aclose_forcefully): a reset, at once
            with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_TIMEOUT):
                await self._reset()
            raise
        except Exception:  # noqa: BLE001 - stuck (TooSlowError) or already broken: a reset ends it
            with trio.move_on_after(CLOSE_TIMEOUT):
                await self._reset()
            return
        if self._eof_seen:
            return  # both directions ended cleanly
        if self._nursery is None:
            await self._reset()
        else:
            self._nursery.start_soon(self._refuse_late_bytes)

    async def _refuse_late_bytes(self) -> None:
        """As TCP after ``close()``: bytes still unread or arriving are answered with a reset, so the
        sender learns we are gone (its writes fail) instead of filling a window nobody reads."""
        with trio.move_on_after(LINGER):
            try:
                await self._stream.read(READ_SIZE)
            except Exception:  # noqa: BLE001 - its end (or a reset): the other side is done too
                return
        await self._reset()


# ----------------------------------------------------------------------------- one seat's host

class Libp2pListener(trio.abc.Listener[trio.abc.HalfCloseableStream]):
    """The streams other seats open to one :class:`Libp2pNode` (already bound, §3.6)."""

    def __init__(self, node: Libp2pNode, slot: str = "listener") -> None:
        self.node = node
        self.slot = slot  # the node attribute that holds us (None once closed: its streams are refused)
        self._send, self._receive = trio.open_memory_channel[trio.abc.HalfCloseableStream](BACKLOG)

    async def accept(self) -> trio.abc.HalfCloseableStream:
        try:
            return await self._receive.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise trio.ClosedResourceError("the listener is closed") from None

    def offer(self, stream: Libp2pStream) -> bool:
        try:
            self._send.send_nowait(stream)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True

    async def aclose(self) -> None:
        setattr(self.node, self.slot, None)
        await self._send.aclose()
        await self._receive.aclose()


class Libp2pNode:
    """One seat's libp2p host: its key derived from the seat's master, its peer id vouched for by its seat key.

    Start it with ``await nursery.start(node.run)``; it listens on ``listen`` (a multiaddr string; None: nowhere,
    reachable only through a relay), serves :data:`PROTOCOL_ID` streams into :attr:`listener`, and opens streams
    with :meth:`open`. ``relay``: the multiaddr (with ``/p2p/ID``) of a circuit relay v2 node to reserve a slot
    on, so others reach us through it. ``punch``: run DCUtR, and try it on every relayed mesh stream we open.

    DCUtR makes a node dial addresses the other peer names, so it runs only with :attr:`seats` (the peer ids of
    our table's seats, as ``OnlineSeat.watch_links`` tells them) and with the peers we open mesh streams to
    (a seat, or the seat a spectator watches): see :func:`~p2php.net.libp2p_host.new_dcutr`.
    """

    def __init__(self, secrets: LocalSecrets, listen: str | None = "/ip4/127.0.0.1/tcp/0", relay: str | None = None,
                 key_seed: bytes | None = None, punch: bool = False, lobby: bool = False) -> None:
        require_libp2p()
        ed25519 = _lib("libp2p.crypto.ed25519")
        self.secrets = secrets
        self.sign_key = secrets.identity.public.sign_key
        self.key_pair = ed25519.create_new_key_pair(key_seed or libp2p_key_seed(secrets.master))
        self.host: Any = new_host(self.key_pair)
        self.peer_id: bytes = self.host.get_id().to_bytes()
        self.proof = binding_proof(secrets, self.peer_id)
        self.listen = listen
        self.relay = relay
        self.punch = punch
        self.dcutr: Any = None  # the DCUtR service, with ``punch``
        self.punch_on_open = True  # try DCUtR before a relayed stream opens (False: DCUtR's own retries may
        # move the link later: OnlineSeat.watch_links)
        self.listener: Libp2pListener | None = None
        self.serves_lobby = lobby  # also serve LOBBY_PROTOCOL_ID streams, into lobby_listener
        self.carried: dict[str, str] = {}  # peer id -> how our latest mesh stream with it is carried
        self.streams: dict[str, Libp2pStream] = {}  # peer id -> our latest mesh stream with it
        self.seats: set[str] = set()
        """Peer ids of our table's seats: DCUtR sessions with them are answered (and ours started)."""
        self._dialled: dict[str, None] = {}  # peer ids we opened mesh streams to (the newest MAX_NOTED)
        self.on_carried: Callable[[str, str], None] | None = None
        """Told ``(peer id, how)`` when how our mesh link with a peer is carried changes (a new stream)."""
        self.lobby_listener: Libp2pListener | None = None
        self.transport: Any = None  # the circuit relay transport, with ``relay``
        self._reserved_on: Any = None  # the relay connection our reservation was made on
        self._nursery: trio.Nursery | None = None

    @property
    def name(self) -> str:
        return str(self.host.get_id())

    def addrs(self) -> list[str]:
        return [str(a) for a in self.host.get_addrs()]

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Run the node until cancelled. A relay that gives no reservation is a plain ``OSError`` (or
        ``trio.TooSlowError``) from here, not the exception groups of py-libp2p's nurseries it passes through, so
        the caller of ``nursery.start(node.run)`` can say so in one line."""
        multiaddr = _lib("multiaddr")
        self.listener = Libp2pListener(self)
        listen = [multiaddr.Multiaddr(self.listen)] if self.listen else []
        failure: BaseException | None = None
        async with self.host.run(listen_addrs=listen), trio.open_nursery() as nursery:
            self._nursery = nursery
            self.host.set_stream_handler(PROTOCOL_ID, partial(self._incoming, "listener"))
            if self.serves_lobby:
                self.lobby_listener = Libp2pListener(self, "lobby_listener")
                self.host.set_stream_handler(LOBBY_PROTOCOL_ID, partial(self._incoming, "lobby_listener"))
            if self.relay is not None:
                try:
                    await self._reserve(nursery)
                except (OSError, trio.TooSlowError) as exc:
                    failure = exc
            if failure is None:
                if self.punch:
                    await self._start_dcutr(nursery)
                task_status.started()
                await trio.sleep_forever()
            nursery.cancel_scope.cancel()  # no reservation: leave the host cleanly, then say why
        if failure is not None:
            raise failure

    async def _reserve(self, nursery: trio.Nursery) -> None:
        circuit = _lib("libp2p.relay.circuit_v2")
        config = _lib("libp2p.relay.circuit_v2.config")
        service = _lib("libp2p.tools.anyio_service")
        peerinfo = _lib("libp2p.peer.peerinfo")
        multiaddr = _lib("multiaddr")
        assert self.relay is not None
        relay_id = peerinfo.info_from_p2p_addr(multiaddr.Multiaddr(self.relay)).peer_id

        base: Any = circuit.CircuitV2Protocol

        class FromOurRelay(base):  # type: ignore[misc]
            async def _handle_stop_stream(self, stream: Any) -> None:
                # py-libp2p takes a STOP from any peer: a stranger connected directly would bring in "relayed"
                # connections under peer ids of its making, each a host of its own to our per-host limits.
                if stream.muxed_conn.peer_id != relay_id:
                    with contextlib.suppress(Exception):
                        await stream.reset()
                    return
                await super()._handle_stop_stream(stream)

        protocol = FromOurRelay(self.host, allow_hop=False)
        started = trio.Event()

        async def serve() -> None:
            async with service.background_trio_service(protocol):
                started.set()
                await trio.sleep_forever()

        nursery.start_soon(serve)
        await started.wait()
        self.transport = circuit.CircuitV2Transport(
            self.host, protocol, config.RelayConfig(roles=config.RelayRole.STOP | config.RelayRole.CLIENT))
        assert self.relay is not None
        info = peerinfo.info_from_p2p_addr(multiaddr.Multiaddr(self.relay))

        async def reserve() -> None:
            with trio.fail_after(BINDING_TIMEOUT):
                with _unreachable("cannot reach the relay"):
                    self._forget_failures(info.peer_id)
                    await self.host.connect(info)
                    stream = await self.host.new_stream(info.peer_id, [circuit.PROTOCOL_ID])
                    reserved = await self.transport.reserve(stream, info.peer_id, nursery)
                if not reserved:
                    raise ConnectionRefusedError(f"the relay {self.relay} refused a reservation")
                self._reserved_on = stream.muxed_conn

        first = trio.current_time()
        while True:  # a relay that restarts refuses us for a moment (one that stays silent: no retry)
            try:
                await reserve()
                break
            except OSError:
                if trio.current_time() - first >= RESERVE_PATIENCE:
                    raise
                await trio.sleep(1.0)
        nursery.start_soon(self._keep_reservation, info.peer_id, reserve)

    async def _keep_reservation(self, relay: Any, reserve: Callable[[], Any]) -> None:
        """A reservation lives only as long as the connection to the relay it was made on (circuit v2): when
        that connection is gone (the relay restarted, a NAT forgot it, the library closed it), connect and reserve
        again, so others can still reach us; and renew it well within its lifetime."""
        renewed = probed = trio.current_time()
        while True:
            await trio.sleep(RESERVATION_CHECK)
            if trio.current_time() - probed >= RELAY_PROBE_EVERY and self._holds_reservation(relay):
                if not await self._relay_answers(relay):
                    log.info("the relay %s did not answer a ping: its connection is closed", self.relay)
                    await self._drop_connections(relay)
                probed = trio.current_time()
            if self._holds_reservation(relay) and trio.current_time() - renewed < RESERVATION_RENEW:
                continue
            try:
                await reserve()
                renewed = trio.current_time()
            except Exception as exc:  # noqa: BLE001 - any failure: try again at the next check
                log.info("could not renew the reservation on %s: %s", self.relay, exc)

    async def _relay_answers(self, relay: Any) -> bool:
        """Whether the relay answers a ping (libp2p's own) within :data:`RELAY_PROBE_TIMEOUT`.

        A connection whose path died without a word (a home router that forgot its NAT mapping, a relay host
        that vanished) stays open for py-libp2p until TCP gives up, and a reservation on it is worth nothing: nobody
        reaches us, and our own circuits go nowhere. Any answer counts, a refusal too: only silence is death.
        """
        ping = _lib("libp2p.host.ping")
        with trio.move_on_after(RELAY_PROBE_TIMEOUT):
            try:
                stream = await self.host.new_stream(relay, [ping.ID])
                try:
                    await ping.perform_ping_roundtrip(stream)
                finally:
                    with contextlib.suppress(Exception):
                        await stream.close()
            except trio.TooSlowError:
                return False
            except Exception:  # noqa: BLE001 - it answered, if only to refuse; or the connection is gone already
                pass
            return True
        return False

    def _connections_to(self, peer: Any) -> list[Any]:
        """Our open connections to ``peer`` (py-libp2p's swarm keeps a list per peer, older versions one)."""
        conns = (getattr(self.host.get_network(), "connections", {}) or {}).get(peer)
        return conns if isinstance(conns, list) else [conns] if conns else []

    def _holds_reservation(self, relay: Any) -> bool:
        """Whether the connection our reservation was made on is still one of our connections to ``relay``.

        A reservation lives exactly as long as that connection. Being connected to the relay is not enough: after
        the relay restarted, a circuit dial of ours may have connected us again before this check ran, and a
        connection that made no reservation holds none (nobody could reach us until the renewal, minutes later).
        """
        for conn in self._connections_to(relay):
            if conn is self._reserved_on or getattr(conn, "muxed_conn", None) is self._reserved_on:
                return True
        return False

    def _forget_failures(self, peer: Any) -> None:
        """Let the next dial of ``peer`` happen: py-libp2p refuses for a minute to dial a peer whose every address
        once failed (its negative cache), so a relay that restarted, or a seat that crashed and resumed, would stay
        out of reach long after it is back. Our own retries (a redial, a reservation again) decide when to try."""
        unblock = getattr(self.host.get_network(), "unblock_peer", None)
        if unblock is not None:
            unblock(peer)

    async def _start_dcutr(self, nursery: trio.Nursery) -> None:
        service = _lib("libp2p.tools.anyio_service")
        self.dcutr = new_dcutr(self.host, self.may_punch)
        started = trio.Event()

        async def serve() -> None:
            async with service.background_trio_service(self.dcutr):
                await self.dcutr.event_started.wait()
                started.set()
                await trio.sleep_forever()

        nursery.start_soon(serve)
        await started.wait()

    def may_punch(self, peer: Any) -> bool:
        """Whether DCUtR may run with ``peer`` (a libp2p peer id): one of :attr:`seats`, or a peer we opened a mesh
        stream to. Nobody else can make us dial the addresses it names (protocol.md §3.6)."""
        name = str(peer)
        return name in self.seats or name in self._dialled

    async def _incoming(self, slot: str, raw: Any) -> None:
        stream = Libp2pStream(raw, self._nursery)
        try:
            with trio.fail_after(BINDING_TIMEOUT):
                await stream.bind(self.proof)
        except (BindingError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            log.info("refused a libp2p stream from %s: %s", stream.remote, exc)
            await stream._reset()
            return
        listener: Libp2pListener | None = getattr(self, slot)
        if listener is None or not listener.offer(stream):
            await stream._reset()
        elif slot == "listener":
            self._note(stream)

    def _note(self, stream: Libp2pStream) -> None:
        """Record how a mesh stream is carried; a direct one is ``hole-punched`` if DCUtR made its connection
        (either end: the other side may have started the punch, or an earlier stream, the lobby's), or if it
        replaces a relayed link of ours with that peer (DCUtR made that direct connection since)."""
        punched = getattr(self.dcutr, "_direct_connections", ()) if self.dcutr is not None else ()
        before = self.carried.get(stream.remote)
        if stream.carried == "direct" and (any(p.to_bytes() == stream.peer_id for p in punched)
                                           or (self.dcutr is not None and before in ("relayed", "hole-punched"))):
            stream.via = "hole-punched"
        for table in (self.carried, self.streams):  # newest last; spectators come and go: keep it bounded
            table.pop(stream.remote, None)
            while len(table) >= MAX_NOTED:
                del table[next(iter(table))]
        self.carried[stream.remote] = stream.carried
        self.streams[stream.remote] = stream
        if before != stream.carried and self.on_carried is not None:
            self.on_carried(stream.remote, stream.carried)

    def better_path(self, peer: str) -> bool:
        """Whether our open mesh stream with ``peer`` goes through a relay while a direct connection to it now
        exists (DCUtR punched one after the stream opened): a new stream would take the direct one."""
        stream = self.streams.get(peer)
        if stream is None or stream._closed or stream.carried != "relayed":
            return False
        for conn in self._connections_to(stream._stream.muxed_conn.peer_id):
            with contextlib.suppress(Exception):  # a connection half gone: not a path
                if str(getattr(conn.get_connection_type(), "value", "")) == "direct":
                    return True
        return False

    async def _drop_connections(self, peer: Any) -> None:
        """Close our connections to ``peer``: a new stream on them got no answer in time.

        py-libp2p opens the next stream on the connection it has, and one whose path died without a word (a NAT
        that forgot it, a laptop that changed networks, a peer frozen mid-write) stays open until TCP gives up,
        many minutes later: every redial would fail the same way until the seat is named unreachable. Closed,
        the next dial connects anew, at the addresses it is given.
        """
        with trio.move_on_after(CLOSE_TIMEOUT), contextlib.suppress(Exception):
            await self.host.get_network().close_peer(peer)

    async def open(self, peer_id: bytes, addrs: list[str], via_relay: str | None = None,
                   protocol: str = PROTOCOL_ID) -> Libp2pStream:
        """A bound stream to ``peer_id`` at ``addrs`` (direct), or through the relay ``via_relay``.

        Raises ``ConnectionRefusedError`` (an ``OSError``: the mesh retries) if libp2p cannot reach it, and
        :class:`BindingError` if the peer there is not vouched for by a seat key.
        """
        multiaddr = _lib("multiaddr")
        peer_mod = _lib("libp2p.peer.id")
        peerinfo = _lib("libp2p.peer.peerinfo")
        target = peer_mod.ID(peer_id)
        punched = False
        if protocol == PROTOCOL_ID:  # a seat (or the seat we watch): hole punching may run with it
            self._dialled.pop(str(target), None)
            while len(self._dialled) >= MAX_NOTED:
                del self._dialled[next(iter(self._dialled))]
            self._dialled[str(target)] = None
        try:
            with trio.fail_after(BINDING_TIMEOUT), _unreachable(f"libp2p cannot reach {target}"):
                self._forget_failures(target)
                if via_relay is not None:
                    if self.transport is None:
                        raise ConnectionRefusedError("this node has no relay transport")
                    relay = peerinfo.info_from_p2p_addr(multiaddr.Multiaddr(via_relay))
                    self._forget_failures(relay.peer_id)
                    if not self.host.is_peer_connected(target):
                        await self.host.connect(relay)  # (at once if connected: the relay may have restarted)
                        await self.transport.dial(multiaddr.Multiaddr(f"{via_relay}/p2p-circuit/p2p/{target}"))
                    if self.dcutr is not None and self.punch_on_open and protocol == PROTOCOL_ID:  # try to go direct
                        with trio.move_on_after(PUNCH_TIMEOUT):
                            # False also while DCUtR's own loop is punching the same peer: ask again (the
                            # call answers True at once once a direct connection exists)
                            while not (punched := bool(await self.dcutr.initiate_hole_punch(target))):
                                await trio.sleep(0.25)
                else:
                    await self.host.connect(peerinfo.PeerInfo(target, [multiaddr.Multiaddr(a) for a in addrs]))
                raw = await self.host.new_stream(target, [protocol])
        except trio.TooSlowError:
            await self._drop_connections(target)
            raise ConnectionRefusedError(f"libp2p peer {target} did not answer in time") from None
        stream = Libp2pStream(raw, self._nursery)
        if punched and stream.carried == "direct":
            stream.via = "hole-punched"
        if protocol == PROTOCOL_ID:
            self._note(stream)
        try:
            with trio.fail_after(BINDING_TIMEOUT):
                await stream.bind(self.proof)
        except (trio.BrokenResourceError, trio.TooSlowError) as exc:  # reset, or no answer: refused, as documented
            await stream._reset()
            if isinstance(exc, trio.TooSlowError):
                await self._drop_connections(target)
            raise ConnectionRefusedError(f"libp2p peer {target}: the new stream broke before it was bound "
                                         f"({type(exc).__name__})") from exc
        except BaseException:
            await stream._reset()
            raise
        return stream


# ----------------------------------------------------------------------------- a circuit relay v2 node

class RelayLimitsSpec:
    """What one relay lets its users spend: protocol.md §3.6, §3.7.

    ``reservations`` in all, ``per_ip`` of them from one IP (an IPv6 /64); ``circuits`` to one peer, ``circuits_per_ip``
    of them from one IP; each circuit ``seconds`` long and ``data`` bytes at most; a reservation lasts
    ``reservation_ttl`` seconds, and no longer than its peer's connection to the relay. The per-IP limits are 8, not
    fewer: every seat of an online table reserves, and a household (or a carrier-grade NAT) is one IP.
    """

    def __init__(self, reservations: int = 64, circuits: int = 64, seconds: int = 3600, data: int = 1 << 30,
                 reservation_ttl: int = 3600, per_ip: int = 8, circuits_per_ip: int = 8) -> None:
        for name, value in (("reservations", reservations), ("circuits", circuits), ("seconds", seconds),
                            ("data", data), ("reservation_ttl", reservation_ttl), ("per_ip", per_ip),
                            ("circuits_per_ip", circuits_per_ip)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"relay limit {name} must be a positive whole number, not {value!r}")
        self.reservations, self.circuits, self.seconds, self.data = reservations, circuits, seconds, data
        self.reservation_ttl = reservation_ttl
        self.per_ip, self.circuits_per_ip = per_ip, circuits_per_ip


class _NoCircuitTable(dict[Any, Any]):
    """Stands in for py-libp2p's table of active circuits: it keeps nothing (see :func:`_circuit_relay_class`)."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def _source_of(stream: Any) -> str:
    """Whom a relay counts a request on ``stream`` against: :func:`~p2php.net.admission.host_key` of the IP its
    connection comes from (an IPv6 /64 as one), or the peer id where the connection shows no IP."""
    ip = remote_ip(stream.muxed_conn)
    return str(stream.muxed_conn.peer_id) if ip is None else host_key(ip)


@functools.cache
def _circuit_relay_class() -> type:
    """py-libp2p's circuit relay v2 (hop), with each circuit torn down on its own, and reservations and circuits
    counted per peer and per IP as protocol.md §3.6 says.

    py-libp2p 0.8 records its open circuits in a table keyed by *peer*, and when either direction of a circuit
    ends it closes whatever that table last recorded for that direction's peer: often another circuit of the
    same peer (a seat's link with a third seat, a spectator's), while the far end of the circuit that ended is
    never told and learns it only when a timeout fires. Through one relay, one broken link so broke the other
    links of both its seats, over and over as they came back (a spectator gave up after three in a row; protocol.md
    §3.7). Here the table keeps nothing, so the library's clean-up finds nothing to close, and each direction,
    once it ends, closes the two streams of its own circuit (the library resets one whose close fails),
    which ends the other direction and tells both ends at once.

    Reservations: py-libp2p 0.8 reserved for whatever peer id the RESERVE message named, not the peer that sent
    it, and kept a reservation its hour whether or not that peer stayed connected: one stranger over one
    connection took all 64 with made-up ids, and no seat could reserve for an hour. Here a RESERVE that names
    another peer is refused (``PERMISSION_DENIED``); a reservation is the authenticated peer's; one whose peer is
    no longer connected is dropped (circuit v2: it lasts as long as that connection); and a new one is refused
    (``RESOURCE_LIMIT_EXCEEDED``) once ``per_ip`` peers from the same IP hold one.

    Circuits: the library's limit is per destination only, so one machine (nine throwaway peer ids) held all 64
    circuits to a seat and its table-mates got "no reservation". Here a new circuit to a peer is refused
    (``RESOURCE_LIMIT_EXCEEDED``) while ``circuits_per_ip`` circuits to it from the same IP are open.
    """
    circuit = _lib("libp2p.relay.circuit_v2.protocol")
    base, status = circuit.CircuitV2Protocol, _lib("libp2p.relay.circuit_v2.protocol_buffer").StatusCode

    class CircuitRelay(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, per_ip: int, circuits_per_ip: int, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._active_relays = _NoCircuitTable()
            self._per_ip, self._circuits_per_ip = per_ip, circuits_per_ip
            self._reserved_from: dict[Any, str] = {}  # peer id -> the IP (host_key) its reservation came from
            self._circuits_from: dict[tuple[bytes, str], int] = {}  # (destination, source IP) -> open circuits

        async def _handle_reserve(self, stream: Any, msg: Any) -> None:
            peer = stream.muxed_conn.peer_id
            if msg.HasField("peer") and msg.peer.id and bytes(msg.peer.id) != peer.to_bytes():
                await self._send_status(stream, status.PERMISSION_DENIED, "a peer reserves for itself only")
                return
            msg.ClearField("peer")  # (the library then takes the connection's peer)
            reservations: dict[Any, Any] = self.resource_manager._reservations
            connections = self.host.get_network().connections
            for other in list(reservations):
                if other != peer and not connections.get(other):
                    del reservations[other]
            for other in [p for p in self._reserved_from if p not in reservations and p != peer]:
                del self._reserved_from[other]
            source = _source_of(stream)
            held = sum(1 for p in reservations if p != peer and self._reserved_from.get(p) == source)
            if not self.resource_manager.has_reservation(peer) and held >= self._per_ip:
                await self._send_status(stream, status.RESOURCE_LIMIT_EXCEEDED, "too many reservations from one IP")
                return
            self._reserved_from[peer] = source
            await super()._handle_reserve(stream, msg)

        async def _handle_connect(self, stream: Any, msg: Any) -> None:
            key = (bytes(msg.peer.id), _source_of(stream))
            if self._circuits_from.get(key, 0) >= self._circuits_per_ip:
                await self._send_status(stream, status.RESOURCE_LIMIT_EXCEEDED,
                                        "too many circuits to this peer from one IP")
                await trio.sleep(0.5)  # (as the library's own refusals: the status is read before the reset)
                with contextlib.suppress(Exception):
                    await stream.reset()
                return
            self._circuits_from[key] = self._circuits_from.get(key, 0) + 1
            try:
                await super()._handle_connect(stream, msg)
            finally:
                self._circuits_from[key] -= 1
                if not self._circuits_from[key]:
                    del self._circuits_from[key]

        async def _relay_data(self, src_stream: Any, dst_stream: Any, *args: Any, **kwargs: Any) -> None:
            try:
                await super()._relay_data(src_stream, dst_stream, *args, **kwargs)
            finally:  # (cancelled: the relay stops, its connections close with it)
                await self._close_stream(src_stream)
                await self._close_stream(dst_stream)

    return CircuitRelay


async def serve_relay(listen: str, limits: RelayLimitsSpec, key_seed: bytes | None = None, *,
                      task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Run a circuit relay v2 node (hop enabled) on ``listen`` until cancelled; ``task_status`` gets its host.

    ``key_seed``: 32 bytes for its Ed25519 key, so a relay that restarts keeps its peer id (and the relay
    addresses in invites stay good); None: a fresh key.
    """
    require_libp2p()
    circuit = _lib("libp2p.relay.circuit_v2")
    service = _lib("libp2p.tools.anyio_service")
    multiaddr = _lib("multiaddr")
    ed25519 = _lib("libp2p.crypto.ed25519")
    # (an operator's per-IP limits raised for many people behind one address must not meet a lower one first)
    host = new_host(ed25519.create_new_key_pair(key_seed) if key_seed else None,
                    inbound_per_ip=max(INBOUND_PER_IP, 2 * limits.per_ip, 2 * limits.circuits_per_ip))
    protocol = _circuit_relay_class()(host, limits=circuit.RelayLimits(
        duration=limits.seconds, data=limits.data, max_circuit_conns=limits.circuits,
        max_reservations=limits.reservations, reservation_ttl=limits.reservation_ttl), allow_hop=True,
        per_ip=limits.per_ip, circuits_per_ip=limits.circuits_per_ip)
    # AutoNAT (server side): a user may ask us to dial it back, only on the IP we see it at, to learn
    # whether others can reach it directly (OnlineSeat.reachability).
    _lib("libp2p.host.autonat.autonat").AutoNATService(host, serve=True)
    async with host.run(listen_addrs=[multiaddr.Multiaddr(listen)]), service.background_trio_service(protocol):
        await protocol.event_started.wait()
        task_status.started(host)
        await trio.sleep_forever()


# ----------------------------------------------------------------------------- a whole table on loopback

class _DialOnHello(trio.abc.HalfCloseableStream):
    """A dialled link whose libp2p stream opens at its first ``send_all``: the mesh's hello names the seat.

    ``run_local_table`` gives every seat the same dial function, but a link must leave from the host of the
    seat that dials (its peer id is what the binding vouches for). The first bytes the mesh sends on a new link
    are its hello frame (§3.2 step 1), whose ``sign_key`` picks that seat's :class:`Libp2pNode`.
    """

    def __init__(self, net: Libp2pLoopback, target: int) -> None:
        self.net, self.target = net, target
        self.inner: Libp2pStream | None = None
        self.remote = net.nodes[target].name
        self._opened = trio.Event()
        self._closed = False

    async def _open(self, data: bytes) -> Libp2pStream:
        decoder = FrameDecoder(_HELLO_LIMIT)
        try:
            decoder.receive_data(data)
            hello = decoder.next_frame()
        except FrameError:
            hello = None
        key = hello.get("sign_key") if isinstance(hello, dict) else None
        node = self.net.by_key.get(key) if isinstance(key, bytes) else None
        if node is None:
            raise trio.BrokenResourceError("the first frame on this link is not the hello of a seat of this network")
        try:
            inner = await self.net.open_from(node, self.target)
        except (OSError, BindingError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise trio.BrokenResourceError(f"cannot open a libp2p stream: {exc}") from exc
        if self._closed:
            await inner.aclose()
            raise trio.ClosedResourceError("this link was closed while it opened")
        self.inner = inner
        self._opened.set()
        return inner

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._closed:
            raise trio.ClosedResourceError("this link is closed")
        if self.inner is None:
            await self._open(bytes(data))
        assert self.inner is not None
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def send_eof(self) -> None:
        if self.inner is None:
            raise trio.ClosedResourceError("nothing was sent on this link yet")
        await self.inner.send_eof()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self.inner is None:
            await self._opened.wait()
        if self._closed or self.inner is None:
            raise trio.ClosedResourceError("this link is closed")
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        self._closed = True
        self._opened.set()
        if self.inner is not None:
            await self.inner.aclose()
        else:
            await trio.lowlevel.checkpoint()


class Libp2pLoopback:
    """A :class:`~p2php.session.local_net.LocalNetwork`: one libp2p host per seat on 127.0.0.1.

    The ``n``-th :meth:`open_listener` is seat ``n``'s host, keyed from ``secrets(n)`` (the same secrets
    ``run_local_table`` gives that seat: pass ``lambda s: seeded_secrets(seed, s)`` and the same ``seed``).
    :meth:`address_of` gives ``(peer id, tcp port)``; :meth:`dial` maps it, through :attr:`directory`, to the
    peer's multiaddrs (or, ``relayed``, to its circuit address on the local relay). Use
    :func:`libp2p_loopback`, which runs the hosts and the relay for the length of an ``async with`` block.
    """

    def __init__(self, nursery: trio.Nursery, secrets: Callable[[int], LocalSecrets], relayed: bool = False,
                 punch: bool = False) -> None:
        require_libp2p()
        self.nursery = nursery
        self.secrets = secrets
        self.relayed = relayed or punch
        self.punch = punch
        self.relay: Any = None  # the relay's host, once started
        self.relay_addr: str | None = None
        self.nodes: list[Libp2pNode] = []
        self.by_key: dict[bytes, Libp2pNode] = {}
        self.directory: dict[str, tuple[int, bytes, list[str]]] = {}  # peer id -> (seat, peer id bytes, addrs)
        self.seats: set[str] = set()  # the peer ids of every host here
        self.carried: dict[tuple[int, int], str] = {}
        self.watchers: dict[int, Callable[[int, str], None]] = {}
        """seat -> told ``(other seat, how)`` when how a link of that seat is carried changes."""

    async def start_relay(self) -> None:
        """A local circuit relay v2 node (hop enabled) on 127.0.0.1, for every relayed link."""
        # (every host here is on this machine, so one IP: the per-IP limits would only cap the table's size)
        limits = RelayLimitsSpec(per_ip=RelayLimitsSpec().reservations, circuits_per_ip=RelayLimitsSpec().circuits)
        self.relay = await self.nursery.start(serve_relay, "/ip4/127.0.0.1/tcp/0", limits)
        self.relay_addr = str(self.relay.get_addrs()[0])

    async def open_listener(self) -> Libp2pListener:
        if self.relayed and self.relay is None:
            await self.start_relay()
        seat = len(self.nodes)
        # Forced relaying: the hosts listen nowhere, so no direct path exists to be found (identify would
        # otherwise teach each peer the others' addresses). To try hole punching they listen on 127.0.0.1.
        listen = "/ip4/127.0.0.1/tcp/0" if self.punch or not self.relayed else None
        node = Libp2pNode(self.secrets(seat), listen=listen, relay=self.relay_addr if self.relayed else None,
                          punch=self.punch)
        node.seats = self.seats  # every host here is a seat of the one table (DCUtR runs between any two)
        self.seats.add(node.name)
        await self.nursery.start(node.run)
        self.nodes.append(node)
        self.by_key[node.sign_key] = node
        self.directory[node.name] = (seat, node.peer_id, node.addrs())
        assert node.listener is not None
        return node.listener

    def address_of(self, listener: Listener) -> tuple[str, int]:
        assert isinstance(listener, Libp2pListener)
        addrs = listener.node.addrs()
        port = next((int(a.split("/tcp/")[1].split("/")[0]) for a in addrs if "/tcp/" in a), 0)
        return listener.node.name, port

    async def dial(self, host: str, port: int) -> trio.abc.HalfCloseableStream:
        entry = self.directory.get(host)
        if entry is None:
            raise ConnectionRefusedError(f"no libp2p peer {host} in this network's directory")
        await trio.lowlevel.checkpoint()
        return _DialOnHello(self, entry[0])

    async def open_from(self, node: Libp2pNode, target: int) -> Libp2pStream:
        seat = self.nodes.index(node)
        _, peer_id, addrs = self.directory[self.nodes[target].name]
        stream = await node.open(peer_id, addrs, via_relay=self.relay_addr if self.relayed else None)
        pair = (min(seat, target), max(seat, target))
        if self.carried.get(pair) != stream.carried:
            self.carried[pair] = stream.carried
            for me, other in ((seat, target), (target, seat)):
                if me in self.watchers:
                    self.watchers[me](other, stream.carried)
        return stream

    def links(self) -> dict[str, str]:
        """How each pair of seats is carried, ``"0-1": "direct" | "relayed" | "hole-punched"`` (its last stream)."""
        return {f"{a}-{b}": kind for (a, b), kind in sorted(self.carried.items())}


@asynccontextmanager
async def libp2p_loopback(secrets: Callable[[int], LocalSecrets], relayed: bool = False, punch: bool = False
                          ) -> AsyncIterator[Libp2pLoopback]:
    """A :class:`Libp2pLoopback` whose hosts (and relay) run as long as the ``async with`` block.

    ``relayed``: every link through a local relay (the hosts listen nowhere else). ``punch``: peers meet
    through the relay, then try DCUtR for a direct connection (on loopback it always succeeds: nothing blocks
    a direct dial there, so DCUtR's first step, a plain dial, does it; a NAT needs the real punch).
    """
    async with trio.open_nursery() as nursery:
        yield Libp2pLoopback(nursery, secrets, relayed, punch)
        nursery.cancel_scope.cancel()
