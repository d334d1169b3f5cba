"""rv8-qid: Peer.submit(..., turn=) with a value that is no question number ("1", 1.0, True, 10**5000).
Run: PYTHONPATH=. .venv/bin/python tests/chaos_repro/rv8_api_turn_types.py"""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from p2php.api import Peer
from tests.test_api_withdrawn_turn import _Stub


async def main() -> None:
    for name, bad in (("'1'", "1"), ("1.0", 1.0), ("True", True), ("10**5000", 10**5000)):
        peer = Peer()
        ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
        peer._ls = ls
        got: list[Any] = []
        async with trio.open_nursery() as n:
            async def q(peer: Peer = peer, ls: Any = ls, got: list[Any] = got) -> None:
                got.append(await peer._decide(ls))

            n.start_soon(q)
            await trio.testing.wait_all_tasks_blocked()
            try:
                await peer.submit(1, turn=bad)
                print(f"{name:10} -> accepted for question {peer.turn or 1}")
            except Exception as e:
                print(f"{name:10} -> {type(e).__name__}: {str(e)[:100]}")
            n.cancel_scope.cancel()


trio.run(main)
