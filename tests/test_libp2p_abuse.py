"""Strangers against a seat's libp2p node and against our relay: what they can no longer make them do.

Each test replays a red-team finding over real py-libp2p nodes on loopback (protocol.md §3.6): a stranger who
reaches a seat through the relay makes it dial addresses of its choosing with DCUtR; one connection to a relay
takes every reservation with made-up peer ids; one machine holds every circuit to a seat. Skipped where
py-libp2p (the ``p2php[internet]`` extra) is not installed.
"""

from __future__ import annotations

import contextlib
import inspect
import struct
from functools import partial
from typing import Any

import pytest
import trio

pytest.importorskip("libp2p", reason="py-libp2p is not installed (pip install 'p2php[internet]'): "
                                     "the libp2p transport is not tested here")

import p2php.net.libp2p as p2p_libp2p  # noqa: E402
import p2php.net.libp2p_host as p2p_host  # noqa: E402
from p2php.net.libp2p import Libp2pNode, RelayLimitsSpec, _lib, serve_relay  # noqa: E402
from p2php.net.libp2p_host import PUNCH_ADDRS, PUNCH_ANSWERS, PUNCH_DIALS, dcutr_dialable, ip_kind, new_host  # noqa: E402
from p2php.session.handshake import LocalSecrets  # noqa: E402

THIRD_PARTY = "127.0.0.5"  # "someone else": loopback, so the seat (which sees its peers on loopback) could dial it
OK, RESOURCE_LIMIT_EXCEEDED, PERMISSION_DENIED = 100, 201, 202  # circuit v2 status codes


async def _victims(nursery: trio.Nursery, count: int, hits: dict[int, int]) -> list[int]:
    """``count`` TCP listeners of a third party; ``hits`` counts the connections each port gets."""

    async def note(stream: trio.SocketStream) -> None:
        port = stream.socket.getsockname()[1]
        hits[port] = hits.get(port, 0) + 1
        await stream.aclose()

    ports = []
    for _ in range(count):
        listeners = await nursery.start(partial(trio.serve_tcp, note, 0, host=THIRD_PARTY))
        ports.append(listeners[0].socket.getsockname()[1])
    return ports


async def _relay(nursery: trio.Nursery, limits: RelayLimitsSpec | None = None) -> tuple[Any, str]:
    relay = await nursery.start(serve_relay, "/ip4/127.0.0.1/tcp/0", limits or RelayLimitsSpec())
    return relay, f"{relay.get_transport_addrs()[0]}/p2p/{relay.get_id()}"


def _relay_protocol(relay: Any) -> Any:
    """The circuit relay v2 service a relay host (from :func:`_relay`) runs: its HOP handler's own object."""
    return relay.get_mux().handlers[_lib("libp2p.relay.circuit_v2").PROTOCOL_ID].__self__


async def _seat_and_stranger(nursery: trio.Nursery) -> tuple[Libp2pNode, Libp2pNode, str]:
    """A seat that hole-punches (it listens and holds a reservation, as every OnlineSeat with a relay does) and a
    stranger connected to it through the relay, as anyone with the seat's locator (an invite) can be."""
    _, address = await _relay(nursery)
    seat = Libp2pNode(LocalSecrets(), listen="/ip4/127.0.0.1/tcp/0", relay=address, punch=True)
    stranger = Libp2pNode(LocalSecrets(), listen=None, relay=address)
    await nursery.start(seat.run)
    await nursery.start(stranger.run)
    return seat, stranger, address


async def _dcutr_session(host: Any, target: Any, addrs: list[str]) -> bool:
    """One DCUtR session as the red-team's stranger runs it: CONNECT listing ``addrs``, then SYNC, upon which the
    other end dials them. Whether the other end answered (sent its CONNECT)."""
    dcutr = _lib("libp2p.relay.circuit_v2.dcutr")
    utils = _lib("libp2p.relay.circuit_v2.utils")
    punch = _lib("libp2p.relay.circuit_v2.pb.dcutr_pb2").HolePunch
    multiaddr = _lib("multiaddr")
    try:
        with trio.fail_after(5):
            stream = await host.new_stream(target, [dcutr.PROTOCOL_ID])
            await utils.write_delimited_msg(stream, punch(type=punch.CONNECT,
                                                          ObsAddrs=[multiaddr.Multiaddr(a).to_bytes() for a in addrs]))
            if (await dcutr.read_dcutr_msg(stream, punch)).type != punch.CONNECT:
                return False
            await utils.write_delimited_msg(stream, punch(type=punch.SYNC))
            return True
    except Exception:  # noqa: BLE001 - refused: the stream was reset
        return False


def _addrs(ports: list[int]) -> list[str]:
    return [f"/ip4/{THIRD_PARTY}/tcp/{port}" for port in ports]


