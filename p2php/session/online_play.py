"""``p2php host --online``, ``p2php join CODE`` and ``p2php relay``: tables of friends behind NAT routers.

The lobby and the game are those of a LAN table (:mod:`p2php.session.netplay`); only how a seat is reached
changes (:class:`OnlinePlaces`). Each seat of this process runs its own libp2p node
(:class:`~p2php.net.online.OnlineSeat`), keyed from the seat's secrets; with a relay (``--relay``, or the
one in the invite) it holds a reservation there, so a seat behind NAT can be reached through the relay's
circuit, and DCUtR then tries to punch a direct connection. The host prints an invite code
(:mod:`p2php.net.invite`) instead of an IP address; discovery (a LAN broadcast) is off.

No server of ours: a relay is any public circuit relay v2 node, or one a friend runs with ``p2php relay``
(limits on reservations, circuits, seconds and bytes). It forwards encrypted streams it cannot read; what
it can see and do is in protocol.md §3.7.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import trio

from p2php.errors import UsageError
from p2php.lobby import Table
from p2php.net.invite import Invite, InviteError, Locator, parse_invite
from p2php.net.libp2p import RelayLimitsSpec, serve_relay
from p2php.net.online import OnlineSeat, advertised_ips
from p2php.net.transport import Listener
from p2php.session.handshake import LocalSecrets
from p2php.session.modes import parse_table_options
from p2php.session.netplay import (
    Place,
    _check_name,
    _err,
    _say,
    host_game,
    sit_down,
    wanted_options,
)
from p2php.text import NAME, safe

__all__ = ["OnlinePlaces", "host_online", "join_online", "run_relay", "table_invite"]

_NODE_ERRORS = (OSError, trio.TooSlowError)


def check_relay(text: str | None) -> str | None:
    """A ``--relay`` value: a relay's multiaddr ending ``/p2p/RELAY_ID``, or a usage error saying so."""
    if text is None:
        return None
    if not text.startswith("/") or "/p2p/" not in text or "/p2p-circuit" in text or " " in text:
        raise UsageError(f"--relay wants a relay's multiaddr ending /p2p/RELAY_ID (e.g. /ip4/203.0.113.7/tcp/4001/"
                         f"p2p/12D3Koo…), not {safe(text, 80)!r}")
    return text


class OnlinePlaces:
    """Seats reached over libp2p: a node per seat, in ``nursery``; the host's first node serves the lobby."""

    online = True

    def __init__(self, nursery: trio.Nursery, relay: str | None, listen: str | None,
                 advertise: list[str] | None) -> None:
        self.nursery = nursery
        self.relay = relay
        self.listen = listen
        self.advertise = advertise
        self.host: OnlineSeat | None = None
        self._host_place: Place | None = None

    async def _start(self, lobby: bool) -> tuple[OnlineSeat, Place]:
        secrets = LocalSecrets()
        seat = OnlineSeat(secrets, self.relay, listen=self.listen, advertise=self.advertise, lobby=lobby)
        await self.nursery.start(seat.run)
        self.nursery.start_soon(map_port, seat)  # (in the background: discovery takes seconds where no router answers)
        if lobby:  # the host's own seat (a bot's node runs on the same machine: the same answer)
            self.nursery.start_soon(tell_reachability, seat)
        return seat, _place(seat, secrets)

    async def open_lobby(self, args: argparse.Namespace) -> Listener | None:
        try:
            self.host, self._host_place = await self._start(lobby=True)
        except _NODE_ERRORS as err:
            _err(f"cannot open the online table: {relay_failure(self.relay, err)}")
            return None
        return self.host.lobby_listener

    async def open_seat(self) -> Place:
        if self._host_place is not None:  # the host's own seat is the node that serves the lobby
            place, self._host_place = self._host_place, None
            return place
        return (await self._start(lobby=False))[1]

    def how_to_join(self, table: Table, lobby: Listener) -> list[str]:
        assert self.host is not None
        where = self.host.locator()
        invite = table_invite(where, table)
        lines = ["Invite code (send it to your friends; it holds no secret):", "", f"  {invite.code()}", "",
                 "They join with:  p2php join CODE --name NAME"]
        if not where.relays:
            lines.append("(no --relay: only peers that can reach this machine directly can join)")
        return lines


def table_invite(where: Locator, table: Table) -> Invite:
    """The invite to ``table`` whose lobby is reached at ``where``: what the CLI prints (and any other front end
    shows), with only the options that differ from the game's defaults (a short code: the rest is in the
    lobby's table view anyway)."""
    defaults = parse_table_options(table.game, {})
    changed = {k: v for k, v in table.options.items() if defaults.get(k) != v}
    return Invite(where.peer, where.direct, where.relays, table.table_id, table.game.name, table.players, changed)


REACHABILITY = {
    "public": "reachability: the relay dialled this machine back at its own address; others can connect directly",
    "private": "reachability: behind NAT or a firewall (the relay could not dial this machine back); links go "
               "through the relay until a hole punch succeeds",
}


async def tell_reachability(seat: OnlineSeat) -> None:
    """One line for the person, once the relay has answered AutoNAT (nothing if it cannot tell)."""
    line = REACHABILITY.get(await seat.reachability())
    if line is not None:
        _say(line)


