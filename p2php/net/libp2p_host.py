"""The py-libp2p host every p2php node runs (a seat's, a relay's), with two of the library's habits changed.

* **A yamux ping is answered beside the reader, never by it.** py-libp2p 0.8's yamux answers a peer's ping from
  its one reading task, and waits for the connection's write lock to do it. While a stream's writer holds that
  lock, blocked because the peer's socket is full, the reader stops reading; if the peer's reader is in the same
  place (both ends sending a lot, and both ends ping 0.5 s after connecting and every 30 s after) neither socket
  drains again and the connection is dead for good: every stream on it, and every redial, which reuses it. Found
  by trio's stream conformance check (both ends send 1 MiB at once), which stalled one run in a few dozen under
  load. Here the answer goes to a task of its own, so the reader always reads on; at most one answer waits (a
  ping is only a round-trip measurement: a peer that pings faster than we can answer is not answered more).
* **No dials of its own.** py-libp2p's ``AutoConnector`` dials the peers its peerstore knows, to keep 50 to 300
  connections open (a DHT node's policy): any peer that once connected, at the addresses that peer announced.
  A seat dials the seats of its table and its relay, and a relay dials nobody; left on, a stranger could have
  our node dial addresses of its choosing, again and again.
"""

from __future__ import annotations

import functools
import importlib
import struct
from typing import Any

__all__ = ["new_host", "ping_answer"]

_HEADER = struct.Struct(">BBHII")  # yamux: version, type, flags, stream id, length (the spec's 12-byte header)
_TYPE_PING = 2
_FLAG_ACK = 2


def ping_answer(frame: bytes) -> bool:
    """Whether ``frame`` is a yamux ping's answer (a header alone: type ping, flag ACK)."""
    if len(frame) != _HEADER.size:
        return False
    _, kind, flags, _, _ = _HEADER.unpack(frame)
    return kind == _TYPE_PING and bool(flags & _FLAG_ACK)


@functools.cache
def _yamux_class() -> type:
    """py-libp2p's yamux, whose reader hands a ping's answer to a task of its own (see the module's docstring)."""
    base = importlib.import_module("libp2p.stream_muxer.yamux.yamux").Yamux

    class Yamux(base):  # type: ignore[misc, valid-type]
        _answer_waiting = False

        async def _write_frame(self, data: bytes) -> None:
            nursery = self._nursery
            if nursery is None or not ping_answer(data):
                await super()._write_frame(data)
            elif not self._answer_waiting:
                self._answer_waiting = True
                nursery.start_soon(self._answer, data)

        async def _answer(self, data: bytes) -> None:
            try:
                await super()._write_frame(data)
            except Exception:  # noqa: BLE001 - the connection broke: its reader finds out and ends it
                pass
            finally:
                self._answer_waiting = False

    return Yamux


async def _stay_off() -> None:
    """Stands in for ``AutoConnector.start``: the connector never starts, so it never dials."""


def new_host(key_pair: Any) -> Any:
    """A py-libp2p host with ``key_pair`` (None: a new one), whose yamux connections answer pings beside their
    reader and which never dials on its own. py-libp2p must be importable (``require_libp2p`` says so)."""
    host = importlib.import_module("libp2p").new_host(key_pair=key_pair)
    network = host.get_network()
    muxers = network.upgrader.muxer_multistream
    negotiated = muxers.new_conn
    ours = _yamux_class()

    async def new_conn(conn: Any, peer_id: Any) -> Any:
        # py-libp2p builds its own Yamux whatever class it is given for the protocol: it becomes ours before
        # it starts (ours only overrides methods, so it is the same object with the same state).
        muxed = await negotiated(conn, peer_id)
        if type(muxed) is ours.__base__:
            muxed.__class__ = ours
        return muxed

    muxers.new_conn = new_conn
    connector = getattr(network, "auto_connector", None)
    if connector is not None:
        connector.start = _stay_off
    return host
