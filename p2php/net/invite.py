"""Invite codes: how friends behind NAT routers find an online table with no server of ours.

``p2php host GAME --online`` prints one code; ``p2php join CODE`` sits down. The code holds what a joiner
needs before any connection: the host lobby's libp2p peer id and where to reach it (its addresses and its
relays' circuit addresses), the table id, the game, the player count and the options. It is public, not a
secret: anyone holding it can ask for a seat, as anyone on a LAN can see a discovery answer, and the lobby
refuses what does not fit. What it guards against is a mistyped or truncated paste (a 4-byte checksum) and a
hostile one (every field bounded and type-checked, one clear error line), and Noise (below libp2p) makes sure
the peer we reach is the peer id the code names.

Format (protocol.md §3.7): ``p2php-`` then unpadded base64url of ``canon(map) ‖ SHA-256(canon(map))[:4]``
where the map is ``{"v": 1, "peer": str, "addrs": [str], "relays": [str], "table": bin 8, "game": str,
"players": int, "options": map}``. Pure: no libp2p import (a joiner without it learns that from the lobby).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack

from p2php.canonical import encode
from p2php.errors import P2phpError

__all__ = ["PREFIX", "Invite", "InviteError", "Locator", "looks_like_invite", "parse_invite", "parse_locator"]

PREFIX = "p2php-"
VERSION = 1
MAX_LOCATOR = 2048
"""Longest seat locator accepted (characters)."""
MAX_CODE = 4096
"""Longest code accepted (characters): a few addresses and options fit in a tenth of it."""
MAX_ADDRS = 8
MAX_ADDR = 300
_CHECK = 4
_PEER = re.compile(r"[1-9A-HJ-NP-Za-km-z]{30,80}")  # a base58 libp2p peer id
_ADDR = re.compile(r"/[A-Za-z0-9./:_-]{1,299}")  # a multiaddr's text: no spaces, quotes or controls
_OPTION_KEY = re.compile(r"[a-z][a-z0-9_]{0,31}")


class InviteError(P2phpError, ValueError):
    """A code that cannot be an invite (mistyped, cut short, or made up); the message says which part."""


@dataclass(frozen=True)
class Invite:
    """What an invite code says about an online table."""

    peer: str  # the host lobby's libp2p peer id (base58)
    addrs: tuple[str, ...]  # multiaddrs where the host listens (may be private: tried first, then the relays)
    relays: tuple[str, ...]  # circuit relay multiaddrs (ending /p2p/RELAY_ID) where the host holds a reservation
    table: bytes  # the table id (8 bytes), as the lobby's discovery answer gives it
    game: str
    players: int
    options: Mapping[str, Any] = field(default_factory=dict)

    def code(self) -> str:
        body = encode(self._fields())
        return PREFIX + base64.urlsafe_b64encode(body + hashlib.sha256(body).digest()[:_CHECK]).decode().rstrip("=")

    def _fields(self) -> dict[str, Any]:
        return {"v": VERSION, "peer": self.peer, "addrs": list(self.addrs), "relays": list(self.relays),
                "table": self.table, "game": self.game, "players": self.players, "options": dict(self.options)}

    def circuits(self) -> list[str]:
        """The host's circuit addresses, one per relay: ``RELAY/p2p-circuit/p2p/HOST``."""
        return [f"{r}/p2p-circuit/p2p/{self.peer}" for r in self.relays]


def looks_like_invite(text: str) -> bool:
    """Whether ``p2php join`` was given a code rather than an address."""
    return text.startswith(PREFIX)


def parse_invite(text: str) -> Invite:
    """The invite in ``text`` (surrounding spaces and line breaks from a paste are dropped), or InviteError."""
    code = "".join(text.split())
    if not code.startswith(PREFIX):
        raise InviteError(f"an invite code starts with {PREFIX!r}")
    if len(code) > MAX_CODE:
        raise InviteError(f"the invite code is {len(code)} characters long; at most {MAX_CODE} are accepted")
    raw_b64 = code[len(PREFIX):]
    if not re.fullmatch(r"[A-Za-z0-9_-]*", raw_b64):
        raise InviteError("the invite code holds characters that are not base64url (was it changed in the paste?)")
    try:
        raw = base64.urlsafe_b64decode(raw_b64 + "=" * (-len(raw_b64) % 4))
    except (binascii.Error, ValueError):
        raise InviteError("the invite code is cut short or mistyped (it does not decode)") from None
    body, check = raw[:-_CHECK], raw[-_CHECK:]
    if len(raw) <= _CHECK or hashlib.sha256(body).digest()[:_CHECK] != check:
        raise InviteError("the invite code is cut short or mistyped (its checksum does not match)")
    try:
        fields = msgpack.unpackb(body, raw=False, strict_map_key=True, max_bin_len=64, max_str_len=MAX_ADDR,
                                 max_array_len=MAX_ADDRS, max_map_len=64)
    except Exception:  # noqa: BLE001 - any malformed msgpack is one answer
        raise InviteError("the invite code's content is not a p2php invite") from None
    return _from_fields(fields)


