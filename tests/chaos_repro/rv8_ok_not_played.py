"""rv8-qid: the bridge replies `ok` (with the question's number and the action) to an act that echoes the open
question's number, though the runner never gets that action: the question was withdrawn (the runner cancelled its
decider, §3.5 rejoin hold) in the same scheduling round.

The runner's own decider task (_Runner._run_decider, the real method) runs Peer._decide; the runner's loop's step is
mimicked: cancel the decider's scope, bump the run number, start the owed question's decider. The act is handled
by a real BridgeSession.
  order "cancel-first": the runner cancels A, then the act for A is read before A's task ran again (A's end drops it).
  order "act-first":    the act for A is handed to A's waiting task, then the runner cancels A before that task ran
                        (its send to the runner is cancelled).
Run: PYTHONPATH=. .venv/bin/python tests/chaos_repro/rv8_ok_not_played.py"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import trio
import trio.testing

from p2php.api import Peer
from p2php.bridge import BridgeSession, event_json
from p2php.session.runner import _Runner
from tests.test_api_withdrawn_turn import _Stub


async def once(order: str) -> tuple[list[Any], list[dict[str, Any]]]:
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    out: list[dict[str, Any]] = []
    session = BridgeSession(out.append)
    session.peer = peer
    runner: Any = SimpleNamespace(decide=peer._decide, ls=ls)
    to_runner, from_deciders = trio.open_memory_channel[Any](16)
    async with trio.open_nursery() as n:
        scope_a = trio.CancelScope()
        n.start_soon(_Runner._run_decider, runner, to_runner.clone(), 1, scope_a)
        await trio.testing.wait_all_tasks_blocked()
        a = event_json(peer._events_rx.receive_nowait())
        act = json.dumps({"op": "act", "index": 1, "turn": a["turn"]})
        if order == "cancel-first":
            scope_a.cancel()  # the runner's loop: A withdrawn ...
            n.start_soon(_Runner._run_decider, runner, to_runner.clone(), 2, trio.CancelScope())  # ... B asked
            await session.handle(act)  # the client's act for A, read in the same round
        else:
            await session.handle(act)  # the act for A, handed to A's waiting task ...
            scope_a.cancel()  # ... and the runner withdraws A before that task ran
            n.start_soon(_Runner._run_decider, runner, to_runner.clone(), 2, trio.CancelScope())
        await trio.testing.wait_all_tasks_blocked()
        n.cancel_scope.cancel()
    got = []
    while True:
        try:
            got.append(from_deciders.receive_nowait())
        except trio.WouldBlock:
            break
    return got, [o for o in out if o.get("op") == "act"]


async def main() -> None:
    for order in ("cancel-first", "act-first"):
        false_ok = 0
        for _i in range(20):
            got, replies = await once(order)
            ok = [r for r in replies if r["event"] == "ok"]
            played = [g for g in got if g[0] == "act" and g[2] == 1]
            if ok and not played:
                false_ok += 1
                if false_ok == 1:
                    print(f"{order}: bridge replied {json.dumps(ok[0])}; the runner got from question 1: {played}")
        print(f"{order}: `ok` for an action the runner never got, in {false_ok} of 20 tries")


trio.run(main)
