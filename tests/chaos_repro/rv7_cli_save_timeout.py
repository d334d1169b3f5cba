"""rv7-loopio: run_peer's end save past SAVE_WAIT (here 0.3 s for 1 s fsyncs; 60 s in the reference) warns "the write
runs on" and returns; a command-line seat then ends its process, and the worker thread with it: no transcript.

Run: .venv/bin/python tests/chaos_repro/rv7_cli_save_timeout.py DIR ; ls DIR
"""
from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import toygame  # noqa: E402,F401

from p2php.bots import RandomBot  # noqa: E402
from p2php.net.mesh import listen, listener_port  # noqa: E402
from p2php.session import transcript  # noqa: E402
from p2php.session.memory import seeded_secrets  # noqa: E402
from p2php.session.runner import PeerConfig, bot_decider, run_peer  # noqa: E402

real_fsync = os.fsync


def fsync(fd: int) -> None:
    try:
        name = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        name = ""
    if name.endswith(".tmp"):
        time.sleep(1.0)
    real_fsync(fd)


async def main(folder: Path) -> None:
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}

    async def one(seat: int) -> None:
        cfg = PeerConfig("toy", {}, 2, seat, f"p{seat}", timeout=5.0, resume_timeout=10.0,
                         secrets=seeded_secrets(3, seat), linger=0.2,
                         transcript_path=folder / "seat0.p2php" if seat == 0 else None)
        await run_peer(cfg, addresses, listeners[seat], bot_decider(RandomBot(seat)))
        await listeners[seat].aclose()

    async with trio.open_nursery() as nursery:
        for seat in range(2):
            nursery.start_soon(one, seat)
    print("run_peer returned; the process ends now")


folder = Path(sys.argv[1])
folder.mkdir(parents=True, exist_ok=True)
os.fsync = fsync
transcript.save_async.__defaults__ = (0.3,)  # SAVE_WAIT 60 s, shortened
logging.basicConfig(level=logging.WARNING, format="warning: %(message)s", stream=sys.stdout)
trio.run(main, folder)
