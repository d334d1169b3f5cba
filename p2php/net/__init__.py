"""The network edge: length-prefixed msgpack frames (sans-IO) and a full TCP mesh (trio).

:mod:`p2php.net.framing` knows bytes and nothing about sockets; :mod:`p2php.net.mesh`
owns the sockets and nothing about games.  The session layer speaks dicts to a
:class:`Mesh` and gets :class:`Frame` / :class:`PeerError` events back.
"""

from p2php.net.framing import MAX_FRAME, FrameDecoder, FrameError, decode_frame_body, encode_frame
from p2php.net.mesh import (
    Frame,
    HandshakeError,
    Mesh,
    MeshError,
    MeshEvent,
    PeerError,
    listen,
    listener_port,
    open_mesh,
)
from p2php.net.ports import DISCOVERY_PORT, LOBBY_PORT

__all__ = [
    "DISCOVERY_PORT",
    "LOBBY_PORT",
    "MAX_FRAME",
    "MeshEvent",
    "Frame",
    "FrameDecoder",
    "FrameError",
    "HandshakeError",
    "Mesh",
    "MeshError",
    "PeerError",
    "decode_frame_body",
    "encode_frame",
    "listen",
    "listener_port",
    "open_mesh",
]
