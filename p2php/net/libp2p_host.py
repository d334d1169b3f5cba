"""The py-libp2p host every p2php node runs (a seat's, a relay's), with three of the library's habits changed.

* **A yamux ping is answered beside the reader, never by it.** py-libp2p 0.8's yamux answers a peer's ping from
  its one reading task, and waits for the connection's write lock to do it. While a stream's writer holds that
  lock, blocked because the peer's socket is full, the reader stops reading; if the peer's reader is in the same
  place (both ends sending a lot, and both ends ping 0.5 s after connecting and every 30 s after) neither socket
  drains again and the connection is dead for good: every stream on it, and every redial, which reuses it. Found
  by trio's stream conformance check (both ends send 1 MiB at once), which stalled one run in a few dozen under
  load. Here the answer goes to a task of its own, so the reader always reads on; at most one answer waits (a
  ping is only a round-trip measurement: a peer that pings faster than we can answer is not answered more).
* **No dials of its own.** py-libp2p's ``AutoConnector`` dials the peers its peerstore knows, to keep 50 to 300
  connections open (a DHT node's policy): any peer that once connected, at the addresses that peer announced.
  A seat dials the seats of its table and its relay, and a relay dials nobody; left on, a stranger could have
  our node dial addresses of its choosing, again and again.
* **Hole punching (DCUtR) only with the seats of our table, a few addresses, a few times a minute.** py-libp2p
  0.8 answers DCUtR from any peer that reaches us (through our relay: anyone who has our locator, which an
  invite carries), and then dials every address the peer lists in its CONNECT, three rounds, as many sessions at
  once as it opens; its own loop also dials, every 2 s, whatever addresses any peer connected through a relay
  announced (identify keeps up to 1000). A stranger so had a seat open thousands of TCP connections to a third
  party of its choosing, its own LAN included. Here (:func:`new_dcutr`) a session is answered, and one of ours
  started, only with a peer the node says ``may_punch`` (a seat of its table, or a peer it dials a mesh stream
  to); at most :data:`PUNCH_ANSWERS` sessions a peer are answered per :data:`PUNCH_WINDOW`, one at a time (a
  new one replaces the old: the peer started again); each step dials at most :data:`PUNCH_ADDRS` of the peer's
  addresses, only ``/ip4|ip6/…/tcp/…`` ones that :func:`dcutr_dialable` allows, and at most
  :data:`PUNCH_DIALS` dials a peer per window in all. No UDP is sprayed: our hosts speak TCP only.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import ipaddress
import struct
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any

import trio

from p2php.net.admission import host_key

__all__ = ["ADMIT_WAIT", "INBOUND_PER_IP", "MAX_BUFFERED", "PUNCH_ADDRS", "PUNCH_ANSWERS", "PUNCH_DIALS",
           "PUNCH_WINDOW", "dcutr_dialable", "ip_kind", "new_dcutr", "new_host", "ping_answer", "remote_ip"]

_HEADER = struct.Struct(">BBHII")  # yamux: version, type, flags, stream id, length (the spec's 12-byte header)
_DEFAULT_WINDOW = 256 * 1024  # yamux's initial receive window a stream

INBOUND_PER_IP = 16
"""Inbound connections a node holds at once from one IP, an IPv6 /64 (py-libp2p's own cap, 250, is for everyone
together, and taken before any handshake)."""

MAX_BUFFERED = 32 << 20
"""Bytes a peer may have waiting unread on one connection, all streams together, before it is closed."""
_TYPE_PING = 2
_FLAG_ACK = 2

PUNCH_ADDRS = 4
"""Addresses of a peer that one hole-punching step (a DCUtR session, a plain direct try first) may dial."""
PUNCH_ANSWERS = 3
"""DCUtR sessions a peer may have answered per :data:`PUNCH_WINDOW` (a DCUtR initiator tries three times)."""
PUNCH_DIALS = PUNCH_ANSWERS * 3 * PUNCH_ADDRS
"""Dial attempts toward one peer's addresses per :data:`PUNCH_WINDOW`, all hole-punching steps together (what the
sessions answered in a window need: three rounds each). py-libp2p's swarm tries a failed attempt again up to 3
times, so that is up to 4 TCP connections an attempt."""
PUNCH_WINDOW = 60.0
"""Seconds over which :data:`PUNCH_ANSWERS` and :data:`PUNCH_DIALS` are counted."""
ADMIT_WAIT = 2.0
"""Seconds a DCUtR session from a peer we may not punch with waits to become one before it is refused: a seat's
first dial can come before our side of the table has started (and been told its seats)."""
_NEVER = tuple(ipaddress.ip_network(n) for n in ("0.0.0.0/8", "255.255.255.255/32"))
_LOCAL = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16", "fc00::/7", "fe80::/10",
    "fec0::/10"))


def ping_answer(frame: bytes) -> bool:
    """Whether ``frame`` is a yamux ping's answer (a header alone: type ping, flag ACK)."""
    if len(frame) != _HEADER.size:
        return False
    _, kind, flags, _, _ = _HEADER.unpack(frame)
    return kind == _TYPE_PING and bool(flags & _FLAG_ACK)


