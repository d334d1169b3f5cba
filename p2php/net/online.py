"""One seat of an online table: its libp2p node, where it is reached, and how it reaches the others.

At a LAN table a seat is an IP and a port. Online, a seat is a :class:`~p2php.net.invite.Locator`: its
libp2p peer id, the addresses it listens on (often private, behind a NAT router) and the relays where it
holds a reservation. :class:`OnlineSeat` runs the node (keyed from the seat's master secret, its peer id
vouched for by its seat key: protocol.md §3.6) and gives the mesh a :data:`~p2php.net.transport.Dial` that
takes a locator's text for the host name: it tries the direct addresses first, briefly, then each relay's
circuit, and through a relay it asks DCUtR for a direct connection (hole punching); a link that cannot be
punched stays relayed. Everything above the stream is unchanged: framing, link tags, signatures, limits.

Needs the ``internet`` extra (py-libp2p), imported only when a node starts.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import socket
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import trio

from p2php.net.invite import Locator, parse_locator
from p2php.net.libp2p import LOBBY_PROTOCOL_ID, PROTOCOL_ID, Libp2pListener, Libp2pNode, Libp2pStream, _lib

if TYPE_CHECKING:
    from p2php.session.handshake import LocalSecrets

__all__ = ["CIRCUIT_TRIES", "DIRECT_TRY", "UPGRADE_CHECK", "OnlineSeat", "advertised_ips"]

log = logging.getLogger(__name__)

DIRECT_TRY = 3.0
"""Seconds a dial spends on a seat's direct addresses before it goes through a relay (a NAT drops them)."""
UPNP_TIMEOUT = 5.0
"""Seconds a router may take to answer UPnP discovery and a port mapping (the ``upnp`` extra)."""
UPGRADE_CHECK = 1.0
"""Seconds between looks for a relayed link that a hole punch made since could carry directly."""
CIRCUIT_TRIES = 3
"""Rounds over a seat's relays before a dial gives up (a second apart: a relay may briefly hold no reservation)."""


def advertised_ips(toward: str | None) -> list[str]:
    """This machine's IPv4 addresses worth telling others, for a node that listens on every interface.

    The address of the interface that routes toward ``toward`` (a relay's IP: the one others on that side
    can reach), then loopback for seats on this machine. No packet is sent: a UDP ``connect`` only asks the
    kernel for a route.
    """
    ips: list[str] = []
    if toward:
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((toward, 9))
            ip = str(probe.getsockname()[0])
            if ip != "0.0.0.0":
                ips.append(ip)
    if "127.0.0.1" not in ips:
        ips.append("127.0.0.1")
    return ips


def _ip_of(multiaddr_text: str | None) -> str | None:
    parts = (multiaddr_text or "").split("/")
    return parts[2] if len(parts) > 2 and parts[1] in ("ip4", "dns4", "dns") else None


