"""rv7-loopio: the end's close of a log runs past its bounded wait (a cancelled game: 5 s) and fails later (EIO);
meanwhile the app resumed the seat (``api.resume_peer``), whose new log is now at the same path. The late failure
gives the OLD log up (``ResumeWriter._closing``): its thread renames whatever is at the path -- the resumed game's
log -- aside, the resumed seat unaware.

Run: .venv/bin/python tests/chaos_repro/rv7_late_close_failure.py
"""
from __future__ import annotations

import errno
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import toygame  # noqa: E402,F401

from p2php.session import resume  # noqa: E402
from p2php.session.memory import make_peers, seeded_secrets  # noqa: E402
from p2php.session.runner import PeerConfig  # noqa: E402

ADDRESSES = {0: ("127.0.0.1", 1), 1: ("127.0.0.1", 2)}
real_fsync = os.fsync
armed: list[str] = []


def fsync(fd: int) -> None:
    try:
        name = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        name = ""
    if armed and name == armed[0]:
        armed.clear()
        time.sleep(1.0)  # the end's close: a slow fsync that then fails
        raise OSError(errno.EIO, "Input/output error")
    real_fsync(fd)


async def main(path: Path) -> None:
    cfg = PeerConfig("toy", {}, 2, 0, "p0", secrets=seeded_secrets(1, 0), resume_path=path)
    first = resume.ResumeWriter(cfg, make_peers("toy", 2, seed=1)[0], ADDRESSES)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(first.run)
        await first.sync(1.0)
        first.append({"local": "sealed", "tick": 0, "action": {}})
        armed.append(str(path))
        await first.aclose(0.2)  # a cancelled game: CANCEL_CLOSE_WAIT (5 s) shortened to 0.2 s
        nursery.cancel_scope.cancel()
    header, ls2 = resume.restore(path)  # the app resumes the seat at once
    print("resumed from", path.name)
    second = resume.ResumeWriter(cfg, ls2, ADDRESSES)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(second.run)
        await second.sync(1.0)
        print("the resumed game's log at", path.name, ":", path.exists())
        await trio.sleep(1.5)  # the first game's close fails meanwhile
        names = sorted(p.name for p in path.parent.iterdir())
        print("the resumed game still logging:", second.file is not None, "; files:", names)
        await second.aclose()
        nursery.cancel_scope.cancel()


os.fsync = fsync
logging.basicConfig(level=logging.WARNING, format="warning: %(message)s", stream=sys.stdout)
trio.run(main, Path(tempfile.mkdtemp()) / "seat0.resume")