@functools.cache
def _yamux_class() -> type:
    """py-libp2p's yamux, whose reader hands a ping's answer to a task of its own (see the module's docstring)."""
    base = importlib.import_module("libp2p.stream_muxer.yamux.yamux").Yamux

    class Yamux(base):  # type: ignore[misc, valid-type]
        _answer_waiting = False

        async def _write_frame(self, data: bytes) -> None:
            nursery = self._nursery
            if nursery is None or not ping_answer(data):
                await super()._write_frame(data)
            elif not self._answer_waiting:
                self._answer_waiting = True
                nursery.start_soon(self._answer, data)

        async def _read_data_body(self, length: int) -> bytes:
            # py-libp2p only logs a DATA frame past the receive window we granted, and buffers it: a peer could
            # so fill our memory without end on a stream nobody reads. Past every window granted, the connection
            # ends (the library's own timeout path closes it cleanly).
            granted = sum(s.target_recv_window for s in self.streams.values()) + _DEFAULT_WINDOW
            buffered = sum(len(b) for b in self.stream_buffers.values())
            if buffered + length > min(granted, MAX_BUFFERED):
                raise trio.TooSlowError(f"peer {self.peer_id} sent past the receive windows we granted")
            return bytes(await super()._read_data_body(length))

        async def _answer(self, data: bytes) -> None:
            try:
                await super()._write_frame(data)
            except Exception:  # noqa: BLE001 - the connection broke: its reader finds out and ends it
                pass
            finally:
                self._answer_waiting = False

    return Yamux


def remote_ip(muxed_conn: Any) -> str | None:
    """The IP a libp2p connection's other end connects from (a relayed one's: the relay's), or None where the
    connection cannot say (a muxer without the call, a connection half gone)."""
    with contextlib.suppress(Exception):
        address = muxed_conn.get_remote_address()
        if address and address[0]:
            return str(address[0])
    return None


def ip_kind(ip: str) -> str | None:
    """``"loopback"``, ``"private"`` (a LAN's, link-local, carrier-grade NAT's), ``"public"`` (anything else one
    can dial), or None: not an address one dials (unspecified, multicast, reserved, not an IP at all)."""
    try:
        address = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return "loopback"
    if address.is_unspecified or address.is_multicast or address.is_reserved \
            or any(address in net for net in _NEVER if net.version == address.version):
        return None
    if any(address in net for net in _LOCAL if net.version == address.version):
        return "private"
    return "public"


def dcutr_dialable(addr: str, seen: Collection[str]) -> bool:
    """Whether hole punching may dial ``addr`` (a multiaddr's text) for a peer we see at IPs of the kinds ``seen``
    (:func:`ip_kind` of the remote IP of each of our connections with it: a relayed one's is the relay's).

    Only ``/ip4|ip6/IP/tcp/PORT`` (with at most a ``/p2p/ID`` after it): no names to resolve, no other transport.
    A public IP, always; a loopback or private one only if we see the peer at such an IP itself (it is on this
    machine, or on the LAN, or the relay between us is): a stranger's list must not turn us onto our own LAN.
    """
    parts = addr.split("/")
    if len(parts) not in (5, 7) or parts[0] or parts[1] not in ("ip4", "ip6") or parts[3] != "tcp" \
            or (len(parts) == 7 and parts[5] != "p2p"):
        return False
    if not parts[4].isdigit() or not 0 < int(parts[4]) < 65536:
        return False
    kind = ip_kind(parts[2])
    return kind == "public" or (kind is not None and kind in seen)


