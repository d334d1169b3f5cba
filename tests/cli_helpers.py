"""What the tests that run ``p2php`` as a program share: the command, and free loopback ports for its seats."""

from __future__ import annotations

import socket
import sys

P2PHP = [sys.executable, "-m", "p2php.cli"]


def free_ports(n: int) -> list[int]:
    """``n`` loopback ports free a moment ago (all held at once while picked, so they are distinct)."""
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [int(s.getsockname()[1]) for s in socks]
    for s in socks:
        s.close()
    return ports
