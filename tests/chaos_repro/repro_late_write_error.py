"""A write of the resume log that FAILS AFTER A LATE SYNC STOPPED WAITING is never seen (red-team rt7-loopio, 3).

A message of our own waits for the log's ``fsync`` at most ``SYNC_WAIT`` of ``timeout``; late, the sync hands what
was appended to the system (``ResumeLog.flush`` in a worker thread) and waits for that at most as long again, then
the write runs on alone (abandoned). Here seat 0's disk is slow (each ``fsync`` of its log 1.5 s, ``timeout`` 2:
a wait of 0.5 s) and the first write of such a late sync takes 1 s and then fails (EIO: those records never reach
the file). On-time, the same error gives the log up (set aside as ``….incomplete``, one warning): late, nothing.

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_late_write_error.py
"""

from __future__ import annotations

import errno
import logging
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from p2php.session import resume


def late_write_fails(name: str, loops: set[threading.Thread], failed: list[int], kinds: list[str],
                     fsync_wait: float = 1.5, write_wait: float = 1.0) -> list[tuple[Any, str, Any]]:
    """Patches: every ``fsync`` of the log ``name`` takes ``fsync_wait`` s; the first write of records made while an
    ``fsync`` of it runs (a late sync's ``flush``, in a worker thread; not the end's ``close``) takes ``write_wait``
    s and fails with EIO, the records it took lost (their count is put in ``failed``, their kinds in ``kinds``)."""
    real_fsync, real_write = os.fsync, resume.ResumeLog._write_queue

    def target(fd: int) -> str:
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return ""

    def fsync(fd: int) -> None:
        if target(fd).endswith(os.sep + name):
            time.sleep(fsync_wait)
        real_fsync(fd)

    def write_queue(self: resume.ResumeLog) -> None:
        try:
            path = target(self._file.fileno()) if self._file is not None else ""
        except ValueError:
            path = ""
        if (not failed and self._queue and path.endswith(os.sep + name) and self._sync_lock.locked()
                and threading.current_thread() not in loops and sys._getframe(1).f_code.co_name == "flush"):
            time.sleep(write_wait)
            with self._queue_lock:
                lost, self._queue = self._queue, []
            import msgpack

            failed.append(len(lost))
            kinds.extend(f"{r.get('kind', r.get('local'))} of seat {r.get('from')}"
                         for r in (msgpack.unpackb(b, raw=False) for b in lost))
            raise OSError(errno.EIO, "Input/output error")
        real_write(self)

    return [(os, "fsync", fsync), (resume.ResumeLog, "_write_queue", write_queue)]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import toygame  # noqa: F401  (registers "toy")
    from repro_give_up_in_loop import two_loops

    warnings: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            warnings.append(record.getMessage())

    logging.getLogger("p2php").addHandler(Keep())
    loops: set[threading.Thread] = set()
    failed: list[int] = []
    kinds: list[str] = []
    for obj, attr, value in late_write_fails("seat0.resume", loops, failed, kinds):
        setattr(obj, attr, value)
    with tempfile.TemporaryDirectory() as d:
        results: dict[int, Any] = {}
        verdicts, gap = two_loops(Path(d), 2.0, loops, results=results)
        print("records lost by the failed late write:", failed, kinds)
        print("warnings:", [w[:90] for w in warnings])
        print("files:", sorted(p.name for p in Path(d).iterdir()))
        log = Path(d) / "seat0.resume"
        if log.exists():
            _, records = resume.read(log)
            print(f"seat0.resume: {len(records)} records")
            try:
                _, ls = resume.restore(log)
                print(f"resume.restore: accepted: {len(ls.transcript)} messages processed (the game held "
                      f"{len(results[0].lockstep.transcript)}), finished {ls.finished}")
            except resume.ResumeError as err:
                print("resume.restore:", str(err).replace(d, "DIR"))
        seen = any("cannot be written" in w for w in warnings)
        print("the failure was seen" if seen else "THE FAILURE WAS NEVER SEEN")
        sys.exit(0 if seen or not failed else 1)