def _from_fields(fields: object) -> Invite:
    if not isinstance(fields, dict):
        raise InviteError("the invite code's content is not a p2php invite")
    if fields.get("v") != VERSION:
        raise InviteError(f"the invite is of format v{str(fields.get('v'))[:8]}; this p2php reads v{VERSION}")
    peer = fields.get("peer")
    if not (isinstance(peer, str) and _PEER.fullmatch(peer)):
        raise InviteError("the invite names no valid libp2p peer id for the host")
    addrs = _addr_list(fields.get("addrs"), "addrs")
    relays = _addr_list(fields.get("relays"), "relays")
    if not addrs and not relays:
        raise InviteError("the invite says nowhere to reach the host (no address and no relay)")
    if any("/p2p/" not in r or "/p2p-circuit" in r for r in relays):
        raise InviteError("an invite relay must be a relay's own address ending /p2p/RELAY_ID")
    table = fields.get("table")
    if not (isinstance(table, bytes) and len(table) == 8):
        raise InviteError("the invite's table id is not 8 bytes")
    game = fields.get("game")
    if not (isinstance(game, str) and re.fullmatch(r"[a-z][a-z0-9_]{0,31}", game)):
        raise InviteError("the invite names no valid game")
    players = fields.get("players")
    if not (isinstance(players, int) and not isinstance(players, bool) and 1 <= players <= 64):
        raise InviteError("the invite's player count is not a number from 1 to 64")
    options = fields.get("options")
    if not isinstance(options, dict) or not all(isinstance(k, str) and _OPTION_KEY.fullmatch(k) for k in options):
        raise InviteError("the invite's options are not a map of option names")
    if not all(isinstance(v, (str, int, bool)) for v in options.values()):
        raise InviteError("an invite option value is not a string, number or flag")
    return Invite(peer, addrs, relays, table, game, players, dict(sorted(options.items())))


def _addr_list(raw: object, what: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(a, str) and _ADDR.fullmatch(a) for a in raw):
        raise InviteError(f"the invite's {what} are not a list of multiaddrs")
    return tuple(raw)


# ----------------------------------------------------------------------------- seat locators

@dataclass(frozen=True)
class Locator:
    """Where one seat of an online table is reached: its peer id, direct multiaddrs, and relays it sits behind."""

    peer: str
    direct: tuple[str, ...]  # multiaddrs without the /p2p/PEER suffix
    relays: tuple[str, ...]  # relay multiaddrs ending /p2p/RELAY_ID (reach the seat through their circuit)

    def text(self) -> str:
        """The locator as the lobby carries it: the multiaddrs with ``/p2p/PEER``, space-separated."""
        return " ".join([f"{a}/p2p/{self.peer}" for a in self.direct]
                        + [f"{r}/p2p-circuit/p2p/{self.peer}" for r in self.relays])


def parse_locator(text: str) -> Locator:
    """A seat locator (protocol.md §3.7): 1 to 8 multiaddrs, space-separated, all ending ``/p2p/`` one peer id;
    those through a relay read ``RELAY/p2p-circuit/p2p/PEER``. InviteError says what is wrong."""
    if not isinstance(text, str) or len(text) > MAX_LOCATOR:
        raise InviteError(f"a seat locator is a string of at most {MAX_LOCATOR} characters")
    parts = text.split(" ")
    if not 1 <= len(parts) <= MAX_ADDRS or not all(_ADDR.fullmatch(p) for p in parts):
        raise InviteError(f"a seat locator is 1 to {MAX_ADDRS} multiaddrs separated by single spaces")
    peers, direct, relays = set(), [], []
    for part in parts:
        head, sep, peer = part.rpartition("/p2p/")
        if not sep or not head or not _PEER.fullmatch(peer):
            raise InviteError("every address of a seat locator ends /p2p/PEER_ID")
        peers.add(peer)
        if head.endswith("/p2p-circuit"):
            relay = head[: -len("/p2p-circuit")]
            if "/p2p/" not in relay or "/p2p-circuit" in relay:
                raise InviteError("a circuit address of a seat locator reads RELAY/p2p/RELAY_ID/p2p-circuit/p2p/PEER")
            relays.append(relay)
        elif "/p2p" in head:
            raise InviteError("a direct address of a seat locator names one peer only")
        else:
            direct.append(head)
    if len(peers) != 1:
        raise InviteError("the addresses of a seat locator name different peers")
    return Locator(peers.pop(), tuple(direct), tuple(relays))
