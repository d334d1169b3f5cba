"""(b) A spectator's record holding a signed message refused by its shape: who the spectator named vs p2php verify.

Two cheaters at a 3-seat toy table: seat 2 plays an action every check refuses (illegal_action at 4.0); seat 1
signs a message at 0.0 padded with junk body fields (refused by its shape by anyone). A spectator watches seat 0
(live: Lockstep with no seat, fed seat 0's transcript as relays, as p2php.session.watchers does); the cheating
watched seat -- here, seat 1's junk passed along the relay stream -- reaches it either after seat 2's fault
("late") or before it ("early"). The spectator saves its record; p2php verify replays it.
"""
from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import toygame  # noqa: E402,F401
from adversarial.tampers import signed_by  # noqa: E402

from p2php.bots import RandomBot  # noqa: E402
from p2php.canonical import encode  # noqa: E402
from p2php.session import transcript  # noqa: E402
from p2php.session.lockstep import Lockstep  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402
from p2php.session.messages import MAX_UNKNOWN_BODY  # noqa: E402


def run(when: str) -> None:
    peers = make_peers("toy", 3, {}, seed=3)
    cheat = peers[2]
    send = cheat._send
    bogus: list[int] = []

    def lying_send(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action" and not bogus:
            bogus.append(cheat.tick)
            body = {**body, "action": {"type": "no_such_action"}}
        return send(kind, body)

    cheat._send = lying_send  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    zero = peers[0]
    audit1 = next(m for m in zero.transcript if m.sender == 1 and m.kind == "audit")
    junk = signed_by(peers[1], {**audit1.to_wire(), "at": [0, 0],
                                "body": {**audit1.body, "zz": bytes(MAX_UNKNOWN_BODY + 1)}})
    spectator = Lockstep(zero.game, zero.table)
    frames = [m.to_wire() for m in zero.transcript]
    fault_index = next(i for i, m in enumerate(zero.transcript) if m.sender == 2 and m.kind == "action"
                       and m.at[0] == bogus[0])
    inject = len(frames) - 1 if when == "late" else fault_index
    for i, wire in enumerate(frames + [None]):
        if i == inject:
            spectator.receive_relayed(junk)
            spectator.poll()
        if wire is not None:
            spectator.receive_relayed(wire)
            spectator.poll()
    if not spectator.finished:
        spectator.timeout()
    live = spectator.verdict
    print(f"[{when}] seat 0 named:     ", (zero.verdict.culprit, zero.verdict.code) if zero.verdict else None)
    print(f"[{when}] spectator named:  ", (live.culprit, live.code) if live else None,
          "refused kept:", len(spectator.refused), "later:", [(f.culprit, f.at) for f in spectator.later_faults])
    with tempfile.TemporaryDirectory() as d:
        path = transcript.save(spectator, Path(d) / "spectator.p2php")
        data = transcript.load(path)
        signed = hashlib.sha256(encode([list(data["messages"]), data.get("refused"), data.get("equivocations")]))
        print(f"[{when}] signed content of the record (messages, refused, equivocations): {signed.hexdigest()[:16]}")
        result = transcript.verify(path)
    v = result.spectator.verdict if result.spectator else None
    print(f"[{when}] p2php verify names:", (v.culprit, v.code) if v else None)
    for line in result.lines[-3:]:
        print("   ", line)


for when in ("late", "early"):
    run(when)
