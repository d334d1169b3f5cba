"""Play a 2-seat GAME (default uno, seed 11) over loopback with resume logs; keep seat 0's log and transcript in
tests/chaos_repro/long/ (a long record for the loop-gap measurements)."""
from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from repro_restore_in_loop import play  # noqa: E402

from p2php.session import transcript  # noqa: E402

game = sys.argv[1] if len(sys.argv) > 1 else "uno"
out = Path(__file__).resolve().parent / "long"
out.mkdir(exist_ok=True)
with tempfile.TemporaryDirectory() as d:
    began = time.perf_counter()
    res = trio.run(play, Path(d), game)
    print(f"played in {time.perf_counter() - began:.1f} s")
    shutil.copy(Path(d) / "seat0.resume", out / f"{game}.resume")
    transcript.save(res.lockstep, out / f"{game}.p2php")
    print((out / f"{game}.resume").stat().st_size, (out / f"{game}.p2php").stat().st_size)
