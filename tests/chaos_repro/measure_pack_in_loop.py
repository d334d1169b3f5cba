"""CPU the game's loop spends packing a long game's record (red-team rt7-loopio, item 4): ``ResumeLog.create`` (a
resumed seat's whole log, packed in ``_Runner.__init__`` after its mesh formed) and ``transcript.save_async``'s
packing (``to_data``, at the game's end). Plays a 2-seat GAME with resume logs first.

    .venv/bin/python tests/chaos_repro/measure_pack_in_loop.py [GAME]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import msgpack
import trio

from p2php.session import resume, transcript
from p2php.session.runner import PeerConfig

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from repro_restore_in_loop import play

    game = sys.argv[1] if len(sys.argv) > 1 else "uno"
    with tempfile.TemporaryDirectory() as d:
        trio.run(play, Path(d), game)
        header, ls = resume.restore(Path(d) / "seat0.resume")
        cfg = PeerConfig(game, {}, 2, 0, "p0", resume_path=Path(d) / "again.resume")
        began = time.perf_counter()
        made = resume.ResumeLog.create(cfg, ls, {0: ("127.0.0.1", 1), 1: ("127.0.0.1", 2)})
        print(f"ResumeLog.create of {len(ls.transcript)} messages: {(time.perf_counter() - began) * 1000:.0f} ms")
        made.close(block=False)
        began = time.perf_counter()
        data = msgpack.packb(transcript.to_data(ls), use_bin_type=True)
        print(f"transcript packing ({len(data)} bytes): {(time.perf_counter() - began) * 1000:.0f} ms")
