"""An in-memory table whose chosen direct messages reach their receiver only once it audits (tests' helper).

The attribution tests need a delivery order that no honest network forbids: a seat that stops on an abort before
it read an answer, and reads that answer in its audit round.
"""

from __future__ import annotations

from typing import Any

from p2php.bots import RandomBot
from p2php.session.lockstep import Lockstep


def run_holding(peers: list[Lockstep], hold: Any, seed: int) -> None:
    """``run_in_memory``, but a direct message ``hold(sender, to, wire)`` picks reaches ``to`` only once it audits."""
    from collections import deque

    bots = {s: RandomBot(seed * 10 + s) for s in range(len(peers))}
    queue: deque[tuple[int, int, dict[str, Any], bool]] = deque()
    held: list[tuple[int, int, dict[str, Any], bool]] = []

    def deliver(sender: int, to: int, wire: dict[str, Any], relay: bool) -> None:
        if not relay and not peers[to].auditing and hold(sender, to, wire):
            held.append((sender, to, wire, relay))
        elif relay:
            peers[to].receive_relayed(wire)
        else:
            peers[to].receive(sender, wire)

    for _ in range(100_000):
        moved = False
        for ls in peers:
            if ls.finished:
                continue
            assert ls.seat is not None
            while True:
                if ls.awaiting_me():
                    ls.act(bots[ls.seat].choose(ls.state, ls.seat, ls.knowledge(), ls.legal_actions()))
                for msg in ls.poll():
                    moved = True
                    queue.extend((ls.seat, o.seat, ls.wire_for(msg, o.seat), False) for o in peers if o is not ls
                                 and o.seat is not None)
                if not ls.awaiting_me():
                    break
            forwarded, ls.forward = ls.forward, []
            queue.extend((ls.seat, o.seat, w, True) for w in forwarded for o in peers if o is not ls
                         and o.seat is not None)
        while queue:
            moved = True
            deliver(*queue.popleft())
        for h in [h for h in held if peers[h[1]].auditing]:
            moved = True
            held.remove(h)
            deliver(*h)
        if all(p.finished for p in peers):
            break
        if not moved:
            for p in peers:
                if not p.finished:
                    p.timeout()
