"""A resume log GIVEN UP after a disk error does its file work in the game's loop (red-team rt7-loopio, item 2).

``ResumeWriter._give_up`` (after an ``OSError`` of the log) closes the file (writing what was queued: a write),
unlinks the ``.tmp``, renames the log aside (``….incomplete``) or unlinks it, all in the game's trio loop. A disk
that fails is often a disk that also hangs: here every ``fsync`` of seat 0's log takes 1 s and then fails (EIO),
every write of its records takes ``SLOW`` seconds (a disk that throttles its writers) and the rename aside takes
``SLOW`` seconds too. Seat 0's loop and seat 1's each run in a thread of their own (two processes).

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_give_up_in_loop.py [SLOW] [timeout]
"""

from __future__ import annotations

import errno
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
from p2php.session import resume
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, bot_decider, run_peer


def failing_disk(name: str, slow: float, held: list[str], loops: set[threading.Thread],
                 fsync_wait: float = 1.0) -> list[tuple[Any, str, Any]]:
    """The patches (object, attribute, value) of a disk that fails and hangs for the log file ``name``; each slow
    operation is noted in ``held`` with where it ran ("game loop" or "worker thread")."""
    real_fsync, real_replace, real_write = os.fsync, os.replace, resume.ResumeLog._write_queue

    def where() -> str:
        return "game loop" if threading.current_thread() in loops else "worker thread"

    def target(fd: int) -> str:
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return ""

    def fsync(fd: int) -> None:
        if target(fd).endswith(os.sep + name):
            time.sleep(fsync_wait)
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        if str(src).endswith(os.sep + name):
            held.append(f"rename aside in the {where()}")
            time.sleep(slow)
        real_replace(src, dst)

    def write_queue(self: resume.ResumeLog) -> None:
        try:
            path = target(self._file.fileno()) if self._file is not None else ""
        except ValueError:
            path = ""
        if self._queue and path.endswith(os.sep + name):
            held.append(f"write in the {where()}")
            time.sleep(slow)
        real_write(self)

    return [(os, "fsync", fsync), (os, "replace", replace), (resume.ResumeLog, "_write_queue", write_queue)]


def two_loops(tmp: Path, timeout: float, loops: set[threading.Thread], say: Any = print,
              results: dict[int, Any] | None = None) -> tuple[dict[int, Any], float]:
    """Seat 0 (its resume log in ``tmp``) and seat 1, each in a loop (thread) of its own; the verdicts and seat 0's
    loop's largest gap (``results``: filled with each seat's result)."""
    from repro_save_in_loop import Ticker, _free_port

    addresses = {s: ("127.0.0.1", _free_port()) for s in range(2)}
    verdicts: dict[int, Any] = {}
    ticker = Ticker(0.02)
    t0 = time.perf_counter()

    async def seat_task(seat: int) -> None:
        loops.add(threading.current_thread())
        listener = await listen("127.0.0.1", addresses[seat][1])
        cfg = PeerConfig("toy", {}, 2, seat, f"p{seat}", timeout=timeout, resume_timeout=30.0,
                         secrets=seeded_secrets(7, seat), linger=0.5, resume_path=tmp / f"seat{seat}.resume")
        async with trio.open_nursery() as nursery:
            if seat == 0:
                nursery.start_soon(ticker.run)
            with trio.fail_after(90):
                result = await run_peer(cfg, addresses, listener, bot_decider(RandomBot(seat)))
            nursery.cancel_scope.cancel()
        v = result.lockstep.verdict
        verdicts[seat] = v
        if results is not None:
            results[seat] = result
        say(f"{time.perf_counter() - t0:6.2f}s seat {seat}: {None if v is None else (v.code, v.culprit, v.reason)}")
        await listener.aclose()

    threads = [threading.Thread(target=trio.run, args=(seat_task, s)) for s in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return verdicts, ticker.largest


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import toygame  # noqa: F401  (registers "toy")

    slow = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    held: list[str] = []
    loops: set[threading.Thread] = set()
    for obj, attr, value in failing_disk("seat0.resume", slow, held, loops):
        setattr(obj, attr, value)
    with tempfile.TemporaryDirectory() as d:
        verdicts, gap = two_loops(Path(d), timeout, loops)
        print("slow operations:", {w: held.count(w) for w in dict.fromkeys(held)})
        print(f"seat 0's loop's largest gap: {gap * 1000:.0f} ms")
        print("files:", sorted(p.name for p in Path(d).iterdir()))
        clean = all(v is not None and v.clean for v in verdicts.values())
        print("every seat clean" if clean else "NOT CLEAN")
        sys.exit(0 if clean and not any("game loop" in h for h in held) else 1)
