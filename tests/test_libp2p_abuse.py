"""Strangers against a seat's libp2p node and against our relay: what they can no longer make them do.

Each test replays a red-team finding over real py-libp2p nodes on loopback (protocol.md §3.6): a stranger who
reaches a seat through the relay makes it dial addresses of its choosing with DCUtR; one connection to a relay
takes every reservation with made-up peer ids; one machine holds every circuit to a seat. Skipped where
py-libp2p (the ``p2php[internet]`` extra) is not installed.
"""

from __future__ import annotations

import contextlib
import inspect
from functools import partial
from typing import Any

import pytest
import trio

pytest.importorskip("libp2p", reason="py-libp2p is not installed (pip install 'p2php[internet]'): "
                                     "the libp2p transport is not tested here")

import p2php.net.libp2p as p2p_libp2p  # noqa: E402
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
            assert (await _hop(evil, relay.get_id(), "RESERVE", evil.get_id().to_bytes()))[0] == OK  # its own
        nursery.cancel_scope.cancel()


async def test_one_ip_holds_at_most_per_ip_reservations_while_its_peers_stay_connected() -> None:
    async with trio.open_nursery() as nursery:
        relay, address = await _relay(nursery, RelayLimitsSpec(per_ip=2))

        async def reserve(host: Any) -> int:
            return (await _hop(host, relay.get_id(), "RESERVE", None))[0]

        async with _hosts(3, relay, address) as (first, second, third):
            assert [await reserve(h) for h in (first, second, third)] == [OK, OK, RESOURCE_LIMIT_EXCEEDED]
            assert await reserve(first) == OK  # renewing is no new reservation
            await relay.get_network().close_peer(second.get_id())  # a reservation lasts as long as its connection
            with trio.fail_after(5):
                while relay.get_network().connections.get(second.get_id()):
                    await trio.sleep(0.05)
            assert await reserve(third) == OK
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
            held = [await _hop(strangers[i % 2], relay.get_id(), "CONNECT", seat.peer_id) for i in range(16)]
            assert [status for status, _ in held].count(OK) == 4
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