@functools.cache
def _dcutr_class() -> type:
    """py-libp2p's DCUtR, answering and dialling only as the module's docstring says."""
    base = importlib.import_module("libp2p.relay.circuit_v2.dcutr").DCUtRProtocol

    class DCUtR(base):  # type: ignore[misc, valid-type]
        def __init__(self, host: Any, may_punch: Callable[[Any], bool]) -> None:
            super().__init__(host)
            self.may_punch = may_punch
            self._answering: dict[Any, trio.CancelScope] = {}  # peer -> the scope of the session we answer
            self._waiting: set[Any] = set()  # peers whose session waits to be admitted (one each)
            self._answered: dict[Any, list[float]] = {}  # peer -> when sessions were answered (in the window)
            self._dials: dict[Any, list[float]] = {}  # peer -> when we dialled its addresses (in the window)
            self._chosen: dict[Any, list[frozenset[str]]] = {}  # peer -> the addresses its running steps may dial

        async def _handle_dcutr_stream(self, stream: Any) -> None:
            peer = stream.muxed_conn.peer_id
            if not await self._admitted(peer) or not _within(self._answered, peer, PUNCH_ANSWERS):
                await _reset(stream)
                return
            old = self._answering.pop(peer, None)
            if old is not None:
                old.cancel()
            scope = self._answering[peer] = trio.CancelScope()
            try:
                with scope:
                    await super()._handle_dcutr_stream(stream)
            finally:
                if self._answering.get(peer) is scope:
                    del self._answering[peer]
            if scope.cancelled_caught:
                await _reset(stream)

        async def _admitted(self, peer: Any) -> bool:
            if self.may_punch(peer):
                return True
            if peer in self._waiting:
                return False
            self._waiting.add(peer)
            try:
                with trio.move_on_after(ADMIT_WAIT):
                    while not self.may_punch(peer):
                        await trio.sleep(0.1)
                    return True
                return False
            finally:
                self._waiting.discard(peer)

        async def initiate_hole_punch(self, peer_id: Any) -> bool:
            if not self.may_punch(peer_id):  # (its own loop asks for every peer met through a relay)
                await trio.lowlevel.checkpoint()
                return False
            return bool(await super().initiate_hole_punch(peer_id))

        async def _try_unilateral_upgrade(self, peer_id: Any) -> bool:
            with self._choosing(peer_id, []):
                return bool(await super()._try_unilateral_upgrade(peer_id))

        async def _perform_hole_punch(self, peer_id: Any, addrs: list[Any], as_responder: bool = False) -> bool:
            with self._choosing(peer_id, addrs):
                return bool(await super()._perform_hole_punch(peer_id, addrs, as_responder))

        async def _dial_peer(self, peer_id: Any, addr: Any, source: Any = None, as_responder: bool = False) -> None:
            if not any(str(addr) in chosen for chosen in self._chosen.get(peer_id, ())) \
                    or not _within(self._dials, peer_id, PUNCH_DIALS):
                await trio.lowlevel.checkpoint()
                return
            await super()._dial_peer(peer_id, addr, source, as_responder)

        async def _spam_udp_for_hole_punch(self, addr: Any, stop: Any) -> None:
            await trio.lowlevel.checkpoint()  # QUIC's spray: our hosts speak TCP only

        @contextlib.contextmanager
        def _choosing(self, peer_id: Any, first: list[Any]) -> Iterator[None]:
            """While a step runs, the addresses it may dial: the first :data:`PUNCH_ADDRS` dialable ones of
            ``first`` (a CONNECT's), then of those the peerstore holds for the peer."""
            try:
                known = list(self.host.get_peerstore().addrs(peer_id))
            except Exception:  # noqa: BLE001 - a peer the peerstore does not know
                known = []
            seen = self._seen(peer_id)
            chosen: list[str] = []
            for addr in map(str, [*first, *known]):
                if len(chosen) < PUNCH_ADDRS and addr not in chosen and dcutr_dialable(addr, seen):
                    chosen.append(addr)
            steps = self._chosen.setdefault(peer_id, [])
            steps.append(frozenset(chosen))
            try:
                yield
            finally:
                steps.remove(frozenset(chosen))
                if not steps:
                    self._chosen.pop(peer_id, None)

        def _seen(self, peer_id: Any) -> set[str]:
            """The kinds of IP we see ``peer_id`` at: each connection's remote IP (a relayed one's: the relay's)."""
            conns = (getattr(self.host.get_network(), "connections", {}) or {}).get(peer_id) or []
            kinds = set()
            for conn in conns if isinstance(conns, list) else [conns]:
                ip = remote_ip(getattr(conn, "muxed_conn", None))  # (a connection half gone: nothing seen)
                kind = None if ip is None else ip_kind(ip)
                if kind is not None:
                    kinds.add(kind)
            return kinds

    return DCUtR


def _within(times: dict[Any, list[float]], peer: Any, limit: int) -> bool:
    """Count one more event of ``peer`` in ``times`` if fewer than ``limit`` fell in the last :data:`PUNCH_WINDOW`."""
    now = trio.current_time()
    recent = [t for t in times.get(peer, ()) if now - t < PUNCH_WINDOW]
    if len(times) > 256:  # peers that went quiet are forgotten
        for other in [p for p, ts in times.items() if not ts or now - ts[-1] >= PUNCH_WINDOW]:
            del times[other]
    if len(recent) >= limit:
        times[peer] = recent
        return False
    times[peer] = [*recent, now]
    return True


