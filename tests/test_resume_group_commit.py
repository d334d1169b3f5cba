"""The resume log's worker commits in groups: what is appended while one ``fsync`` runs rides the next one.

A seat on a slow disk (chaos soak seed 304: seat 2's every fsync 2 s, HP Sha verified) was thought to pay one fsync per
message of its own. It does not: each ``fsync`` covers every record written before it began, and every sync asked
meanwhile is answered by the next one (that game: 174 sync waits, 115 fsyncs, 5.6 records each). What it pays is the
sync wait itself, one message after another (``tests/chaos_repro/repro_slow_fsync_game.py``): the others answer a
message only once it is sent, so no two of them wait together there. This keeps the batching from going.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import trio

from p2php.session import resume
from p2php.session.runner import PeerConfig

SLOW = 0.4  # seconds one fsync of the log takes


async def test_ten_syncs_asked_during_one_slow_fsync_ride_the_next_one(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten messages of our own appended, each sync asked, while one slow fsync runs: all ten are on the disk after
    at most two fsyncs of the log (the one running, the next), not ten; each sync is answered in time."""
    import toygame  # noqa: F401  (registers "toy")

    from p2php.session.memory import make_peers

    ls = make_peers("toy", 2, seed=1)[0]
    path = tmp_path / "seat0.resume"
    writer = resume.ResumeWriter(PeerConfig("toy", {}, 2, 0, "p0", resume_path=path), ls,
                                 {0: ("127.0.0.1", 1), 1: ("127.0.0.1", 2)})
    writer.write_now()  # (the worker's first step, in a game: the file made)
    real = os.fsync
    fsyncs: list[tuple[float, int]] = []  # (when it began, records in the file then)

    def fsync(fd: int) -> None:
        if os.path.samestat(os.fstat(fd), os.stat(path)):
            fsyncs.append((time.monotonic(), len(resume.read(path)[1])))
            time.sleep(SLOW)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    answered: list[bool] = []

    async def message(n: int) -> None:
        writer.append({"local": "probe", "n": n})
        answered.append(await writer.sync(10 * SLOW))

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(writer.run)
            writer.append({"local": "probe", "n": 0})

            async def first() -> None:
                answered.append(await writer.sync(10 * SLOW))

            nursery.start_soon(first)
            while not fsyncs:  # the first fsync is running
                await trio.sleep(0.01)
            began = fsyncs[0][0]
            async with trio.open_nursery() as ten:
                for n in range(1, 11):
                    ten.start_soon(message, n)
            assert time.monotonic() - began < 2 * SLOW + 0.3  # (no queue of fsyncs behind it)
            nursery.cancel_scope.cancel()
    await writer.aclose()
    assert answered == [True] * 11
    assert len(fsyncs) <= 2 + 1, fsyncs  # (the last: the close's)
    assert fsyncs[1][1] >= 11, fsyncs  # the second fsync covered all ten and the first


async def test_a_disk_proven_slower_than_the_wait_no_longer_holds_each_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Proposal.) Every fsync 4 x the wait: each message waited the whole wait for nothing (it left before its fsync
    all the same): a game of N messages took N waits longer (seed 304: 174 x 1.25 s). After LATE_STREAK late syncs
    in a row, a message waits only for its write; once the disk is fast again, one fsync done in time, the wait is
    back."""
    import toygame  # noqa: F401  (registers "toy")

    from p2php.session.memory import make_peers

    ls = make_peers("toy", 2, seed=1)[0]
    path = tmp_path / "seat0.resume"
    writer = resume.ResumeWriter(PeerConfig("toy", {}, 2, 0, "p0", resume_path=path), ls,
                                 {0: ("127.0.0.1", 1), 1: ("127.0.0.1", 2)})
    writer.write_now()
    real = os.fsync
    slow = {"s": 4 * 0.1}

    def fsync(fd: int) -> None:
        if os.path.samestat(os.fstat(fd), os.stat(path)):
            time.sleep(slow["s"])
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    waits: list[tuple[float, bool]] = []

    async def message(n: int) -> None:
        writer.append({"local": "probe", "n": n})
        began = time.monotonic()
        ok = await writer.sync(0.1)
        waits.append((time.monotonic() - began, ok))

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(writer.run)
            for n in range(10):
                await message(n)
            slow["s"] = 0.0
            await trio.sleep(1.0)  # (the fsyncs asked meanwhile end; the next is in time)
            for n in range(10, 13):
                await message(n)
            nursery.cancel_scope.cancel()
    await writer.aclose()
    assert all(w >= 0.09 and not ok for w, ok in waits[:getattr(resume, "LATE_STREAK", 3)]), waits
    assert all(w < 0.05 for w, _ in waits[getattr(resume, "LATE_STREAK", 3):10]), waits  # only the write waited for
    assert all(ok for _, ok in waits[11:]), waits  # a fast disk: waited for, in time, again
    _, records = resume.read(path)
    assert [r["n"] for r in records if r.get("local") == "probe"] == list(range(13))
