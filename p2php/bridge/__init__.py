"""``p2php bridge``: drive one peer from any language, over JSON lines.

A client that is not written in Python (a Godot or Unity game, a web page, a
Rust bot) starts ``p2php bridge`` as a child process and talks JSON lines on
its stdin/stdout, or runs ``p2php bridge --ws 127.0.0.1:8765`` and talks the
same messages over a local WebSocket.  Either way the bridge is a thin shell
around :mod:`p2php.api`: the peer, its keys and all the cryptography stay in
this process, and the client only sees its own seat's view.

The messages are documented in docs/bridge.md; the protocol logic is in
:mod:`p2php.bridge.session`, the transports in :mod:`p2php.bridge.stdio` and
:mod:`p2php.bridge.ws` (the latter needs the optional ``wsproto`` package).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import trio

from p2php.bridge.session import BRIDGE_VERSION, OPS, BridgeSession, dumps, event_json, to_json
from p2php.bridge.stdio import serve_stdio
from p2php.errors import UsageError

__all__ = ["BRIDGE_VERSION", "OPS", "BridgeSession", "dumps", "event_json", "main", "serve_stdio", "to_json"]

WS_MISSING = "`p2php bridge --ws` needs the wsproto package: pip install 'p2php[ws]' (or: pip install wsproto)"


def parse_host_port(text: str) -> tuple[str, int]:
    """``"127.0.0.1:8765"`` → ``("127.0.0.1", 8765)``; ``"[::1]:8765"`` works too."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise UsageError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port)


def main(ws: str | None = None, allow_origins: Sequence[str] = ()) -> int:
    """Run the bridge until the client quits (stdio) or the process is interrupted (WebSocket)."""
    if ws is None:
        trio.run(serve_stdio)
        return 0
    host, port = parse_host_port(ws)
    try:
        from p2php.bridge.ws import serve_forever
    except ImportError:
        print(f"p2php: {WS_MISSING}", file=sys.stderr)
        return 2
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"p2php: warning: the bridge on {host} lets anyone who can reach it play your seat; "
              "prefer 127.0.0.1", file=sys.stderr)
    trio.run(serve_forever, host, port, tuple(allow_origins))
    return 0
