"""A slow or failing disk never holds a seat's trio loop (red-team rt7-loopio).

The loop must keep answering the table (heartbeats, the others' messages, deadlines) whatever the disk does: every
file operation a running game reaches is done by a worker thread. Each test measures the loop with a ticker task
(every 20 ms: its largest gap) while a shim makes the disk slow (sub-second, to stay fast).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from p2php.bots import RandomBot
from p2php.net.mesh import listen, listener_port
from p2php.session import transcript
from p2php.session.memory import make_peers, run_in_memory, seeded_secrets
from p2php.session.runner import PeerConfig, bot_decider, run_peer

sys.path.insert(0, str(Path(__file__).resolve().parent / "chaos_repro"))
from repro_save_in_loop import Ticker, slow_fsync_under  # noqa: E402

needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="finds a file descriptor's path in /proc")
SLOW = 0.4  # seconds a slowed fsync takes


@needs_proc
async def test_saving_the_transcript_at_the_end_never_holds_the_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``run_peer`` saves the transcript when the game ends: the file's fsync and its folder's took 2 x SLOW in the
    loop (2 x 3 s: 6.0 s, and another table of the app's loop had its honest seat named ``silent``,
    ``tests/chaos_repro/repro_save_in_loop.py``). Off the loop now, and the file is whole and on the disk when
    ``run_peer`` returns."""
    (tmp_path / "slow").mkdir()
    fsync, slowed = slow_fsync_under(tmp_path / "slow", SLOW)
    monkeypatch.setattr(os, "fsync", fsync)
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    path = tmp_path / "slow" / "seat0.p2php"
    ticker = Ticker(0.02)

    async def one(seat: int) -> None:
        cfg = PeerConfig("toy", {}, 2, seat, f"p{seat}", timeout=5.0, resume_timeout=10.0,
                         secrets=seeded_secrets(3, seat), linger=0.5, transcript_path=path if seat == 0 else None)
        await run_peer(cfg, addresses, listeners[seat], bot_decider(RandomBot(seat)))
        if seat == 0:
            assert path.is_file() and transcript.verify(path).ok  # whole, in place, as run_peer returns
        await listeners[seat].aclose()

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ticker.run)
            async with trio.open_nursery() as table:
                for seat in range(2):
                    table.start_soon(one, seat)
            nursery.cancel_scope.cancel()
    assert slowed == ["seat0.p2php.tmp", "slow"]
    assert ticker.largest < SLOW / 2, ticker.largest


@pytest.fixture(scope="module")
def ended() -> Any:
    peers = make_peers("toy", 2, seed=1)
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    return peers[0]


@needs_proc
async def test_save_async_is_durable_and_bounded(ended: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a mid-game save (the bridge's ``save``, ``Peer.save_transcript_async``) does: the loop runs on, the file
    is whole when it returns; a disk past ``within`` is a TimeoutError (an OSError: every caller says it in one line),
    and the write runs on to put the whole file in place."""
    (tmp_path / "slow").mkdir()
    fsync, _ = slow_fsync_under(tmp_path / "slow", SLOW)
    monkeypatch.setattr(os, "fsync", fsync)
    ticker = Ticker(0.02)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ticker.run)
        saved = await transcript.save_async(ended, tmp_path / "slow" / "t.p2php")
        assert transcript.verify(saved).ok
        with pytest.raises(TimeoutError):
            await transcript.save_async(ended, tmp_path / "slow" / "late.p2php", within=SLOW / 2)
        await trio.sleep(2 * SLOW)
        assert transcript.verify(tmp_path / "slow" / "late.p2php").ok
        nursery.cancel_scope.cancel()
    assert ticker.largest < SLOW / 2, ticker.largest


@needs_proc
async def test_a_cancelled_save_still_waits_a_bounded_time_for_the_disk(
        ended: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cancelled (the app gives up, a Ctrl-C) while the disk is slow: the save waits for it, shielded, at most
    CANCEL_SAVE_WAIT, so a process that ends right after still has its whole transcript."""
    (tmp_path / "slow").mkdir()
    fsync, _ = slow_fsync_under(tmp_path / "slow", SLOW)
    monkeypatch.setattr(os, "fsync", fsync)
    path = tmp_path / "slow" / "t.p2php"
    with trio.move_on_after(SLOW / 4) as scope:
        await transcript.save_async(ended, path)
    assert scope.cancelled_caught
    assert transcript.verify(path).ok  # (2 x SLOW: within the shielded wait)
    monkeypatch.setattr(transcript, "CANCEL_SAVE_WAIT", SLOW / 4)
    began = time.monotonic()
    with trio.move_on_after(SLOW / 4):
        await transcript.save_async(ended, tmp_path / "slow" / "u.p2php")
    assert time.monotonic() - began < SLOW  # bounded
