"""rv7-loopio: a Ctrl-C while ``save_async`` waits for a slow disk (``p2php peer``'s run_peer saves in the main task).
``save_async`` waits for the write shielded only on ``trio.Cancelled``; trio raises a Ctrl-C in the main task as a
KeyboardInterrupt: the process ends at once, its worker thread with it, and no transcript is left.

Run: .venv/bin/python tests/chaos_repro/rv7_ctrl_c_save.py
"""
from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import toygame  # noqa: E402,F401

from p2php.bots import RandomBot  # noqa: E402
from p2php.session import transcript  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402

SLOW = 0.5
real_fsync = os.fsync


interrupted: list[bool] = []


def slow_fsync(fd: int) -> None:
    if not interrupted:  # Ctrl-C once the save's worker is at the disk (a timer started with the save fired, on a
        interrupted.append(True)  # loaded machine, after the save and trio.run had ended: no "interrupted" line)
        os.kill(os.getpid(), signal.SIGINT)
    time.sleep(SLOW)
    real_fsync(fd)


async def main(path: Path) -> None:
    peers = make_peers("toy", 2, seed=1)
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    await transcript.save_async(peers[0], path)


signal.signal(signal.SIGINT, signal.default_int_handler)  # (a Ctrl-C as a person's: not as ignored by a parent)
path = Path(tempfile.mkdtemp()) / "t.p2php"
os.fsync = slow_fsync
began = time.monotonic()
try:
    trio.run(main, path)
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - began:.2f} s")
print("files as the process ends:", sorted(p.name for p in path.parent.iterdir()))