async def test_a_stranger_met_through_the_relay_cannot_make_a_seat_dial_addresses_of_its_choosing() -> None:
    """Red team (dcutr_dial_anywhere): 3 DCUtR sessions x 120 addresses made a seat open 3 656 connections to a
    third party; and py-libp2p's own loop dialled, every 2 s, what any peer met through a relay announced."""
    hits: dict[int, int] = {}
    multiaddr = _lib("multiaddr")
    async with trio.open_nursery() as nursery:
        ports = await _victims(nursery, 24, hits)
        seat, stranger, address = await _seat_and_stranger(nursery)
        announced = [multiaddr.Multiaddr(a) for a in _addrs(ports[:8])]
        stranger.host.get_addrs = lambda: announced  # what identify tells the seat the stranger listens on
        with trio.fail_after(10):
            await stranger.transport.dial(multiaddr.Multiaddr(f"{address}/p2p-circuit/p2p/{seat.name}"))
        answered: list[bool] = []

        async def session(addrs: list[str]) -> None:
            answered.append(await _dcutr_session(stranger.host, seat.host.get_id(), addrs))

        async with trio.open_nursery() as sessions:
            for _ in range(3):
                sessions.start_soon(session, _addrs(ports[8:]))
        await trio.sleep(2.5)  # (py-libp2p's loop looks every 2 s)
        nursery.cancel_scope.cancel()
    assert answered == [False] * 3
    assert hits == {}


async def test_a_table_mate_gets_a_few_sessions_a_minute_each_dialling_a_few_of_its_addresses() -> None:
    """Even a seat of our table (it may punch with us) has at most PUNCH_ANSWERS sessions answered a minute, and
    each dials at most PUNCH_ADDRS of the addresses it lists (its own loop's plain try: PUNCH_ADDRS more)."""
    hits: dict[int, int] = {}
    async with trio.open_nursery() as nursery:
        ports = await _victims(nursery, 40, hits)
        seat, mate, address = await _seat_and_stranger(nursery)
        seat.seats.add(mate.name)
        with trio.fail_after(10):
            await mate.transport.dial(_lib("multiaddr").Multiaddr(f"{address}/p2p-circuit/p2p/{seat.name}"))
        lists = [ports[i * 8:(i + 1) * 8] for i in range(5)]
        answered = []
        for ours in lists:  # one after another: each answered one replaces the one before
            answered.append(await _dcutr_session(mate.host, seat.host.get_id(), _addrs(ours)))
            await trio.sleep(0.8)  # (the first round dials at once)
        await trio.sleep(0.5)  # (the third party accepts the last of them)
        nursery.cancel_scope.cancel()
    assert answered == [True] * PUNCH_ANSWERS + [False] * (5 - PUNCH_ANSWERS)
    assert not set(hits) & set(lists[3] + lists[4])  # refused sessions dial nothing
    for ours in lists[:3]:
        assert len(set(hits) & set(ours)) >= 1
    assert len(hits) <= (PUNCH_ANSWERS + 1) * PUNCH_ADDRS, hits
    assert sum(hits.values()) <= 4 * PUNCH_DIALS, hits  # (py-libp2p's swarm tries a failed dial 4 times)


def test_hole_punching_dials_public_addresses_and_local_ones_only_for_a_peer_seen_there() -> None:
    seen_public, seen_lan, seen_here = {"public"}, {"private"}, {"loopback"}
    assert dcutr_dialable("/ip4/203.0.113.7/tcp/4001", seen_public)
    assert dcutr_dialable("/ip6/2001:db8::1/tcp/4001/p2p/12D3KooWAg32d38pkErNFDRWQtUqRgCVtY5u73w46rzxmu8RxNDs", set())
    for lan in ("10.1.2.3", "172.16.0.9", "192.168.1.20", "100.64.0.1", "169.254.1.1"):
        assert not dcutr_dialable(f"/ip4/{lan}/tcp/80", seen_public) and dcutr_dialable(f"/ip4/{lan}/tcp/80", seen_lan)
    assert not dcutr_dialable("/ip6/fd00::1/tcp/80", seen_public) and dcutr_dialable("/ip6/fd00::1/tcp/80", seen_lan)
    assert not dcutr_dialable("/ip4/127.0.0.1/tcp/80", seen_lan) and dcutr_dialable("/ip4/127.0.0.1/tcp/80", seen_here)
    assert not dcutr_dialable("/ip6/::ffff:192.168.0.1/tcp/80", seen_public)
    for never in ("/ip4/0.0.0.0/tcp/80", "/ip4/224.0.0.1/tcp/80", "/ip4/255.255.255.255/tcp/80", "/ip4/1.2.3.4/tcp/0",
                  "/dns4/example.com/tcp/80", "/ip4/1.2.3.4/udp/80/quic-v1", "/ip4/1.2.3.4/tcp/80/ws",
                  "/ip4/1.2.3.4/tcp/80/p2p/X/p2p-circuit", "/ip4/1.2.3.4/tcp/99999", "ip4/1.2.3.4/tcp/80"):
        assert not dcutr_dialable(never, seen_public | seen_lan | seen_here), never
    kinds = [ip_kind(a) for a in ("::1", "fe80::1%eth0", "8.8.8.8", "nonsense")]
    assert kinds == ["loopback", "private", "public", None]


