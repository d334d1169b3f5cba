"""A disk that throttles its writers (rt6-faults): every write() of seat 0's resume log takes ``SLOW`` seconds.

The log's per-message ``fsync`` runs in a worker thread, and a late sync waits for the worker's write at most a
bounded time (test_resume_slow_disk.py's ``test_a_late_sync_waits_a_bounded_time_for_a_slow_write``). But that test
runs both seats in ONE trio loop, so a write that blocks the game's own thread blocks the other seat too, and is
never seen. Here each seat has a loop (a thread) of its own, as two processes do.

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_slow_write.py [SLOW] [timeout] [resume_timeout]
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from p2php.session import resume


def slow_writes(name: str, slow: float, where: list[str], game_threads: set[threading.Thread]) -> Any:
    """A ``ResumeLog._write_queue`` whose write() takes ``slow`` seconds for the log file ``name``; each write held
    is noted in ``where``: in a thread of ``game_threads`` (a seat's trio loop) or in a worker thread."""
    real = resume.ResumeLog._write_queue

    def write_queue(self: resume.ResumeLog) -> None:
        try:
            target = os.readlink(f"/proc/self/fd/{self._file.fileno()}") if self._file is not None else ""
        except (OSError, ValueError):
            target = ""
        if self._queue and target.endswith(os.sep + name):
            where.append("worker thread" if threading.current_thread() not in game_threads else "game loop")
            time.sleep(slow)  # the write() blocks: the kernel throttles a writer of much unwritten data
        real(self)

    return write_queue


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import toygame  # noqa: F401  (registers "toy")
    from repro_slow_create import slow_create_table

    slow = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    resume_timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    held: list[str] = []
    loops: set[threading.Thread] = set()
    resume.ResumeLog._write_queue = slow_writes("seat0.resume", slow, held, loops)  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as d:
        out = slow_create_table(Path(d), timeout, resume_timeout, loops=loops)
        print("writes held:", {w: held.count(w) for w in set(held)})
        clean = all(v is not None and v.clean for v in out.values())
        print("every seat clean" if clean else "NOT CLEAN")
        sys.exit(0 if clean else 1)
