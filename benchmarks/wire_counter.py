"""What every peer of a :class:`~p2php.testing.protocol.ProtocolTable` broadcasts while a ``with`` block runs:
messages, frames and bytes on all links (msgpack of the wire form each recipient gets), and the message kinds —
for the benchmarks that price one step of a game (``hpsha_remask_cost.py``, ``hogwarts_remask_cost.py``)."""

from __future__ import annotations

from typing import Any

import msgpack

from p2php.testing.protocol import ProtocolTable


class Counter:
    """Counts what every peer broadcasts while in use (it stands in for ``ProtocolTable._collect``)."""

    def __init__(self) -> None:
        self.count = {"msgs": 0, "frames": 0, "bytes": 0}
        self.kinds: dict[str, int] = {}
        self.orig = ProtocolTable._collect

    def __enter__(self) -> Counter:
        count, kinds = self.count, self.kinds

        def collect(table: ProtocolTable, ls: Any) -> None:
            for msg in ls.poll():
                count["msgs"] += 1
                kinds[msg.kind] = kinds.get(msg.kind, 0) + 1
                for other in table.peers:
                    if other is not ls and other.seat is not None:
                        wire = ls.wire_for(msg, other.seat)
                        count["bytes"] += len(msgpack.packb(wire, use_bin_type=True))
                        count["frames"] += 1
                        table._queues[other.seat].append((ls.seat, wire))
                        table.frames += 1

        ProtocolTable._collect = collect  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        ProtocolTable._collect = self.orig  # type: ignore[method-assign]