def test_hole_punching_reads_each_part_of_an_address_at_its_exact_bounds() -> None:
    """The edges of :func:`dcutr_dialable` and :func:`ip_kind` that the test above leaves open (mutation run of
    2026-12-07): the port's two ends, a 7-part address whose fifth part is not ``p2p``, IPv4 seen through a
    dual-stack socket (``::ffff:a.b.c.d``, as a remote IP can be), and 0.0.0.0/8 beyond 0.0.0.0 itself."""
    public = {"public"}
    assert dcutr_dialable("/ip4/203.0.113.7/tcp/1", public) and dcutr_dialable("/ip4/203.0.113.7/tcp/65535", public)
    assert not dcutr_dialable("/ip4/203.0.113.7/tcp/65536", public)
    assert not dcutr_dialable("/ip4/203.0.113.7/tcp/80/tls/ws", public)  # 7 parts, not /p2p/ID
    assert dcutr_dialable("/ip4/203.0.113.7/tcp/80/p2p/12D3KooWAg32d38pkErNFDRWQtUqRgCVtY5u73w46rzxmu8RxNDs", public)
    mapped = [ip_kind(f"::ffff:{v4}") for v4 in ("8.8.8.8", "192.168.1.5", "127.0.0.1")]
    assert mapped == ["public", "private", "loopback"]  # the IPv4 address's kind, not "reserved" (::/8)
    assert ip_kind("0.1.2.3") is None and ip_kind("0.0.0.0") is None
    assert dcutr_dialable("/ip4/192.168.1.20/tcp/80", {ip_kind("::ffff:192.168.1.5") or ""})


async def _hop(host: Any, relay: Any, kind: str, peer: bytes | None) -> tuple[int, Any]:
    """One HOP message (RESERVE or CONNECT) to ``relay``: the status it answers, and the stream (kept open)."""
    circuit = _lib("libp2p.relay.circuit_v2")
    pb = _lib("libp2p.relay.circuit_v2.pb.circuit_pb2")
    utils = _lib("libp2p.relay.circuit_v2.utils")
    stream = await host.new_stream(relay, [circuit.PROTOCOL_ID])
    msg = pb.HopMessage(type=getattr(pb.HopMessage, kind))
    if peer is not None:
        msg.peer.id = peer
    await utils.write_delimited_msg(stream, msg)
    with trio.fail_after(10):
        answer = await utils.read_delimited_msg(stream, pb.HopMessage)
    return answer.status, stream


async def _identify_stream(relay: Any, stranger: Any) -> tuple[Any, Any]:
    """A stranger's identify stream to the relay (which answers it and never reads it again), and the relay's side of
    their connection."""
    identify = _lib("libp2p.identity.identify.identify")
    stream = await stranger.new_stream(relay.get_id(), [identify.ID])
    (muxed,) = _muxed_conns(relay, stranger.get_id())
    return stream, muxed


@contextlib.asynccontextmanager
async def _hosts(count: int, relay: Any, address: str) -> Any:
    """``count`` bare py-libp2p hosts, each connected to the relay."""
    peerinfo = _lib("libp2p.peer.peerinfo")
    multiaddr = _lib("multiaddr")
    async with contextlib.AsyncExitStack() as stack:
        hosts = []
        for _ in range(count):
            host = new_host(None)
            await stack.enter_async_context(host.run(listen_addrs=[]))
            await host.connect(peerinfo.info_from_p2p_addr(multiaddr.Multiaddr(address)))
            hosts.append(host)
        yield hosts


async def test_a_peer_reserves_only_for_itself_so_one_connection_cannot_take_every_reservation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team (relay_reservation_exhaust): py-libp2p reserved for the peer id the RESERVE named; 64 made-up
    ids over one connection took every reservation, and no seat could reserve for an hour."""
    monkeypatch.setattr(p2p_libp2p, "RESERVE_PATIENCE", 2.0)  # (a refused seat would try for 10 s)
    ed25519 = _lib("libp2p.crypto.ed25519")
    peer_id = _lib("libp2p.peer.id").ID
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery)
        async with _hosts(1, relay, address) as (evil,):
            statuses = []
            for _ in range(64):
                made_up = peer_id.from_pubkey(ed25519.create_new_key_pair().public_key).to_bytes()
                statuses.append((await _hop(evil, relay.get_id(), "RESERVE", made_up))[0])
            seat = Libp2pNode(LocalSecrets(), listen=None, relay=address)
            with trio.fail_after(10):
                await nursery.start(seat.run)  # gets a reservation
            assert set(statuses) == {PERMISSION_DENIED}
            assert not _relay_protocol(relay).resource_manager.has_reservation(evil.get_id())  # refused: nothing held
            assert (await _hop(evil, relay.get_id(), "RESERVE", evil.get_id().to_bytes()))[0] == OK  # its own
        nursery.cancel_scope.cancel()


async def test_one_ip_holds_at_most_per_ip_reservations_while_its_peers_stay_connected() -> None:
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery, RelayLimitsSpec(per_ip=2))

        async def reserve(host: Any) -> int:
            return (await _hop(host, relay.get_id(), "RESERVE", None))[0]

        async with _hosts(3, relay, address) as (first, second, third):
            assert [await reserve(h) for h in (first, second, third)] == [OK, OK, RESOURCE_LIMIT_EXCEEDED]
            manager = _relay_protocol(relay).resource_manager
            assert not manager.has_reservation(third.get_id())  # refused: nothing reserved behind the status
            assert await reserve(first) == OK  # renewing is no new reservation
            await relay.get_network().close_peer(second.get_id())  # a reservation lasts as long as its connection
            with trio.fail_after(5):
                while relay.get_network().connections.get(second.get_id()):
                    await trio.sleep(0.05)
            assert await reserve(third) == OK
            # and whom reservations came from is forgotten with them (peer ids cost nothing)
            assert set(_relay_protocol(relay)._reserved_from) == {first.get_id(), third.get_id()}
        nursery.cancel_scope.cancel()


async def test_per_ip_limits_count_only_that_ips_reservations_and_circuits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutation run of 2026-12-07: with every host on 127.0.0.1, a per-IP limit and a limit on everyone were one.
    Here two strangers come from 198.51.100.7 (as in the circuit test), a seat from 127.0.0.1; per_ip=2 and
    circuits_per_ip=1, the smallest limits."""
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery, RelayLimitsSpec(per_ip=2, circuits_per_ip=1))
        seat = Libp2pNode(LocalSecrets(), listen=None, relay=address)
        await nursery.start(seat.run)  # its reservation, from 127.0.0.1
        async with _hosts(2, relay, address) as strangers:
            theirs = {h.get_id() for h in strangers}
            real = p2p_libp2p._source_of
            monkeypatch.setattr(p2p_libp2p, "_source_of", lambda stream: "198.51.100.7"
                                if stream.muxed_conn.peer_id in theirs else real(stream))
            reserved = [(await _hop(h, relay.get_id(), "RESERVE", None))[0] for h in strangers]
            assert reserved == [OK, OK]  # the seat's reservation is another IP's
            circuits = [await _hop(h, relay.get_id(), "CONNECT", seat.peer_id) for h in strangers]
            assert [status for status, _ in circuits] == [OK, RESOURCE_LIMIT_EXCEEDED]  # one to the seat from that IP
            await circuits[0][1].reset()  # that circuit ends: its place is free again, nothing of it kept
            counts = _relay_protocol(relay)._circuits_from
            assert await _poll(lambda: not counts, 5), counts
            assert (await _hop(strangers[1], relay.get_id(), "CONNECT", seat.peer_id))[0] == OK
        nursery.cancel_scope.cancel()


