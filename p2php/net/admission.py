"""Room for connections that have not yet shown who they are: bounded, and fair to every remote host.

A listener must bound the connections still in their handshake (each holds a task, a buffer and a
file descriptor until its deadline), but a bare bound hands the listener to whoever fills it first:
an outsider that opens that many connections and says nothing, opening a new one as each is closed,
keeps every honest seat out — a table never forms, a dropped seat never gets back in, nobody joins
a lobby.  So when the room is full a newcomer is not simply turned away: the oldest connection of
the remote host holding the most places is ended to make room for it, unless the newcomer's own
host already holds as many.  One host (or a few) can then never keep out a connection from
another; keeping one out takes more hosts than there are places, each opening connections faster
than an honest handshake ends.

A "host" is what :func:`host_key` makes of a remote address: an IPv4 address, the /64 network of
an IPv6 address (one machine commonly holds a whole /64), or a libp2p peer id.

Sans-IO apart from the cancel scope each admitted connection runs under; the order of arrival is
a counter, not a clock.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import trio

from p2php.net.transport import remote_address

__all__ = ["Admission", "Ticket", "host_key", "host_of", "on_this_machine"]


def host_key(host: str) -> str:
    """The remote host ``host`` counts as for per-host limits.

    An IPv6 address counts as its /64 network (``"2001:db8:0:1::/64"``), an IPv4 address mapped
    into IPv6 as that IPv4 address, and anything that is not an IP address (a libp2p peer id, an
    in-memory network's name) as itself.
    """
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])  # a link-local zone ("fe80::1%eth0") is the same host
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if ip.is_loopback:
            return str(ip)  # this machine (::1), not the /64 around it
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def host_of(stream: trio.abc.Stream) -> str:
    """The :func:`host_key` of the other end of ``stream`` (what every per-host limit counts against)."""
    return host_key(remote_address(stream)[0])


def on_this_machine(host: str) -> bool:
    """Whether ``host`` (an address, or a :func:`host_key`) is this machine's own loopback: 127.0.0.0/8, ``::1``,
    or a loopback IPv4 address mapped into IPv6. Anything else (another address, a peer id) is not."""
    try:
        return ipaddress.ip_network(host_key(host), strict=False).network_address.is_loopback
    except ValueError:
        return False


@dataclass(eq=False)
class Ticket:
    """One admitted connection's place: run it under :attr:`scope` (or end it in :attr:`on_evict`), then
    :meth:`Admission.leave`.

    :attr:`evicted` says the place was taken back for another host's connection: the scope is then
    cancelled and ``on_evict`` called.
    """

    host: str
    number: int
    on_evict: Callable[[], None] | None = None
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    evicted: bool = False


class Admission:
    """At most ``total`` connections in their handshake, at most ``per_host`` from one host."""

    def __init__(self, total: int, per_host: int) -> None:
        if not 1 <= per_host <= total:
            raise ValueError(f"per_host must be 1 to total ({total}), not {per_host}")
        self.total = total
        self.per_host = per_host
        self._held: dict[str, list[Ticket]] = {}  # host -> its places, oldest first
        self._count = 0
        self._arrivals = 0
        self.evictions = 0
        """Connections ended to make room for another host's (for logs and tests)."""

    def __len__(self) -> int:
        """Places held now."""
        return self._count

    def held_by(self, host: str) -> int:
        """Places ``host`` (a :func:`host_key`) holds now."""
        return len(self._held.get(host, ()))

    def room_for(self, host: str) -> bool:
        """Whether :meth:`enter` would give ``host`` a place now (nothing changes)."""
        return self._victim(host) is not False

    def enter(self, host: str, on_evict: Callable[[], None] | None = None) -> Ticket | None:
        """A place for a new connection from ``host`` (a :func:`host_key`), or None: close it at once.

        None when ``host`` already holds ``per_host`` places, or when the room is full and no other
        host holds more places than ``host`` does.  Otherwise, with the room full, the oldest place
        of the host holding the most (the oldest such place when several hosts tie) is taken back:
        its ticket's scope is cancelled, its ``on_evict`` called, and it no longer counts.
        """
        victim = self._victim(host)
        if victim is False:
            return None
        if victim is not None:
            self.leave(victim)
            victim.evicted = True
            victim.scope.cancel()
            self.evictions += 1
            if victim.on_evict is not None:
                victim.on_evict()
        ticket = Ticket(host, self._arrivals, on_evict)
        self._arrivals += 1
        self._held.setdefault(host, []).append(ticket)
        self._count += 1
        return ticket

    def _victim(self, host: str) -> Ticket | None | Literal[False]:
        """False: no place for ``host``; None: a free one; else the place to take back for it."""
        held = len(self._held.get(host, ()))
        if held >= self.per_host:
            return False
        if self._count < self.total:
            return None
        most = max(len(places) for places in self._held.values())
        if held >= most:
            return False
        return min((places[0] for places in self._held.values() if len(places) == most),
                   key=lambda ticket: ticket.number)

    def leave(self, ticket: Ticket) -> None:
        """Give ``ticket``'s place back (again is harmless: an evicted ticket left when it was evicted)."""
        places = self._held.get(ticket.host)
        if places is None or ticket not in places:
            return
        places.remove(ticket)
        self._count -= 1
        if not places:
            del self._held[ticket.host]
