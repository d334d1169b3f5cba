"""A resume log's disk that hangs (or throttles its writers) must not spend the threads of the app's whole loop
(review rv7b-disk, ``tests/chaos_repro/rv7b_limiter_starved.py``)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import toygame  # noqa: F401  (registers "toy")
import trio

from p2php.session import resume
from p2php.session.memory import make_peers
from p2php.session.runner import PeerConfig


async def test_a_hung_log_disk_spends_no_thread_of_the_loops_and_leaks_none_per_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 0's log: every write() hangs. Each late sync started a worker thread for its write, left blocked behind
    the hung one, holding a token of trio's default thread limiter (40, the whole loop's): after 40 messages of ours
    every ``trio.to_thread.run_sync`` of the loop waited for good -- the bridge's stdin reader (the app's moves never
    read, the honest seat named silent), another table's log worker, a transcript's save (never started)."""
    hang = threading.Event()
    real = resume.ResumeLog._write_queue
    hung: list[resume.ResumeLog] = []

    def write_queue(self: resume.ResumeLog) -> None:
        if self._queue and self in hung:
            hang.wait(30)  # the write() does not return
        real(self)

    monkeypatch.setattr(resume.ResumeLog, "_write_queue", write_queue)
    ls = make_peers("toy", 2, seed=1)[0]
    writer = resume.ResumeWriter(PeerConfig("toy", {}, 2, 0, "p0", timeout=2.0, resume_path=tmp_path / "s0.resume"),
                                 ls, {0: ("127.0.0.1", 1), 1: ("127.0.0.1", 2)})
    writer.write_now()
    assert writer.file is not None
    hung.append(writer.file)
    before = threading.active_count()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(writer.run)
            for n in range(45):
                writer.append({"local": "ours", "n": n})
                await writer.sync(0.01)
            leaked = threading.active_count() - before
            with trio.move_on_after(2) as starved:
                await trio.to_thread.run_sync(lambda: None)  # any other thread of the loop (the bridge's stdin read)
            nursery.cancel_scope.cancel()
        assert not starved.cancelled_caught, "the loop's default thread limiter was spent by the hung log"
        assert leaked <= 3, f"{leaked} threads left blocked by 45 messages"
    finally:
        hang.set()