async def test_one_ip_cannot_hold_every_circuit_to_a_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team (relay_circuit_exhaust): nine throwaway peer ids from one machine held all 64 circuits to a seat
    behind NAT, and its table-mate got "Relay connection failed with status 204". Here the stranger's machine has
    an IP of its own (on loopback everyone is 127.0.0.1): it gets circuits_per_ip circuits, the mate still one."""
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery, RelayLimitsSpec(circuits=12, circuits_per_ip=4))
        seat = Libp2pNode(LocalSecrets(), listen=None, relay=address)
        mate = Libp2pNode(LocalSecrets(), listen=None, relay=address)
        for node in (seat, mate):
            await nursery.start(node.run)
        async with _hosts(2, relay, address) as strangers:
            theirs = {h.get_id() for h in strangers}
            real = p2p_libp2p._source_of
            monkeypatch.setattr(p2p_libp2p, "_source_of", lambda stream: "198.51.100.7"
                                if stream.muxed_conn.peer_id in theirs else real(stream))
            base = _lib("libp2p.relay.circuit_v2.protocol").CircuitV2Protocol
            served, library = [0], base._handle_connect

            async def counted(self: Any, stream: Any, msg: Any) -> None:  # circuits the library goes on to make
                served[0] += 1
                await library(self, stream, msg)

            monkeypatch.setattr(base, "_handle_connect", counted)
            held = [await _hop(strangers[i % 2], relay.get_id(), "CONNECT", seat.peer_id) for i in range(16)]
            assert [status for status, _ in held].count(OK) == 4
            await trio.sleep(1.0)  # (a refusal resets its stream 0.5 s after the status)
            assert served[0] == 4  # a refused CONNECT goes no further (no STOP to the seat behind the status)
            for _, stream in held:  # circuits that end give their places back, and nothing of them is kept
                with contextlib.suppress(Exception):
                    await stream.reset()
            counts = _relay_protocol(relay)._circuits_from
            assert await _poll(lambda: not counts, 5), counts
            again = [await _hop(strangers[0], relay.get_id(), "CONNECT", seat.peer_id) for _ in range(4)]
            assert [status for status, _ in again] == [OK] * 4
            with trio.fail_after(20):
                stream = await mate.open(seat.peer_id, [], via_relay=address)
                assert seat.listener is not None
                accepted = await seat.listener.accept()
                await stream.send_all(b"still reachable")
                assert await accepted.receive_some(64) == b"still reachable"
        nursery.cancel_scope.cancel()


def test_the_py_libp2p_methods_we_adapt_are_where_we_expect_them() -> None:
    """libp2p_host's DCUtR and libp2p's relay override these methods of py-libp2p 0.8 (pinned >=0.8.1,<0.9): if a
    release renames or reshapes one, our override would silently stop applying."""
    from importlib.metadata import version

    major, minor, *_ = (int(x) for x in version("libp2p").split(".")[:3])
    assert (major, minor) == (0, 8)
    dcutr = _lib("libp2p.relay.circuit_v2.dcutr").DCUtRProtocol
    expected = {"_handle_dcutr_stream": ["self", "stream"], "initiate_hole_punch": ["self", "peer_id"],
                "_try_unilateral_upgrade": ["self", "peer_id"],
                "_perform_hole_punch": ["self", "peer_id", "addrs", "as_responder"],
                "_dial_peer": ["self", "peer_id", "addr", "source", "as_responder"],
                "_spam_udp_for_hole_punch": ["self", "addr", "stop"], "_auto_drive_loop": ["self"]}
    for name, params in expected.items():
        assert list(inspect.signature(getattr(dcutr, name)).parameters) == params, name
    source = inspect.getsource(dcutr)
    for call in ("self._dial_peer", "self._try_unilateral_upgrade(", "self._perform_hole_punch(",
                 "self.initiate_hole_punch(", "self._spam_udp_for_hole_punch", "_handle_dcutr_stream)"):
        assert call in source, call  # where the library's own paths go through our overrides
    relay = _lib("libp2p.relay.circuit_v2.protocol").CircuitV2Protocol
    for name in ("_handle_reserve", "_handle_connect"):
        assert list(inspect.signature(getattr(relay, name)).parameters) == ["self", "stream", "msg"], name
    resources = _lib("libp2p.relay.circuit_v2.resources")
    manager = resources.RelayResourceManager(resources.RelayLimits(1, 1, 1, 1))
    assert manager._reservations == {} and callable(manager.has_reservation)


FRAME = 1 << 20  # the stranger's raw yamux DATA frames (py-libp2p takes frames up to 16 MiB)


def _muxed_conns(host: Any, peer: Any) -> list[Any]:
    """The yamux connections ``host`` holds with ``peer`` (py-libp2p keeps a list of them, or one)."""
    conns = host.get_network().connections.get(peer) or []
    return [conn.muxed_conn for conn in (conns if isinstance(conns, list) else [conns])]


def _buffered(muxed: Any) -> int:
    """Bytes ``muxed`` holds received and unread, all its streams together."""
    return sum(len(b) for b in muxed.stream_buffers.values())


async def _poll(done: Any, seconds: float) -> bool:
    """Waits until ``done()`` (looking every 50 ms) for at most ``seconds``: whether it came true."""
    with trio.move_on_after(seconds):
        while not done():
            await trio.sleep(0.05)
    return bool(done())


async def test_a_stream_sent_past_the_windows_we_granted_closes_the_connection_and_is_not_buffered() -> None:
    """Red team (find_1): py-libp2p's yamux only logged a DATA frame past the receive window we granted, and
    buffered it. A stranger opened an identify stream, which the relay answers and never reads again, and wrote
    raw DATA frames ignoring the window: 256 MiB sent, 256 MiB held by the relay, the connection still up (a
    seat's mesh stream waiting in the lobby's backlog did the same). Here it sends more than MAX_BUFFERED."""
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery)
        async with _hosts(1, relay, address) as (stranger,):
            stream, muxed = await _identify_stream(relay, stranger)
            read, peak = type(muxed)._read_data_body, [0]

            async def counted(length: int) -> bytes:  # the most the relay ever held, frame by frame
                before = _buffered(muxed)
                data: bytes = await read(muxed, length)
                peak[0] = max(peak[0], before + len(data))
                return data

            muxed._read_data_body = counted
            total, ours = p2p_host.MAX_BUFFERED + 8 * FRAME, stream.muxed_stream
            header = struct.pack(">BBHII", 0, 0, 0, ours.stream_id, FRAME)  # yamux DATA, no flags
            with trio.move_on_after(60), contextlib.suppress(Exception):  # (closed: the writes fail)
                for _ in range(total // FRAME):
                    await ours.conn._write_frame(header + bytes(FRAME))
            await _poll(lambda: muxed.event_closed.is_set() or _buffered(muxed) >= total, 30)
            assert muxed.event_closed.is_set(), f"the relay holds {_buffered(muxed) >> 20} MiB, connection up"
            assert peak[0] <= p2p_host.MAX_BUFFERED + FRAME, peak[0]
        nursery.cancel_scope.cancel()


async def test_connections_that_come_and_go_give_their_inbound_slot_back() -> None:
    """Red team (find_2): py-libp2p's inbound handler kept its slot (one of 250) until the whole swarm stopped,
    not until its connection ended: after 250 connections in its life, however short, a relay or a seat took
    none ever again (one stranger got there in two minutes). Here a handful come and go, one at a time."""
    multiaddr = _lib("multiaddr")
    peerinfo = _lib("libp2p.peer.peerinfo")
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery)
        slots = relay.get_network()._inbound_limiter
        stranger = new_host(None)
        async with stranger.run(listen_addrs=[]):
            for _ in range(5):
                await stranger.connect(peerinfo.info_from_p2p_addr(multiaddr.Multiaddr(address)))
                assert await _poll(lambda: _muxed_conns(relay, stranger.get_id()), 10)  # upgraded on its side too
                assert slots.borrowed_tokens >= 1
                await stranger.get_network().close_peer(relay.get_id())
                assert await _poll(lambda: not _muxed_conns(relay, stranger.get_id()), 10)
            await _poll(lambda: slots.borrowed_tokens == 0, 10)
            assert slots.borrowed_tokens == 0, f"{slots.borrowed_tokens} inbound slots held by no connection"
        nursery.cancel_scope.cancel()


async def test_one_ip_holds_at_most_inbound_per_ip_slots_and_an_honest_seat_still_reserves() -> None:
    """Red team (find_4): py-libp2p's 250 inbound slots are the whole node's, each taken before Noise and held
    for the 10 s upgrade timeout: 250 silent TCP sockets from one IP, reopened as they closed, and no seat could
    reserve on the relay. Here the stranger (127.0.0.2) opens a few more than INBOUND_PER_IP."""
    hold = p2p_host.INBOUND_PER_IP + 8
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery)
        slots = relay.get_network()._inbound_limiter
        port = int(_lib("multiaddr").Multiaddr(address).value_for_protocol("tcp"))
        closed = [0]

        async def silent(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
            sock = await trio.open_tcp_stream("127.0.0.1", port, local_address="127.0.0.2")
            task_status.started()
            with contextlib.suppress(trio.BrokenResourceError, OSError):
                async with sock:
                    while await sock.receive_some(1024):
                        pass
            closed[0] += 1

        for _ in range(hold):
            await nursery.start(silent)
        await _poll(lambda: slots.borrowed_tokens + closed[0] >= hold, 8)  # each one held or turned away
        assert slots.borrowed_tokens <= p2p_host.INBOUND_PER_IP, f"one IP holds {slots.borrowed_tokens} inbound slots"
        assert closed[0] >= hold - p2p_host.INBOUND_PER_IP
        seat = Libp2pNode(LocalSecrets(), listen=None, relay=address)
        with trio.fail_after(10):
            await nursery.start(seat.run)  # from 127.0.0.1: reserves
        nursery.cancel_scope.cancel()


async def test_a_stop_from_a_peer_that_is_not_our_relay_is_refused() -> None:
    """Red team (find_3): a seat with a reservation took a circuit v2 STOP (a relay's "someone connects to you
    through me") from any peer. A stranger connected directly opened STOP streams itself and ran Noise over each
    under a fresh key: the seat took each for a relayed connection, and its per-host limits (SEATS_PER_HOST, the
    host's kick) counted one IP as 10 hosts; 7 seats of a table held by one stranger."""
    circuit = _lib("libp2p.relay.circuit_v2.protocol")
    pb = _lib("libp2p.relay.circuit_v2.pb.circuit_pb2")
    utils = _lib("libp2p.relay.circuit_v2.utils")
    ed25519 = _lib("libp2p.crypto.ed25519")
    peer_id = _lib("libp2p.peer.id").ID
    multiaddr = _lib("multiaddr")
    peerinfo = _lib("libp2p.peer.peerinfo")
    async with trio.open_nursery() as nursery:
        _, address = await _relay(nursery)
        seat = Libp2pNode(LocalSecrets(), listen="/ip4/127.0.0.1/tcp/0", relay=address)
        await nursery.start(seat.run)
        stranger = new_host(None)
        async with stranger.run(listen_addrs=[]):
            seat_info = peerinfo.PeerInfo(seat.host.get_id(), [multiaddr.Multiaddr(a) for a in seat.addrs()])
            await stranger.connect(seat_info)
            status, made_up = None, peer_id.from_pubkey(ed25519.create_new_key_pair().public_key).to_bytes()
            with trio.fail_after(10):  # (refused: the stream is reset, not left hanging)
                try:
                    stop = await stranger.new_stream(seat.host.get_id(), [circuit.STOP_PROTOCOL_ID])
                    msg = pb.StopMessage(type=pb.StopMessage.CONNECT)
                    msg.peer.id = made_up
                    await utils.write_delimited_msg(stop, msg)
                    status = (await utils.read_delimited_msg(stop, pb.StopMessage)).status
                except Exception:  # noqa: BLE001 - refused
                    pass
            assert status is None, f"the seat answered a stranger's STOP with status {status}"
            with trio.fail_after(10), pytest.raises(Exception):  # noqa: B017,PT011 - a seat is no relay (no HOP)
                await _hop(stranger, seat.host.get_id(), "RESERVE", None)
        mate = Libp2pNode(LocalSecrets(), listen=None, relay=address)
        await nursery.start(mate.run)
        with trio.fail_after(20):  # our relay's STOP still comes in
            stream = await mate.open(seat.peer_id, [], via_relay=address)
            assert seat.listener is not None
            accepted = await seat.listener.accept()
            await stream.send_all(b"through our relay")
            assert await accepted.receive_some(64) == b"through our relay"
        nursery.cancel_scope.cancel()


async def test_punch_counts_hold_limit_events_a_window_and_forget_quiet_peers(autojump_clock: Any) -> None:
    """:func:`_within`, which counts DCUtR sessions answered and dials made per peer (mutation run of 2026-12-07):
    ``limit`` events in any PUNCH_WINDOW, the oldest counted until exactly PUNCH_WINDOW later; and past 256 peers,
    those quiet for a whole window are forgotten, so peer ids made up without end hold no memory for good."""
    within = p2p_host._within
    times: dict[Any, list[float]] = {}
    assert [within(times, "mate", 3) for _ in range(4)] == [True, True, True, False]
    await trio.sleep(p2p_host.PUNCH_WINDOW - 0.5)
    assert not within(times, "mate", 3)
    await trio.sleep(0.5)  # exactly a window after the first three
    assert within(times, "mate", 3) and within(times, "mate", 3) and within(times, "mate", 3)
    assert not within(times, "mate", 3)
    times.clear()
    for peer in range(256):
        assert within(times, peer, 3)
    await trio.sleep(p2p_host.PUNCH_WINDOW)
    assert within(times, "new", 3) and len(times) == 257  # 256 peers: nobody is forgotten yet
    assert within(times, "newer", 3) and set(times) == {"new", "newer"}  # past 256: the quiet ones are
    times.clear()
    assert within(times, "busy", 1)
    for peer in range(256):
        assert within(times, peer, 1)
    await trio.sleep(p2p_host.PUNCH_WINDOW - 10)
    assert within(times, "busy", 2)  # busy: one event a window ago (less 10 s), one now
    await trio.sleep(20)
    assert within(times, "newest", 1) and "busy" in times  # its latest event is 20 s old: it is not quiet
    assert not within(times, "busy", 1)


async def _dcutr_open(host: Any, target: Any, addrs: list[str]) -> Any:
    """A DCUtR stream to ``target`` whose CONNECT (listing ``addrs``) is sent (if it can be); nothing read yet."""
    dcutr = _lib("libp2p.relay.circuit_v2.dcutr")
    utils = _lib("libp2p.relay.circuit_v2.utils")
    punch = _lib("libp2p.relay.circuit_v2.pb.dcutr_pb2").HolePunch
    multiaddr = _lib("multiaddr")
    stream = await host.new_stream(target, [dcutr.PROTOCOL_ID])
    with contextlib.suppress(Exception):  # (refused already: reset, which reading it then says)
        await utils.write_delimited_msg(stream, punch(type=punch.CONNECT,
                                                      ObsAddrs=[multiaddr.Multiaddr(a).to_bytes() for a in addrs]))
    return stream


async def _dcutr_answer(stream: Any, seconds: float) -> str:
    """What the other end does next on a DCUtR ``stream`` within ``seconds``: ``"connect"`` (it answered, the
    session runs), ``"refused"`` (reset or ended) or ``"nothing"``."""
    dcutr = _lib("libp2p.relay.circuit_v2.dcutr")
    punch = _lib("libp2p.relay.circuit_v2.pb.dcutr_pb2").HolePunch
    with trio.move_on_after(seconds):
        try:
            msg = await dcutr.read_dcutr_msg(stream, punch)
        except Exception:  # noqa: BLE001 - reset, or ended
            return "refused"
        return "connect" if msg.type == punch.CONNECT else "refused"
    return "nothing"


async def test_a_new_dcutr_session_replaces_the_one_before_and_only_one_waits_to_be_admitted() -> None:
    """One session a peer at a time (mutation run of 2026-12-07): a table-mate's second session ends its first one
    (reset, so the peer learns it at once); and a peer not yet admitted has one session waiting, a second one
    refused at once, so a stranger cannot hold any number of them for ADMIT_WAIT each."""
    async with trio.open_nursery() as nursery:
        seat, mate, address = await _seat_and_stranger(nursery)
        with trio.fail_after(10):
            await mate.transport.dial(_lib("multiaddr").Multiaddr(f"{address}/p2p-circuit/p2p/{seat.name}"))
        target = seat.host.get_id()
        waiting = await _dcutr_open(mate.host, target, [])  # not a seat yet: waits to be admitted
        await trio.sleep(0.3)
        second = await _dcutr_open(mate.host, target, [])
        assert await _dcutr_answer(second, 1.0) == "refused"  # at once: one session of it waits already
        seat.seats.add(mate.name)  # the table starts: the waiting session is admitted
        assert await _dcutr_answer(waiting, p2p_host.ADMIT_WAIT) == "connect"
        replacing = await _dcutr_open(mate.host, target, [])
        assert await _dcutr_answer(replacing, 2.0) == "connect"
        assert await _dcutr_answer(waiting, 2.0) == "refused"  # replaced: reset, not left waiting for its SYNC
        third = await _dcutr_open(mate.host, target, [])
        assert await _dcutr_answer(third, 2.0) == "connect"  # the window's PUNCH_ANSWERS-th
        assert await _dcutr_answer(replacing, 2.0) == "refused"
        over = await _dcutr_open(mate.host, target, [])
        assert await _dcutr_answer(over, 2.0) == "refused"
        assert await _dcutr_answer(third, 1.0) == "nothing"  # a refused session replaces nothing
        nursery.cancel_scope.cancel()


async def test_a_dcutr_session_refused_after_its_wait_leaves_nothing_behind() -> None:
    """A session from a peer that does not become one we may punch with is refused after ADMIT_WAIT, and nothing
    of it is kept (mutation run of 2026-12-07): peer ids cost nothing, so a kept one a stranger would be memory
    for good; and the same peer may wait again (a seat whose first tries came before our table started)."""
    async with trio.open_nursery() as nursery:
        seat, mate, address = await _seat_and_stranger(nursery)
        with trio.fail_after(10):
            await mate.transport.dial(_lib("multiaddr").Multiaddr(f"{address}/p2p-circuit/p2p/{seat.name}"))
        target = seat.host.get_id()
        assert await seat.dcutr.initiate_hole_punch(mate.host.get_id()) is False  # nor do we start one with it
        early = await _dcutr_open(mate.host, target, [])
        assert await _dcutr_answer(early, p2p_host.ADMIT_WAIT + 1.0) == "refused"
        assert seat.dcutr._waiting == set()
        again = await _dcutr_open(mate.host, target, [])
        await trio.sleep(0.3)
        seat.seats.add(mate.name)
        assert await _dcutr_answer(again, p2p_host.ADMIT_WAIT) == "connect"
        peer, dcutr = mate.host.get_id(), seat.dcutr
        punch = _lib("libp2p.relay.circuit_v2.pb.dcutr_pb2").HolePunch
        wrong = await mate.host.new_stream(target, [_lib("libp2p.relay.circuit_v2.dcutr").PROTOCOL_ID])
        await _lib("libp2p.relay.circuit_v2.utils").write_delimited_msg(wrong, punch(type=punch.SYNC))
        assert await _dcutr_answer(wrong, 2.0) == "refused"  # a session that begins wrong ends (replacing "again")
        assert await _poll(lambda: peer not in dcutr._answering, 2.0)  # and is forgotten
        multiaddr = _lib("multiaddr")
        named = ["/ip4/203.0.113.1/tcp/1", "/ip4/203.0.113.1/tcp/1", "/ip4/10.0.0.1/tcp/2"] + [
            f"/ip4/203.0.113.{i}/tcp/{i}" for i in range(2, 9)]  # a duplicate, a LAN address, then 7 more
        with dcutr._choosing(peer, [multiaddr.Multiaddr(a) for a in named]):  # a step dials PUNCH_ADDRS at most
            assert dcutr._chosen[peer] == [frozenset([named[0], *named[3:3 + PUNCH_ADDRS - 1]])]
        with dcutr._choosing(peer, []):  # two steps at once, then one, then none: nothing kept
            with dcutr._choosing(peer, []):
                assert len(dcutr._chosen[peer]) == 2
            assert len(dcutr._chosen[peer]) == 1
        assert peer not in dcutr._chosen
        nursery.cancel_scope.cancel()


async def test_a_relay_takes_twice_its_per_ip_limits_in_inbound_connections_from_one_ip(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """§3.6: a relay holds at least twice its per-IP reservation and circuit limits in inbound connections from one
    IP, so an operator who raises those (many people behind one address) is not stopped by INBOUND_PER_IP first
    (mutation run of 2026-12-07: with the defaults, 2 x 8 = 16 = INBOUND_PER_IP hid the factor)."""
    asked: list[int] = []
    real = p2p_libp2p.new_host

    def noted(key_pair: Any, inbound_per_ip: int = p2p_host.INBOUND_PER_IP) -> Any:
        asked.append(inbound_per_ip)
        return real(key_pair, inbound_per_ip=inbound_per_ip)

    monkeypatch.setattr(p2p_libp2p, "new_host", noted)
    for limits in (RelayLimitsSpec(), RelayLimitsSpec(per_ip=11), RelayLimitsSpec(circuits_per_ip=13)):
        async with trio.open_nursery() as nursery:
            await _relay(nursery, limits)
            nursery.cancel_scope.cancel()
    assert asked == [p2p_host.INBOUND_PER_IP, 22, 26]


def test_a_relays_default_limits_are_protocol_mds() -> None:
    """§3.6's numbers (mutation run of 2026-12-07: a default per-IP limit of 7, which refuses the 8th seat of one
    household, passed every test): 8 reservations from one IP of 64, 8 circuits to one peer from one IP of 64, an
    hour each; and a limit that is not a positive whole number is refused."""
    limits = RelayLimitsSpec()
    assert (limits.per_ip, limits.reservations, limits.circuits_per_ip, limits.circuits) == (8, 64, 8, 64)
    assert (limits.seconds, limits.reservation_ttl, limits.data) == (3600, 3600, 1 << 30)
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="positive whole number"):
            RelayLimitsSpec(per_ip=bad)  # type: ignore[arg-type]
    assert RelayLimitsSpec(per_ip=1).per_ip == 1


async def test_an_ip_whose_connections_come_and_go_gets_its_places_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutation run of 2026-12-07: the per-IP count of inbound connections goes down when one ends (else an IP that
    connected INBOUND_PER_IP times in its life is refused for good), and an IP with none left is forgotten (else
    every /64 that ever connected is kept). A relay taking 2 a IP here, connected to 6 times one after another."""
    monkeypatch.setattr(p2p_libp2p, "INBOUND_PER_IP", 2)
    multiaddr = _lib("multiaddr")
    peerinfo = _lib("libp2p.peer.peerinfo")
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery, RelayLimitsSpec(per_ip=1, circuits_per_ip=1))
        held = inspect.getclosurevars(relay.get_network()._handle_inbound_connection).nonlocals["held"]
        stranger = new_host(None)
        async with stranger.run(listen_addrs=[]):
            for _ in range(6):
                with trio.fail_after(10):
                    await stranger.connect(peerinfo.info_from_p2p_addr(multiaddr.Multiaddr(address)))
                assert await _poll(lambda: _muxed_conns(relay, stranger.get_id()), 10)
                await stranger.get_network().close_peer(relay.get_id())
                assert await _poll(lambda: not _muxed_conns(relay, stranger.get_id()), 10)
            assert await _poll(lambda: not held, 10), held
        nursery.cancel_scope.cancel()


async def test_a_peer_may_send_exactly_what_it_was_granted_and_not_a_byte_more() -> None:
    """The window bound's exact edge (mutation run of 2026-12-07): a DATA frame that brings what waits unread to
    exactly every window granted (plus the spare one) keeps the connection; one byte more closes it."""
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery)
        async with _hosts(1, relay, address) as (stranger,):
            stream, muxed = await _identify_stream(relay, stranger)
            await trio.sleep(0.5)  # (identify's own exchange over)
            ours = stream.muxed_stream
            for extra in (0, 1):
                granted = sum(s.target_recv_window for s in muxed.streams.values()) + p2p_host._DEFAULT_WINDOW
                room = min(granted, p2p_host.MAX_BUFFERED) - _buffered(muxed)
                size = room + extra if extra else room
                header = struct.pack(">BBHII", 0, 0, 0, ours.stream_id, size)
                with contextlib.suppress(Exception):
                    await ours.conn._write_frame(header + bytes(size))
                closed = await _poll(muxed.event_closed.is_set, 2.0)
                assert closed == bool(extra), (extra, size, _buffered(muxed))
        nursery.cancel_scope.cancel()
