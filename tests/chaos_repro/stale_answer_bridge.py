"""A bridge client's answer for a withdrawn your_turn lands on the next question (no question number).

Two seats, UNO. Seat 1's machine dies while it owes a move; its log is cut back to an earlier point where it was to
move (a power cut). Resumed (api.resume_peer's path: run_peer(restored=...) with a Peer's decider), it is asked in
the rejoin hold about that stale point (question A), which seat 0 hands back within a fraction of a second: A is
withdrawn and the owed question B is asked. Seat 1's Peer is served by a real BridgeSession; its client (a person
who thinks 1.5 s) answers the your_turn it read, A, with {"op": "act", "index": k}: the bridge applies it to B.
Run: PYTHONPATH=. .venv/bin/python tests/chaos_repro/stale_answer_bridge.py [--echo]
(--echo: the client echoes your_turn's "turn", after the fix; exit status 1 if an answer landed on another question.)
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import trio

from p2php.api import Peer
from p2php.bridge import BridgeSession, event_json
from p2php.net.mesh import listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import run_peer
from tests.log_cut import LogCut
from tests.test_resume_hold_stale_ask import _bot, _cfg

THINK = 1.5
ECHO = "--echo" in sys.argv


async def main(tmp_path: Path) -> int:
    log = tmp_path / "seat1.resume"
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    results: dict[int, Any] = {}
    power = trio.CancelScope()
    marks: list[tuple[int, int]] = []
    counter = LogCut()
    out: list[dict[str, Any]] = []
    applied: list[Any] = []

    def observe(ls: Lockstep, _lines: Any) -> None:
        counter.watch(ls)
        if ls.tick >= 20 and ls.awaiting_me() and (not marks or marks[-1][0] != ls.tick):
            marks.append((ls.tick, counter.mark(ls)))
            if len(marks) == 2:
                power.cancel()

    async def seat_0() -> None:
        results[0] = await run_peer(_cfg(0, tmp_path, seeded_secrets(2, 0)), addresses, listeners[0], _bot(0))

    async def seat_1() -> None:
        with power:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(2, 1)), addresses, listeners[1], _bot(1), observe)
        await listeners[1].aclose()
        counter.cut(log, marks[0][1])
        header, ls = restore(log)
        again = await listen("127.0.0.1", addresses[1][1])
        peer = Peer()
        session = BridgeSession(out.append)
        session.peer = peer  # what _table sets once the table runs

        async def client() -> None:  # reads events in order, as any bridge client does
            first, shown = True, 0
            async for event in peer.events():
                ev = event_json(event)
                if ev["event"] != "your_turn":
                    continue
                t = trio.current_time()
                if first or shown < 3:
                    tick = peer.lockstep.tick
                    print(f"client reads a your_turn (the game is now at tick {tick}): {len(ev['legal'])} legal, "
                          f"first {json.dumps(ev['legal'][0])}, last {json.dumps(ev['legal'][-1])}")
                await trio.sleep(THINK if first else 0.2)
                k = len(ev["legal"]) - 1
                if first or shown < 3:
                    took = trio.current_time() - t
                    print(f"  client answers it after {took:.1f}s: index {k} = {json.dumps(ev['legal'][k])}")
                n = len(out)
                act = {"op": "act", "index": k, **({"turn": ev["turn"]} if ECHO else {})}
                await session.handle(json.dumps(act))
                for reply in out[n:]:
                    if first or shown < 3:
                        print("  bridge replies:", json.dumps(reply))
                    if reply.get("op") == "act" and reply["event"] == "ok":
                        applied.append((first, ev["legal"][k], reply["action"]))
                first = False
                shown += 1

        asked = [0]

        async def decide(ls: Lockstep) -> Any:
            asked[0] += 1
            if asked[0] <= 4:
                print(f"runner asks seat 1 at tick {ls.tick} phase {ls.phase}")
            return await peer._decide(ls)

        async with trio.open_nursery() as n:
            n.start_soon(client)
            results[1] = await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"])), addresses, again,
                                        decide, peer._observe, restored=ls)
            n.cancel_scope.cancel()
        await again.aclose()

    with trio.fail_after(150):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat_0)
            nursery.start_soon(seat_1)
    for s in (0, 1):
        v = results[s].lockstep.verdict
        print(f"seat {s} verdict:", None if v is None else (v.code, v.culprit))
    stale = [a for a in applied if a[0]]
    print("answers meant for the withdrawn question A that the bridge played on another question:", len(stale))
    return 1 if stale else 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        sys.exit(trio.run(main, Path(d)))
