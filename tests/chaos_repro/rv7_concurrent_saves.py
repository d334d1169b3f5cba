"""rv7-loopio: a save_async that timed out ("the write runs on") and the next save of the same path share
``path.tmp``: the late write lands in the file the second save renamed into place; that save said "saved".

Run: .venv/bin/python tests/chaos_repro/rv7_concurrent_saves.py
"""
from __future__ import annotations

import builtins
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import toygame  # noqa: E402,F401

from p2php.bots import RandomBot  # noqa: E402
from p2php.session import durable, transcript  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402

STALL = 1.0


def stalling_open(stalls: list[bool]) -> Any:
    """The first file opened for writing: its write() waits STALL first (a disk that throttles its writers)."""
    real = builtins.open

    class Slow:
        def __init__(self, f: Any) -> None:
            self.f = f

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *exc: Any) -> None:
            self.f.close()

        def write(self, data: bytes) -> int:
            time.sleep(STALL)
            return int(self.f.write(data))

        def __getattr__(self, name: str) -> Any:
            return getattr(self.f, name)

    def fake(path: Any, mode: str = "r", *a: Any, **k: Any) -> Any:
        f = real(path, mode, *a, **k)
        if "w" in mode and stalls:
            stalls.pop()
            return Slow(f)
        return f

    return fake


async def main() -> None:
    early = make_peers("toy", 2, seed=1)[0]  # a save mid-game: its record so far (short)
    peers = make_peers("toy", 2, seed=1)
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    ended = peers[0]  # the game's whole record (longer)
    path = Path(tempfile.mkdtemp()) / "t.p2php"
    durable.open = stalling_open([True])  # type: ignore[attr-defined]
    try:
        await transcript.save_async(early, path, within=0.2)
    except TimeoutError as err:
        print("first save:", err)
    saved = await transcript.save_async(ended, path)
    print("second save returned", saved.name, "verify:", transcript.verify(saved).ok)
    await trio.sleep(STALL + 0.5)
    print("threads:", [t.name for t in threading.enumerate() if t is not threading.main_thread()][:3])
    names = sorted(p.name for p in path.parent.iterdir())
    print("after the first save's write ran on: size", path.stat().st_size, "files", names)
    try:
        print("verify:", transcript.verify(path).ok)
    except Exception as err:  # noqa: BLE001
        print("verify raised:", type(err).__name__, str(err)[:200])


trio.run(main)
