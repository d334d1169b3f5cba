"""``p2php`` with a slow disk: every ``os.fsync`` first sleeps ``P2PHP_CHAOS_FSYNC_SLEEP`` seconds.

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

if __name__ == "__main__":
    from p2php.cli import main

    sys.exit(main(sys.argv[1:]))