async def _reset(stream: Any) -> None:
    with trio.CancelScope(shield=True), trio.move_on_after(1.0), contextlib.suppress(Exception):
        await stream.reset()


def new_dcutr(host: Any, may_punch: Callable[[Any], bool]) -> Any:
    """py-libp2p's DCUtR service for ``host``, which punches only with peers ``may_punch(peer id)`` allows, a few
    addresses a few times a minute (see the module's docstring). Run it as the library's own."""
    return _dcutr_class()(host, may_punch)


@dataclass
class _Inbound:
    """One inbound connection's handler, as :func:`_bound_inbound` runs it."""

    nursery: trio.Nursery
    scope: trio.CancelScope


_INBOUND: contextvars.ContextVar[_Inbound | None] = contextvars.ContextVar("p2php_inbound", default=None)


def _bound_inbound(network: Any, per_ip: int) -> None:
    """Two bounds on py-libp2p's inbound connections (its 250 slots are the whole node's, taken before Noise).

    * At most ``per_ip`` at once from one IP (an IPv6 /64): one IP's silent sockets, reopened as they were closed,
      took every slot, and no seat could reserve at the relay.
    * A slot comes back when its connection ends. py-libp2p's handler holds it until the whole node stops (it waits
      on the swarm's manager to keep the connection's task alive): after 250 connections in its life, however
      short, a relay or a seat took none again. Its upgrade, called in the handler's own task, tells us the
      connection; once that closes, the handler is cancelled. (The upgrade is also called for a relayed
      connection, from other tasks: those are left as they are.)
    """
    upgrade = network.upgrade_inbound_raw_conn
    handle = network._handle_inbound_connection
    held: dict[str, int] = {}

    async def upgrade_noted(raw_conn: Any, maddr: Any) -> Any:
        muxed = await upgrade(raw_conn, maddr)
        inbound = _INBOUND.get()
        if inbound is not None:
            inbound.nursery.start_soon(_cancel_when_closed, muxed, inbound.scope)
        return muxed

    async def admit(read_write_closer: Any, maddr: Any) -> None:
        try:
            address = read_write_closer.get_remote_address()
        except Exception:  # noqa: BLE001 - a transport that cannot say: counted together
            address = None
        key = host_key(str(address[0])) if address else "?"
        if held.get(key, 0) >= per_ip:
            with contextlib.suppress(Exception):
                await read_write_closer.close()
            return
        held[key] = held.get(key, 0) + 1
        try:
            async with trio.open_nursery() as nursery:
                with trio.CancelScope() as scope:
                    token = _INBOUND.set(_Inbound(nursery, scope))
                    try:
                        await handle(read_write_closer, maddr)
                    finally:
                        _INBOUND.reset(token)
                nursery.cancel_scope.cancel()  # (the watcher, if the handler ended first)
        finally:
            held[key] -= 1
            if not held[key]:
                del held[key]

    network.upgrade_inbound_raw_conn = upgrade_noted
    network._handle_inbound_connection = admit


async def _cancel_when_closed(muxed: Any, scope: trio.CancelScope) -> None:
    await muxed.event_closed.wait()
    scope.cancel()


async def _stay_off() -> None:
    """Stands in for ``AutoConnector.start``: the connector never starts, so it never dials."""


def new_host(key_pair: Any, inbound_per_ip: int = INBOUND_PER_IP) -> Any:
    """A py-libp2p host with ``key_pair`` (None: a new one), whose yamux connections answer pings beside their
    reader, which never dials on its own, and which holds at most ``inbound_per_ip`` inbound connections from one
    IP at once. py-libp2p must be importable (``require_libp2p`` says so)."""
    host = importlib.import_module("libp2p").new_host(key_pair=key_pair)
    network = host.get_network()
    muxers = network.upgrader.muxer_multistream
    negotiated = muxers.new_conn
    ours = _yamux_class()

    async def new_conn(conn: Any, peer_id: Any) -> Any:
        # py-libp2p builds its own Yamux whatever class it is given for the protocol: it becomes ours before
        # it starts (ours only overrides methods, so it is the same object with the same state).
        muxed = await negotiated(conn, peer_id)
        if type(muxed) is ours.__base__:
            muxed.__class__ = ours
        return muxed

    muxers.new_conn = new_conn
    _bound_inbound(network, inbound_per_ip)
    connector = getattr(network, "auto_connector", None)
    if connector is not None:
        connector.start = _stay_off
    return host
