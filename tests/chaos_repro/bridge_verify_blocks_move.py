"""(d) The bridge's ``verify`` holds the client's next commands: ``_op_verify`` awaits the whole check
(``trio.to_thread.run_sync(api.verify_transcript, path)``, p2php/bridge/session.py) inside ``handle``, and ``run``
reads no command meanwhile. A client playing a game verifies a long record (here the previous game's, a 2-seat UNO
game of 28 980 messages, 11.9 MB) and sends its move at once, as a client that does not wait for each reply does;
the move is read only when the check is done.

    .venv/bin/python tests/chaos_repro/bridge_verify_blocks_move.py [TRANSCRIPT] [TIMEOUT]
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import trio

from p2php.bridge.session import BridgeSession

PATH = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parent / "long" / "uno.p2php")
TIMEOUT = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0


async def main() -> None:
    send, receive = trio.open_memory_channel[str](100)
    events: list[dict[str, Any]] = []
    turns = [0]
    t0 = time.monotonic()

    def emit(event: dict[str, Any]) -> None:
        event = json.loads(json.dumps(event, default=str))
        events.append(event)
        kind = event.get("event")
        if kind == "verified":
            print(f"{time.monotonic() - t0:6.1f} s verified: ok={event.get('ok')}")
        if kind == "your_turn":
            turns[0] += 1
            if turns[0] == 2:
                print(f"{time.monotonic() - t0:6.1f} s our 2nd turn: verify {PATH}, then act at once")
                send.send_nowait(json.dumps({"op": "verify", "path": PATH}))
            send.send_nowait(json.dumps({"op": "act", "index": 0}))
        elif kind in ("game_over", "failed"):
            print(f"{time.monotonic() - t0:6.1f} s {kind}: culprit={event.get('culprit')} code={event.get('code')} "
                  f"reason={str(event.get('reason'))[:120]!r}")
            send.send_nowait(json.dumps({"op": "quit"}))

    async def lines() -> Any:
        async for line in receive:
            yield line

    send.send_nowait(json.dumps({"op": "demo", "game": "uno", "bots": 1, "seed": 3, "timeout": TIMEOUT}))
    with trio.fail_after(600):
        await BridgeSession(emit).run(lines())


trio.run(main)
