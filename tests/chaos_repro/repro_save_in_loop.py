"""A slow disk as a game's TRANSCRIPT is saved holds the whole trio loop (red-team rt7-loopio, item 1).

``run_peer`` (and ``p2php.api``'s table, and ``p2php host``/``join``) saves the transcript at the game's end with
``transcript.save``: a write, an ``fsync`` of the file and one of its folder, all in the caller's trio loop. With a
slow disk (an SD card, a USB stick with much unwritten data: here each of those ``fsync``s takes ``SLOW`` seconds)
the loop stands still 2 x ``SLOW``: an embedding app's UI, and every other table the app plays in that loop.

Part A: a ticker task (every 50 ms) beside a 2-seat table whose seat 0 saves a transcript in the slow folder: its
largest gap. Part B: the same loop also plays seat 0 of a second table (table B) whose seat 1 is in another loop
(a thread: another process): while table A's save holds the loop, table B's seat 0 answers nothing.

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_save_in_loop.py [SLOW] [timeout]
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import trio

from p2php.bots import RandomBot
from p2php.net.mesh import listen, listener_port
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, bot_decider, run_peer, slowed


def slow_fsync_under(folder: Path, slow: float, real: Any = os.fsync) -> tuple[Any, list[str]]:
    """An ``os.fsync`` that takes ``slow`` seconds for ``folder`` and every file in it; what it slowed, in order."""
    slowed_: list[str] = []
    where = str(folder)

    def fsync(fd: int) -> None:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if target == where or target.startswith(where + os.sep):
            slowed_.append(os.path.basename(target))
            time.sleep(slow)
        real(fd)

    return fsync, slowed_


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Ticker:
    """A task that sleeps ``every`` seconds and records the largest gap between its wake-ups (the loop held)."""

    def __init__(self, every: float = 0.05) -> None:
        self.every = every
        self.largest = 0.0

    async def run(self) -> None:
        last = time.monotonic()
        while True:
            await trio.sleep(self.every)
            now = time.monotonic()
            self.largest = max(self.largest, now - last - self.every)
            last = now


async def table_a(tmp: Path, timeout: float) -> Any:
    """Two seats in this loop; seat 0 saves its transcript in ``tmp / "slow"``: seat 0's result."""
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    results: dict[int, Any] = {}

    async def one(seat: int) -> None:
        cfg = PeerConfig("toy", {}, 2, seat, f"a{seat}", timeout=timeout, resume_timeout=10.0,
                         secrets=seeded_secrets(3, seat), linger=0.5,
                         transcript_path=tmp / "slow" / f"a{seat}.p2php" if seat == 0 else None)
        results[seat] = await run_peer(cfg, addresses, listeners[seat], bot_decider(RandomBot(seat)))
        await listeners[seat].aclose()

    async with trio.open_nursery() as nursery:
        for seat in range(2):
            nursery.start_soon(one, seat)
    return results[0]


def part_a(tmp: Path, timeout: float) -> float:
    ticker = Ticker()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ticker.run)
            await table_a(tmp, timeout)
            nursery.cancel_scope.cancel()

    trio.run(main)
    return ticker.largest


def part_b(tmp: Path, timeout: float, delay: float) -> dict[int, Any]:
    """Table B: seat 0 in the loop of table A (started ``delay`` s after B), seat 1 in a loop of its own."""
    addresses = {s: ("127.0.0.1", _free_port()) for s in range(2)}
    verdicts: dict[int, Any] = {}
    t0 = time.perf_counter()

    async def seat_b(seat: int) -> None:
        listener = await listen("127.0.0.1", addresses[seat][1])
        cfg = PeerConfig("toy", {}, 2, seat, f"b{seat}", timeout=timeout, resume_timeout=30.0,
                         secrets=seeded_secrets(5, seat), linger=0.5)
        with trio.fail_after(90):
            result = await run_peer(cfg, addresses, listener, slowed(bot_decider(RandomBot(seat)), timeout / 3))
        v = result.lockstep.verdict
        verdicts[seat] = v
        print(f"{time.perf_counter() - t0:6.2f}s table B seat {seat}: "
              f"{None if v is None else (v.code, v.culprit, v.reason)}")
        await listener.aclose()

    async def loop_one() -> None:  # the app's loop: table B's seat 0, then table A beside it
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat_b, 0)
            await trio.sleep(delay)
            began = time.perf_counter()
            await table_a(tmp, timeout)
            print(f"{time.perf_counter() - t0:6.2f}s table A over (its run_peer took "
                  f"{time.perf_counter() - began:.2f} s)")

    other = threading.Thread(target=trio.run, args=(seat_b, 1))
    other.start()
    trio.run(loop_one)
    other.join()
    return verdicts


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import toygame  # noqa: F401  (registers "toy")

    slow = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "slow").mkdir()
        os.fsync, slowed_ = slow_fsync_under(Path(d) / "slow", slow)  # type: ignore[assignment]
        gap = part_a(Path(d), timeout)
        print(f"part A: slowed fsyncs {slowed_}; the loop's largest gap: {gap * 1000:.0f} ms")
        slowed_.clear()
        verdicts = part_b(Path(d), timeout, 1.0)
        print(f"part B: slowed fsyncs {slowed_}")
        clean = all(v is not None and v.clean for v in verdicts.values())
        print("table B: every seat clean" if clean else "table B: NOT CLEAN")
        sys.exit(0 if clean and gap < 0.5 else 1)
