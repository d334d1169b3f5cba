"""A transcript saved MID-GAME in the game's own loop (red-team rt7-loopio, item 4): the bridge's ``save`` command
(``p2php.bridge.session._op_save``) called ``Peer.save_transcript``, a write and two ``fsync``s in the loop that
plays the seat. Each ``fsync`` of the slow folder takes ``SLOW`` seconds. Seat 0 (its loop in a thread) saves as
soon as it holds 4 messages; seat 1 plays in a loop of its own (another process).

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_save_mid_game.py [sync|async] [SLOW] [timeout]

``sync`` is what the bridge did (``transcript.save``), ``async`` what it does since (``transcript.save_async``).
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import trio

from p2php.bots import RandomBot
from p2php.net.mesh import listen
from p2php.session import transcript
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, bot_decider, run_peer, slowed


def table(tmp: Path, how: str, timeout: float) -> dict[int, Any]:
    from repro_save_in_loop import Ticker, _free_port

    addresses = {s: ("127.0.0.1", _free_port()) for s in range(2)}
    verdicts: dict[int, Any] = {}
    t0 = time.perf_counter()

    async def seat_task(seat: int) -> None:
        listener = await listen("127.0.0.1", addresses[seat][1])
        cfg = PeerConfig("toy", {}, 2, seat, f"p{seat}", timeout=timeout, resume_timeout=30.0,
                         secrets=seeded_secrets(5, seat), linger=0.5)
        seen: list[Lockstep] = []
        ticker = Ticker()

        def observe(ls: Lockstep, _: list[str]) -> None:
            seen[:] = [ls]

        async def save_mid_game() -> None:
            while not (seen and len(seen[0].transcript) >= 4):
                await trio.sleep(0.01)
            began = time.perf_counter()
            if how == "sync":
                transcript.save(seen[0], tmp / "slow" / "mid.p2php")
            else:
                await transcript.save_async(seen[0], tmp / "slow" / "mid.p2php")
            took = time.perf_counter() - began
            print(f"{time.perf_counter() - t0:6.2f}s seat 0 saved mid-game ({how}, {took:.2f} s)")

        async with trio.open_nursery() as nursery:
            if seat == 0:
                nursery.start_soon(ticker.run)
                nursery.start_soon(save_mid_game)
            with trio.fail_after(90):
                result = await run_peer(cfg, addresses, listener, slowed(bot_decider(RandomBot(seat)), 0.3),
                                        observe if seat == 0 else None)
            nursery.cancel_scope.cancel()
        v = result.lockstep.verdict
        verdicts[seat] = v
        print(f"{time.perf_counter() - t0:6.2f}s seat {seat}: {None if v is None else (v.code, v.culprit, v.reason)}"
              + (f"; its loop's largest gap {ticker.largest * 1000:.0f} ms" if seat == 0 else ""))
        await listener.aclose()

    threads = [threading.Thread(target=trio.run, args=(seat_task, s)) for s in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return verdicts


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import toygame  # noqa: F401  (registers "toy")
    from repro_save_in_loop import slow_fsync_under

    how = sys.argv[1] if len(sys.argv) > 1 else "sync"
    slow = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "slow").mkdir()
        os.fsync, _ = slow_fsync_under(Path(d) / "slow", slow)  # type: ignore[assignment]
        verdicts = table(Path(d), how, timeout)
        clean = all(v is not None and v.clean for v in verdicts.values())
        print("every seat clean" if clean else "NOT CLEAN")
        sys.exit(0 if clean else 1)
