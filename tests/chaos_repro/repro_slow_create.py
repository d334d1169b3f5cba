"""A slow disk as the resume log is CREATED (rt6-faults, item 1 of the sitting's note).

Two honest seats play the toy game over loopback, each with a resume log in a folder of its own. Seat 0's disk is
slow only while its log is made: the ``fsync`` of ``seat0.resume.tmp`` and of its folder (the rename) each take
``SLOW`` seconds (an SD card or a USB stick with much unwritten data, as the game starts). The per-message
``fsync``s of the log afterwards are fast.

Before the fix the log's creation ran in the game's trio loop (``ResumeLog.create`` from ``_Runner.__init__``): the
seat's whole process stood still for 2 x ``SLOW`` seconds, answered no heartbeat, and the other seat gave it up
(its link down, then ``resume_timeout``) — the game ended "could not reach" though every seat was honest and up.

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_slow_create.py [SLOW] [timeout] [resume_timeout]
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
from p2php.net.mesh import listen
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, bot_decider, run_peer


def slow_creation(folder: Path, slow: float, real: Any = os.fsync) -> tuple[Any, list[str]]:
    """An ``os.fsync`` that takes ``slow`` seconds for the files being made in ``folder`` (``*.tmp``) and for the
    folder itself, and the list of what it slowed (filled as it runs)."""
    slowed: list[str] = []
    where = str(folder)

    def fsync(fd: int) -> None:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if target == where or (target.startswith(where + os.sep) and target.endswith(".tmp")):
            slowed.append(os.path.basename(target))
            time.sleep(slow)
        real(fd)

    return fsync, slowed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def slow_create_table(tmp: Path, timeout: float = 2.0, resume_timeout: float = 5.0,
                      say: Any = print, loops: set[threading.Thread] | None = None) -> dict[int, Any]:
    """Play the table, each seat in a thread of its own (its own trio loop: a seat that stands still does not stop
    the other); seat -> its verdict (seat 0's folder is the slow one)."""
    players = 2
    addresses = {s: ("127.0.0.1", _free_port()) for s in range(players)}
    verdicts: dict[int, Any] = {}
    t0 = time.perf_counter()

    async def one(seat: int) -> None:
        if loops is not None:
            loops.add(threading.current_thread())  # (this seat's trio loop runs in it)
        folder = tmp / f"s{seat}"
        listener = await listen("127.0.0.1", addresses[seat][1])
        cfg = PeerConfig("toy", {}, players, seat, f"p{seat}", timeout=timeout, resume_timeout=resume_timeout,
                         secrets=seeded_secrets(7, seat), resume_path=folder / f"seat{seat}.resume", linger=1.0)
        with trio.fail_after(60):
            result = await run_peer(cfg, addresses, listener, bot_decider(RandomBot(seat)))
        verdicts[seat] = result.lockstep.verdict
        v = verdicts[seat]
        say(f"{time.perf_counter() - t0:6.2f}s seat {seat}: "
            f"{None if v is None else (v.code, v.culprit, v.seats, v.reason)}")
        await listener.aclose()

    threads = [threading.Thread(target=trio.run, args=(one, seat)) for seat in range(players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return verdicts


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import toygame  # noqa: F401  (registers "toy")

    slow = float(sys.argv[1]) if len(sys.argv) > 1 else 6.0
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    resume_timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "s0").mkdir()
        os.fsync, slowed = slow_creation(Path(d) / "s0", slow)  # type: ignore[assignment]
        out = slow_create_table(Path(d), timeout, resume_timeout)
        print("slowed fsyncs:", slowed)
        clean = all(v is not None and v.clean for v in out.values())
        print("every seat clean" if clean else "NOT CLEAN")
        sys.exit(0 if clean else 1)