class OnlineSeat:
    """One local seat's libp2p node for an online table (start it with ``await nursery.start(seat.run)``).

    ``relay``: a relay multiaddr (``…/p2p/RELAY_ID``) to hold a reservation on, so seats behind NAT can reach
    us; ``listen``: where the node listens (every interface by default); ``advertise``: the IPs put in our
    locator in place of a wildcard listen address (default: :func:`advertised_ips`); ``lobby``: also serve
    the lobby protocol (the host's seat). ``punch``: try DCUtR on every link that came through a relay, with the
    seats :meth:`watch_links` names and the seats we dial (nobody else: protocol.md §3.6).
    """

    def __init__(self, secrets: LocalSecrets, relay: str | None, listen: str | None = "/ip4/0.0.0.0/tcp/0",
                 advertise: list[str] | None = None, lobby: bool = False, punch: bool = True) -> None:
        if listen is None and relay is None:
            raise ValueError("a seat that listens nowhere needs a relay to be reached through")
        self.node = Libp2pNode(secrets, listen=listen, relay=relay, lobby=lobby,
                               punch=punch and relay is not None and listen is not None)
        self.relay = relay
        self.advertise = advertise
        self.upnp: Any = None  # the UpnpManager that mapped our port (removed again when the node stops)

    async def reachability(self, timeout: float = 10.0) -> str:
        """Whether others can dial us at our own addresses, as AutoNAT asks our relay to find out.

        ``"public"``: the relay dialled us back at an address of our locator; ``"private"``: it could not (a
        NAT, a firewall, or only private addresses: links go through the relay until a hole punch succeeds);
        ``"unknown"``: no relay to ask, nowhere we listen, or no answer. The relay dials only addresses on
        the IP it sees us at, so this asks nothing of anyone else.
        """
        if self.relay is None or self.node.listen is None:
            return "unknown"
        try:
            autonat = _lib("libp2p.host.autonat.autonat")
            response = _lib("libp2p.host.autonat.pb.autonat_pb2").Message
            multiaddr = _lib("multiaddr")
            relay_id = _lib("libp2p.peer.id").ID.from_base58(self.relay.rsplit("/p2p/", 1)[1])
            addrs = [multiaddr.Multiaddr(a).to_bytes() for a in self.locator().direct]
            service = autonat.AutoNATService(self.node.host, serve=False)
            with trio.fail_after(timeout):
                status, _ = await service.query_server(relay_id, addrs, timeout=timeout)
        except Exception as exc:  # noqa: BLE001 - a relay without AutoNAT, a timeout ...: we cannot tell
            log.info("AutoNAT through %s gave no answer: %s", self.relay, exc)
            return "unknown"
        return "public" if status == response.OK else "private"

    def settings(self) -> dict[str, Any]:
        """How to run this node again (``p2php resume``): the same relay, TCP port and advertised IPs."""
        relay_only = self.node.listen is None
        return {"relay": self.relay, "port": 0 if relay_only else self.port(), "advertise": list(self.advertise or []),
                "relay_only": relay_only}

    @classmethod
    def again(cls, secrets: LocalSecrets, settings: dict[str, Any]) -> OnlineSeat:
        """The node of :meth:`settings`, under the same peer id (its key comes from ``secrets``' master)."""
        listen = None if settings.get("relay_only") else f"/ip4/0.0.0.0/tcp/{int(settings.get('port', 0))}"
        advertise = list(settings.get("advertise") or []) or None
        return cls(secrets, settings.get("relay"), listen=listen, advertise=advertise)

    def links(self, seats: dict[int, str]) -> dict[int, str]:
        """How our mesh link with each seat is carried (``seats``: seat -> its locator text)."""
        out = {}
        for seat, text in seats.items():
            try:
                peer = parse_locator(text).peer
            except ValueError:
                continue
            if peer in self.node.carried:
                out[seat] = self.node.carried[peer]
        return out

    async def watch_links(self, seats: Mapping[int, str], tell: Callable[[int, str], None],
                          relink: Callable[[int], None] | None = None, every: float = UPGRADE_CHECK) -> None:
        """Until cancelled: ``tell(seat, how)`` each time how our mesh link with a seat is carried changes
        (its first stream, a fall-back through the relay after a direct link broke, a move onto a punched
        connection); and ``relink(seat)`` when a relayed link could move onto a direct connection DCUtR made
        since it opened (the runner dials that seat again; the new link replaces the old, protocol.md §3.7).

        The seats' peer ids are also the peers our node answers hole punching (DCUtR) from, from now on
        (:attr:`Libp2pNode.seats`; protocol.md §3.6): so this is called as the table starts, before its links."""
        peers: dict[str, int] = {}
        for seat, text in seats.items():
            with contextlib.suppress(ValueError):
                peers[parse_locator(text).peer] = seat
        self.node.seats.update(peers)
        self.node.on_carried = lambda peer, how: tell(peers[peer], how) if peer in peers else None
        for peer, how in list(self.node.carried.items()):  # links formed before we watched
            if peer in peers:
                tell(peers[peer], how)
        asked: set[int] = set()  # streams a relink was asked for (once each: the runner does the rest)
        try:
            while True:
                await trio.sleep(every)
                for peer, seat in peers.items():
                    stream = self.node.streams.get(peer)
                    if relink is not None and stream is not None and id(stream) not in asked \
                            and self.node.better_path(peer):
                        asked.add(id(stream))
                        with contextlib.suppress(trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
                            relink(seat)  # (a full or closed channel: the link simply stays as it is)
        finally:
            self.node.on_carried = None

    async def map_port(self, timeout: float = UPNP_TIMEOUT) -> str | None:
        """Ask the home router (UPnP IGD, through py-libp2p's UpnpManager) to forward our TCP port to us, so
        others can dial us directly; the one line to tell the player, or None where the ``upnp`` extra
        (miniupnpc) is not installed or we listen nowhere. A mapped router's external IP joins our locator if
        it is made after this returns (the others also learn it as our observed address: identify, DCUtR)."""
        if self.node.listen is None:
            return None
        try:
            upnp = importlib.import_module("libp2p.discovery.upnp.upnp")
        except ImportError:  # no miniupnpc: the extra is not installed
            return None
        port = self.port()
        manager = upnp.UpnpManager()
        with trio.move_on_after(timeout):
            if await manager.discover() and await manager.add_port_mapping(port, "TCP"):
                ip = manager.get_external_ip()
                self.upnp = manager
                if ip:
                    self.advertise = [str(ip), *(self.advertise or advertised_ips(_ip_of(self.relay)))]
                return f"UPnP: the router forwards {ip}:{port} to this machine; others can connect directly"
        return "UPnP: no router here maps ports (links go through the relay or a hole punch)"

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await self.node.run(task_status=task_status)
        finally:
            if self.upnp is not None:  # leave the router as we found it
                with trio.CancelScope(shield=True), trio.move_on_after(UPNP_TIMEOUT), \
                        contextlib.suppress(Exception):
                    await self.upnp.remove_port_mapping(self.port(), "TCP")

    @property
    def peer(self) -> str:
        return self.node.name

    @property
    def listener(self) -> Libp2pListener:
        assert self.node.listener is not None, "start the seat's node first"
        return self.node.listener

    @property
    def lobby_listener(self) -> Libp2pListener:
        assert self.node.lobby_listener is not None, "this node does not serve the lobby"
        return self.node.lobby_listener

    def port(self) -> int:
        """The TCP port the node listens on (what a lobby seat entry carries beside the locator)."""
        for addr in self.node.host.get_transport_addrs():
            text = str(addr)
            if "/tcp/" in text:
                return int(text.split("/tcp/")[1].split("/")[0])
        return 1  # reachable only through its relay: the port is never dialled

    def locator(self) -> Locator:
        direct: list[str] = []
        for addr in self.node.host.get_transport_addrs():
            text = str(addr)
            ip = _ip_of(text)
            if ip == "0.0.0.0":
                rest = text.split("/", 3)[3]
                for public in self.advertise or advertised_ips(_ip_of(self.relay)):
                    direct.append(f"/ip4/{public}/{rest}")
            elif text.startswith("/ip4/"):
                direct.append(text)
        return Locator(self.peer, tuple(dict.fromkeys(direct))[:6], (self.relay,) if self.relay else ())

    async def dial(self, host: str, port: int) -> trio.abc.HalfCloseableStream:
        """The mesh's dial: ``host`` is the other seat's locator text (``port`` is not needed)."""
        return await self.open(host, PROTOCOL_ID)

    async def open_lobby(self, locator: Locator) -> Libp2pStream:
        """A lobby stream to the host of an online table."""
        return await self.open(locator.text(), LOBBY_PROTOCOL_ID)

    async def open_mesh(self, locator: Locator) -> Libp2pStream:
        """A mesh stream to the seat at ``locator`` (a spectator's: it watches that seat's table)."""
        return await self.open(locator.text(), PROTOCOL_ID)

    async def open(self, locator_text: str, protocol: str) -> Libp2pStream:
        """A bound stream to the seat at ``locator_text``: direct addresses first, then each relay.

        Raises ``ConnectionRefusedError`` (an ``OSError``: the mesh retries) naming the last failure.
        """
        try:
            where = parse_locator(locator_text)
        except ValueError as err:
            raise ConnectionRefusedError(f"not a seat locator: {err}") from None
        peer_id: bytes = _lib("libp2p.peer.id").ID.from_base58(where.peer).to_bytes()
        failure: BaseException | None = None
        if where.direct:
            with trio.move_on_after(DIRECT_TRY if where.relays else 2 * DIRECT_TRY):
                try:
                    return await self.node.open(peer_id, list(where.direct), protocol=protocol)
                except OSError as err:
                    failure = err
        for attempt in range(CIRCUIT_TRIES):
            for relay in where.relays:
                try:
                    return await self.node.open(peer_id, [], via_relay=relay, protocol=protocol)
                except OSError as err:  # e.g. the relay's "no reservation" while the seat re-reserves
                    failure = err
            if where.relays and attempt + 1 < CIRCUIT_TRIES:
                await trio.sleep(1.0)
        raise ConnectionRefusedError(f"cannot reach libp2p peer {where.peer}: {failure or 'no address answered'}")