async def map_port(seat: OnlineSeat) -> None:
    """UPnP where the ``upnp`` extra is installed: one line saying whether the router forwards our port."""
    line = await seat.map_port()
    if line is not None:
        _say(line)


def _place(seat: OnlineSeat, secrets: LocalSecrets) -> Place:
    return Place(seat.listener, seat.port(), seat.locator().text(), secrets, seat.dial, seat.links, seat.settings(),
                 seat.watch_links)


def _listen(args: argparse.Namespace, relay: str | None) -> str | None:
    """Where a seat's node listens: ``--bind``, or (``--relay-only``) nowhere, reached through the relay only."""
    if getattr(args, "relay_only", False):
        if relay is None:
            raise UsageError("--relay-only needs a relay (--relay ADDR, or an invite that names one)")
        return None
    return f"/ip4/{args.bind}/tcp/0"


def relay_failure(relay: str | None, err: BaseException) -> str:
    if relay is None:
        return safe(err, 200)
    return f"the relay {safe(relay, 120)} gave no reservation ({safe(err, 200) or 'timed out'})"


def _advertise(args: argparse.Namespace) -> list[str] | None:
    return list(args.advertise) if getattr(args, "advertise", None) else None


async def host_online(args: argparse.Namespace) -> int:
    """``p2php host GAME --online [--relay ADDR]``: the lobby over libp2p, an invite code to share."""
    relay = check_relay(getattr(args, "relay", None))
    async with trio.open_nursery() as nursery:
        code = await host_game(args, OnlinePlaces(nursery, relay, _listen(args, relay), _advertise(args)))
        nursery.cancel_scope.cancel()
    return code


async def join_online(args: argparse.Namespace) -> int:
    """``p2php join CODE``: reach the host the invite names (directly, or through its relay), sit down, play."""
    try:
        invite = parse_invite(args.address)
    except InviteError as err:
        _err(f"that invite code does not read: {err}")
        return 2
    if args.game is not None and args.game != invite.game:
        _err(f"the invite is for a {safe(invite.game, NAME)} table, and you asked for --game {safe(args.game, NAME)}")
        return 3
    name = _check_name(args.name)
    wanted = wanted_options(args)
    relay = check_relay(getattr(args, "relay", None)) or (invite.relays[0] if invite.relays else None)
    _say(f"Invite: a {safe(invite.game, NAME)} table for {invite.players} players"
         + (f", meeting through the relay {safe(relay, 120)}" if relay else ", reached directly") + ".")
    host = Locator(invite.peer, invite.addrs, invite.relays)
    async with trio.open_nursery() as nursery:
        secrets = LocalSecrets()
        seat = OnlineSeat(secrets, relay, listen=_listen(args, relay), advertise=_advertise(args))
        try:
            await nursery.start(seat.run)
        except _NODE_ERRORS as err:
            _err(f"cannot go online: {relay_failure(relay, err)}")
            nursery.cancel_scope.cancel()
            return 3
        nursery.start_soon(map_port, seat)
        nursery.start_soon(tell_reachability, seat)
        place = _place(seat, secrets)
        _say(f"Spectators may also watch from your seat: p2php watch CODE '{place.addr}'")
        code = await sit_down(args, place, name, wanted, "the online table", 0,
                              connect=lambda: seat.open_lobby(host))
        nursery.cancel_scope.cancel()
    return code


# ----------------------------------------------------------------------------- p2php relay

def relay_key(path: str | None) -> bytes | None:
    """The relay's 32-byte key seed from ``path`` (made there, readable by us only, the first time)."""
    if path is None:
        return None
    file = Path(path)
    if file.exists():
        seed = file.read_bytes()
        if len(seed) != 32:
            raise UsageError(f"--key {safe(path, 120)} holds {len(seed)} bytes, not a 32-byte relay key")
        return seed
    seed = os.urandom(32)
    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(seed)
    return seed


async def run_relay(args: argparse.Namespace) -> int:
    """``p2php relay``: a circuit relay v2 node with limits, until Ctrl-C; prints the addresses to give out."""
    try:
        limits = RelayLimitsSpec(reservations=args.max_reservations, circuits=args.max_circuits,
                                 seconds=args.circuit_seconds, data=args.circuit_bytes, per_ip=args.max_per_ip,
                                 circuits_per_ip=args.max_circuits_per_ip)
    except ValueError as err:
        raise UsageError(str(err)) from None
    listen = f"/ip4/{args.bind}/tcp/{args.port}"
    async with trio.open_nursery() as nursery:
        try:
            host = await nursery.start(serve_relay, listen, limits, relay_key(args.key))
        except OSError as err:
            _err(f"cannot run a relay on {listen}: {err.strerror or err}")
            return 3
        port = next((str(a).split("/tcp/")[1].split("/")[0] for a in host.get_transport_addrs()
                     if "/tcp/" in str(a)), str(args.port))
        ips = list(args.advertise) if args.advertise else (
            advertised_ips("192.0.2.1") if args.bind == "0.0.0.0" else [args.bind])
        _say(f"Relay up (at most {limits.reservations} reservations, {limits.circuits} circuits, "
             f"{limits.seconds} s and {limits.data} bytes a circuit). Give players one of:")
        for ip in ips:
            print(f"  --relay /ip4/{ip}/tcp/{port}/p2p/{host.get_id()}", flush=True)
        await trio.sleep_forever()
    return 0
