"""``p2php.api.resume_peer`` rebuilds the peer from its resume log IN THE APP'S LOOP (red-team rt7-loopio, item 4):
``resume.restore`` reads the file (up to 256 MiB) and re-verifies and replays every logged message there. This
script plays a 2-seat ``GAME`` (default uno) with resume logs, then times ``restore`` of seat 0's log with a
ticker task beside it in one loop (as an app with another table, or a UI, has).

    .venv/bin/python tests/chaos_repro/repro_restore_in_loop.py [GAME] [loop|thread ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from p2php.bots import RandomBot
from p2php.net.mesh import listen, listener_port
from p2php.session import resume
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, bot_decider, run_peer


async def play(tmp: Path, game: str) -> Any:
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    out: dict[int, Any] = {}

    async def one(seat: int) -> None:
        cfg = PeerConfig(game, {}, 2, seat, f"p{seat}", timeout=30.0, resume_timeout=30.0,
                         secrets=seeded_secrets(11, seat), linger=0.5, resume_path=tmp / f"seat{seat}.resume")
        out[seat] = await run_peer(cfg, addresses, listeners[seat], bot_decider(RandomBot(seat)))
        await listeners[seat].aclose()

    async with trio.open_nursery() as nursery:
        for seat in range(2):
            nursery.start_soon(one, seat)
    return out[0]


async def timed_restore(path: Path, how: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from repro_save_in_loop import Ticker

    ticker = Ticker(0.02)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ticker.run)
        await trio.sleep(0.1)
        began = time.perf_counter()
        if how == "loop":
            _, ls = resume.restore(path)  # as api.resume_peer's play() did, in the loop
        else:
            _, ls = await trio.to_thread.run_sync(resume.restore, path)  # as it does since
        took = time.perf_counter() - began
        await trio.sleep(0.1)
        nursery.cancel_scope.cancel()
    print(f"{how}: restore of {path.stat().st_size} bytes, {len(ls.transcript)} messages: {took * 1000:.0f} ms; "
          f"the loop's largest gap {ticker.largest * 1000:.0f} ms")


if __name__ == "__main__":
    game = sys.argv[1] if len(sys.argv) > 1 else "uno"
    with tempfile.TemporaryDirectory() as d:
        trio.run(play, Path(d), game)
        for how in sys.argv[2:] or ["loop", "thread"]:
            trio.run(timed_restore, Path(d) / "seat0.resume", how)
