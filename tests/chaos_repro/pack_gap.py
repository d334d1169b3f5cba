"""(a) The loop gap of packing a long record: a resume's ``ResumeLog.create`` (``_Runner.__init__`` once the mesh
formed) and ``transcript.save_async``'s ``to_data`` + ``packb`` (the end of a game, or a mid-game save), each measured
with a trio task ticking every 10 ms beside it (its longest gap between wake-ups).

    .venv/bin/python tests/chaos_repro/pack_gap.py [tests/chaos_repro/long/uno.resume]
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import trio

from p2php.session import resume, transcript
from p2php.session.runner import PeerConfig


class Ticker:
    def __init__(self, every: float = 0.01) -> None:
        self.every, self.largest = every, 0.0

    async def run(self) -> None:
        last = time.monotonic()
        while True:
            await trio.sleep(self.every)
            now = time.monotonic()
            self.largest = max(self.largest, now - last - self.every)
            last = now


async def main(log: Path) -> None:
    began = time.perf_counter()
    header, ls = await trio.to_thread.run_sync(resume.restore, log)
    print(f"restored {log.stat().st_size} bytes, {len(ls.transcript)} messages in {time.perf_counter() - began:.1f} s"
          " (in a thread)")
    with tempfile.TemporaryDirectory() as d:
        cfg = PeerConfig(ls.table.game, ls.table.options, ls.players, int(header["seat"]), "p0",
                         resume_path=Path(d) / "again.resume")
        for what in ("ResumeWriter (a resume's log)", "save_async (a transcript)"):
            ticker = Ticker()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(ticker.run)
                await trio.sleep(0.1)
                began = time.perf_counter()
                if what.startswith("ResumeWriter"):
                    writer = resume.ResumeWriter(cfg, ls, {s: ("127.0.0.1", 1 + s) for s in range(ls.players)})
                    took = time.perf_counter() - began  # (the constructor, in the loop, as _Runner's)
                    if writer.file is not None:  # (its file made off the loop, as its worker does)
                        await trio.to_thread.run_sync(writer.file.close)
                else:
                    await transcript.save_async(ls, Path(d) / "t.p2php")
                    took = time.perf_counter() - began
                await trio.sleep(0.1)
                nursery.cancel_scope.cancel()
            print(f"{what}: {took * 1000:.0f} ms (the call); the loop's longest gap {ticker.largest * 1000:.0f} ms")
        print("files:", sorted((p.name, p.stat().st_size) for p in Path(d).iterdir()))
        import hashlib

        import msgpack
        same = (Path(d) / "t.p2php").read_bytes() == msgpack.packb(transcript.to_data(ls), use_bin_type=True)
        print("transcript == packb(to_data):", same, "; resume log sha256:",
              hashlib.sha256((Path(d) / "again.resume").read_bytes()).hexdigest()[:16])


trio.run(main, Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "long" / "uno.resume"))
