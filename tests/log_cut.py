"""A seat's resume log as it stood at a moment of the game, for tests that resume a seat from a log that lacks what
it did after that moment (a power cut, a disk that lied).

The log's worker thread writes the file behind the game, so the file read from the game's loop may hold less than
what was logged by then; a test counts the records logged instead, and cuts the whole log back to that count once
the seat's run has ended (its close writes the rest)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack

from p2php.session.lockstep import Lockstep
from p2php.session.resume import read


class LogCut:
    """Counts the records a seat's lockstep logs from the first :meth:`mark` on; :meth:`cut` makes the log hold
    what it held at a mark."""

    def __init__(self) -> None:
        self.logged = 0
        self.counting: Lockstep | None = None

    def _count(self, ls: Lockstep) -> None:
        if self.counting is ls or ls.record is None:
            return
        record = ls.record

        def counted(rec: dict[str, Any]) -> None:
            self.logged += 1
            record(rec)

        ls.record = counted
        self.counting = ls

    def watch(self, ls: Lockstep) -> None:
        """Call from the seat's observer at every step (before any :meth:`mark`)."""
        self._count(ls)

    def mark(self, ls: Lockstep) -> int:
        """The log as it stands now (all logged so far)."""
        self._count(ls)
        return self.logged

    def cut(self, log: Path, mark: int) -> None:
        """Rewrite ``log`` (read whole after the run ended) to hold what it held at ``mark``."""
        header, records = read(log)
        before = len(records) - self.logged  # logged before we counted
        log.write_bytes(b"".join(msgpack.packb(r, use_bin_type=True) for r in [header, *records[:before + mark]]))
