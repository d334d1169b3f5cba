"""A resumed seat whose log holds its own abort stops where it sent it, with its own fault (review 5).

Seat 2 names seat 1 silent at the set-up and sends its audit. Logged after that: (A) the cheater seat 0's abort
naming seat 2 silent; (B) seat 1's late messages. Before, the rebuilt peer took the first abort in seat order as its
fault, so (A) ``restore`` refused the log (“replaying the log faults our own seat”), and in (B) seat 1's late
message took it past the point it had stopped at, to a deckkey of its own it never sent (after its own audit), its
own finding turned into an accusation of its own (``fault_from`` 2) to confirm."""

from __future__ import annotations

from typing import Any

import pytest

from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, seeded_secrets
from p2php.session.records import Fault, FaultCode
from p2php.session.resume import _restore

SEED = 7


def _pump(peers: list[Lockstep], hold: set[tuple[int, int]], held: list[tuple[int, int, Any]]) -> bool:
    moved = False
    for ls in peers:
        for msg in ls.poll():
            moved = True
            for other in peers:
                frame = None if other is ls else ls.wire_for(msg, other.seat)
                if frame is None:
                    continue
                if (ls.seat, other.seat) in hold:
                    held.append((ls.seat, other.seat, frame))
                else:
                    other.receive(ls.seat, frame)
        forwarded, ls.forward = ls.forward, []
        for wire in forwarded:
            for other in peers:
                if other is not ls and (ls.seat, other.seat) not in hold:
                    other.receive_relayed(wire)
    return moved


@pytest.mark.parametrize("later", ["abort_naming_us", "late_message"])
def test_own_abort_in_the_log_stops_the_rebuilt_peer_where_it_was_sent(later: str) -> None:
    peers = make_peers("uno", 3, {}, seed=SEED)
    log: list[dict[str, Any]] = []
    peers[2].record = log.append
    held: list[tuple[int, int, Any]] = []
    hold = {(1, 2)} if later == "late_message" else {(1, 0), (1, 2)}
    for _ in range(50):
        if not _pump(peers, hold, held):
            break
    at = (peers[2].tick, peers[2].phase)
    assert peers[2].waiting_for() == [1]
    peers[2].timeout([1])
    _pump(peers, hold | {(2, 0), (2, 1)}, [])
    assert peers[2].fault is not None and peers[2].fault.culprit == 1 and peers[2].fault_from is None
    if later == "abort_naming_us":  # the cheater seat 0
        peers[0]._raise_fault(Fault(2, "no message came from it", (peers[0].tick, peers[0].phase), FaultCode.SILENT))
        for msg in peers[0].poll():
            if msg.kind == "abort":
                peers[2].receive(0, peers[0].wire_for(msg, 2))
    else:
        for frm, to, frame in held:
            if to == 2:
                peers[2].receive(frm, frame)
    header = {"game": "uno", "options": {}, "hellos": list(peers[2].table.hellos), "seat": 2,
              "master": seeded_secrets(SEED, 2).master}
    ls = _restore("seat2.resume", header, log)  # before, (A): ResumeError, replaying the log faults our own seat
    assert ls.auditing and (ls.tick, ls.phase) == at
    assert ls.fault is not None and ls.fault.culprit == 1 and ls.fault.code == FaultCode.SILENT
    assert ls.fault_from is None  # our own finding, as it was
    assert ls.waiting_at_abort == [1]
    assert ls.outbox == []  # nothing of ours made again, nothing new
    # resumed again, from the log the first resume writes (transcript, queues, parked): the same
    log2 = [ls.logged_wire(m) for m in ls.transcript] + [ls.logged_wire(m) for q in ls.inbox.values() for m in q]
    log2 += [f for frames in ls.parked.values() for f in frames]
    ls2 = _restore("seat2.resume", header, log2)
    assert ls2.auditing and (ls2.tick, ls2.phase) == at and ls2.fault == ls.fault and ls2.fault_from is None
    assert ls2.outbox == []
