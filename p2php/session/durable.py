"""Files that survive a power cut: the directory ``fsync`` a rename needs, and a whole file put in place by one.

Kept apart so :mod:`p2php.session.transcript` and :mod:`p2php.session.resume` share it (resume imports transcript,
so it cannot live in either without a cycle)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def sync_directory(path: Path) -> None:
    """``fsync`` a directory, so that a rename in it survives a power cut (POSIX; a no-op where a directory cannot
    be opened, as on Windows). Without it, a file renamed over an older one could come back as that older one (or
    as none) after a power cut."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def path_key(path: str | Path) -> Path:
    """The one name of the file ``path`` names, however it is spelled (relative, ``logs/../logs/x``, through a
    symlinked folder), for what is kept by path: its folder resolved (``os.path.realpath``), its name as given, so a
    file not made yet has it too (and a symlink at the name itself is keyed as the link, which a rename replaces).
    Before, :meth:`Path.absolute` keys let a second spelling past a log being set aside, and two saves of one file
    share its ``.tmp`` without sharing its lock."""
    path = Path(path)
    return Path(os.path.realpath(path.parent)) / path.name


def replace_durably(path: Path, data: bytes) -> None:
    """Put ``data`` at ``path`` whole or not at all, and on the disk: written to ``path.tmp``, ``fsync``ed, renamed
    over ``path``, and the rename made durable (:func:`sync_directory`). An :class:`OSError` leaves no ``.tmp``."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())  # the bytes before the rename: else a power cut may leave the name on no data
        tmp.replace(path)  # never leave a half-written file behind
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    sync_directory(path.parent)
