"""rv7-loopio: a log given up (a disk error) whose rename aside is slow, the game cancelled (its bounded 5 s wait for
the set-aside ends first), and the app resumes the seat at once (``api.resume_peer``): the log the seat had declared
unusable is restored from, and the old give-up's thread then renames the NEW game's log aside.

Run: .venv/bin/python tests/chaos_repro/rv7_resume_while_set_aside.py [dotdot|symlink]
(with an argument, the resume and game 2's log spell the path another way: ``logs/../logs/``, a symlinked folder;
before, the set-aside was kept by absolute path, and such a spelling got past it: red-team rt9-small)
"""
from __future__ import annotations

import errno
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import toygame  # noqa: E402,F401

from p2php.session import resume  # noqa: E402
from p2php.session.memory import make_peers, seeded_secrets  # noqa: E402
from p2php.session.runner import PeerConfig  # noqa: E402

SLOW = 1.0
ADDRESSES = {0: ("127.0.0.1", 1), 1: ("127.0.0.1", 2)}


def patch_disk(path: Path) -> None:
    real_write, real_replace = resume.ResumeLog._write_queue, os.replace
    fail = [True]

    def write_queue(self: resume.ResumeLog) -> None:
        if self._queue and fail and self._file is not None:
            fail.pop()
            raise OSError(errno.EIO, "Input/output error")
        real_write(self)

    def replace(src: Any, dst: Any) -> None:
        if str(src) == str(path) and str(dst).endswith(".incomplete"):
            time.sleep(SLOW)  # a disk that fails hangs too
        real_replace(src, dst)

    resume.ResumeLog._write_queue = write_queue  # type: ignore[method-assign]
    resume.os.replace = replace  # type: ignore[attr-defined]


async def main(path: Path, other: Path) -> None:
    cfg = PeerConfig("toy", {}, 2, 0, "p0", secrets=seeded_secrets(1, 0), resume_path=path)
    ls = make_peers("toy", 2, seed=1)[0]
    first = resume.ResumeWriter(cfg, ls, ADDRESSES)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(first.run)
        await first.sync(1.0)
        print("game 1's log made:", path.exists())
        patch_disk(path)
        first.append({"local": "sealed", "tick": 0, "action": {}})
        await first.sync(1.0)  # its write fails: the log is given up
        print("game 1 gave its log up:", first.file is None)
        await first.aclose(0.2)  # the game is cancelled: CANCEL_CLOSE_WAIT (5 s) shortened to 0.2 s
        nursery.cancel_scope.cancel()
    # The app resumes the seat at once (api.resume_peer: restore, then a new log at the same path)
    try:
        header, ls2 = resume.restore(other)
        print("restore of the given-up log: SUCCEEDED (seat", header["seat"], ")")
    except resume.ResumeError as err:
        print("restore refused:", err)
        ls2 = make_peers("toy", 2, seed=2)[0]  # the app starts a new game with the same resume_log path instead
    second = resume.ResumeWriter(PeerConfig("toy", {}, 2, 0, "p0", secrets=seeded_secrets(1, 0), resume_path=other),
                                 ls2, ADDRESSES)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(second.run)
        await second.sync(1.0)
        print("game 2's log made at", path.name, ":", path.exists())
        await trio.sleep(SLOW + 0.5)  # game 2 plays on; game 1's give-up thread finishes its rename
        second.append({"local": "sealed", "tick": 0, "action": {}})
        await second.sync(1.0)
        names = sorted(p.name for p in path.parent.iterdir())
        print("game 2 still logging:", second.file is not None, "; files:", names)
        print("game 2's log at", path.name, "is game 2's:", path.exists() and resume.read(path)[0]["master"] ==
              ls2.secrets.master and len(resume.read(path)[1]) >= 1)
        await second.aclose()
        nursery.cancel_scope.cancel()


logging.basicConfig(level=logging.WARNING, format="warning: %(message)s", stream=sys.stdout)
base = Path(tempfile.mkdtemp())
(base / "logs").mkdir()
(base / "link").symlink_to(base / "logs", target_is_directory=True)
spelled = {"": base / "logs", "dotdot": base / "logs" / ".." / "logs", "symlink": base / "link"}
trio.run(main, base / "logs" / "seat0.resume", spelled[sys.argv[1] if len(sys.argv) > 1 else ""] / "seat0.resume")
