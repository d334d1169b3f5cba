"""The default port numbers, defined once (protocol.md §3.3, §3.4). UDP and TCP ports are separate spaces."""

from __future__ import annotations

LOBBY_PORT = 7700  # TCP: where `p2php host` / api.host_table open the lobby, and where `join HOST` dials
DISCOVERY_PORT = 7700  # UDP: where hosts answer `p2php discover` queries (the lobby's number, on UDP)
