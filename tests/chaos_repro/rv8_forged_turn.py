"""rv8-qid: forged `turn` values in a bridge act (huge, negative, bool, float, string, list, missing): each must be
one bounded error line (or, missing, the open question), nothing played, the question still open.
Run: PYTHONPATH=. .venv/bin/python tests/chaos_repro/rv8_forged_turn.py"""

from __future__ import annotations

import json
from typing import Any

import trio
import trio.testing

from p2php.api import Peer
from p2php.bridge import BridgeSession
from tests.test_api_withdrawn_turn import _Stub


async def main() -> None:
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    out: list[dict[str, Any]] = []
    session = BridgeSession(out.append)
    session.peer = peer
    got: list[Any] = []
    async with trio.open_nursery() as n:
        async def q() -> None:
            got.append(await peer._decide(ls))
        n.start_soon(q)
        await trio.testing.wait_all_tasks_blocked()
        open_turn = peer.turn
        raws = ['"turn": ' + "9" * 4300, '"turn": ' + "9" * 4301, '"turn": -1', '"turn": true', '"turn": 1.0',
                '"turn": "1"', '"turn": [1]', '"turn": {"a": 1}', '"turn": 1e400', '"turn": ' + "1" * 200000,
                '"turn": 0', '"turn": -' + "9" * 4000]
        for raw in raws:
            n0 = len(out)
            line = '{"op": "act", "index": 0, ' + raw + '}'
            await session.handle(line)
            await trio.testing.wait_all_tasks_blocked()
            replies = out[n0:]
            size = max(len(json.dumps(r)) for r in replies)
            print(f"{raw[:30]:32} -> {len(replies)} reply, longest {size} chars: {json.dumps(replies[0])[:150]}")
            assert got == [] and peer.turn == open_turn
        await session.handle('{"op": "act", "index": 1}')
    print("open question still took its answer:", got)


trio.run(main)
