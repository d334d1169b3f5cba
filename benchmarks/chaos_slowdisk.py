"""``p2php`` with a slow disk: every ``os.fsync`` first sleeps ``P2PHP_CHAOS_FSYNC_SLEEP`` seconds (and each write
of the resume log's records ``P2PHP_CHAOS_WRITE_SLEEP``, if set: a disk that throttles its writers).

A seat of ``chaos_soak.py`` run as ``python benchmarks/chaos_slowdisk.py peer ...`` (or ``resume ...``) behaves as
``python -m p2php.cli`` on a disk whose flushes are slow (an SD card, a USB stick with much unwritten data): its
resume log's ``fsync`` takes that long, without FUSE nor LD_PRELOAD. The patch is of this process only.
"""

from __future__ import annotations

import os
import sys
import time

_fsync = os.fsync


def _slow_fsync(fd: object) -> None:
    time.sleep(float(os.environ.get("P2PHP_CHAOS_FSYNC_SLEEP", "0") or 0))
    _fsync(fd)  # type: ignore[arg-type]


os.fsync = _slow_fsync

if float(os.environ.get("P2PHP_CHAOS_WRITE_SLEEP", "0") or 0):  # a disk that throttles its writers: each write of
    from p2php.session import resume  # the resume log's records first sleeps this long, in whatever thread does it

    _write_queue = resume.ResumeLog._write_queue

    def _slow_write(self: resume.ResumeLog) -> None:
        if self._queue:
            time.sleep(float(os.environ["P2PHP_CHAOS_WRITE_SLEEP"]))
        _write_queue(self)

    resume.ResumeLog._write_queue = _slow_write  # type: ignore[method-assign]

if __name__ == "__main__":
    from p2php.cli import main

    sys.exit(main(sys.argv[1:]))
