"""rv6-faults finding: a NEW game's seat sends its messages before its resume log exists (ca2ddc8).

Seat 0's disk is slow only while its log is made (the fsync of seat0.resume.tmp and of its folder take SLOW s each,
as repro_slow_create.py). Its own messages wait at most 2 x SYNC_WAIT x timeout for the log, then leave; the log is
renamed into place 2 x SLOW s after the game began. A kill -9 of seat 0 in between (we snapshot its folder at the
moment its first message leaves) leaves NO log: `p2php resume` cannot bring the seat back although the crash was a
process kill, which protocol.md §3.5 says "loses nothing it sent".

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_no_log_yet.py [SLOW] [timeout]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import toygame  # noqa: E402,F401  (registers "toy")
from repro_slow_create import slow_create_table, slow_creation  # noqa: E402

from p2php.session import resume  # noqa: E402

if __name__ == "__main__":
    slow = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d) / "s0"
        folder.mkdir()
        snap = Path(d) / "killed"
        os.fsync, slowed = slow_creation(folder, slow)  # type: ignore[assignment]
        sent_without_log: list[float] = []
        t0 = time.perf_counter()
        real_sync = resume.ResumeWriter.sync

        async def sync(self: resume.ResumeWriter, within: float) -> bool:
            done = await real_sync(self, within)
            if self.path.parent == folder and not done and not snap.exists():  # a message leaves, its log unsynced
                shutil.copytree(folder, snap)  # kill -9 now: what is on the disk is what a resume finds
            if self.path.parent == folder and not self.path.exists():
                sent_without_log.append(time.perf_counter() - t0)
            return done

        resume.ResumeWriter.sync = sync  # type: ignore[method-assign]
        out = slow_create_table(Path(d), timeout, 10.0, say=lambda s: None)
        print(f"seat 0 sent {len(sent_without_log)} of its messages before its log existed "
              f"(at {', '.join(f'{t:.2f}' for t in sent_without_log)} s)")
        print("seat 0's folder at its first send:", sorted(p.name for p in snap.iterdir()) if snap.exists() else None)
        if snap.exists() and not (snap / "seat0.resume").exists():
            run = subprocess.run([str(Path(sys.executable).parent / "p2php"), "resume", str(snap / "seat0.resume")],
                                 capture_output=True, text=True, timeout=60)
            print("p2php resume ->", run.returncode, (run.stdout + run.stderr).strip()[-300:])
        elif snap.exists():
            try:
                header, ls = resume.restore(snap / "seat0.resume")
                _, records = resume.read(snap / "seat0.resume")
                print(f"resume.restore of that log: seat {header['seat']} at step {ls.tick}, {len(records)} records, "
                      f"{sum(r.get('from') == 0 for r in records)} of them seat 0's own")
            except resume.ResumeError as err:
                print("resume.restore of that log:", err)
        sys.exit(1 if sent_without_log else 0)
