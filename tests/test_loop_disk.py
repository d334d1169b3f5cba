"""A slow or failing disk never holds a seat's trio loop (red-team rt7-loopio).

The loop must keep answering the table (heartbeats, the others' messages, deadlines) whatever the disk does: every
file operation a running game reaches is done by a worker thread. Each test measures the loop with a ticker task
(every 20 ms: its largest gap) while a shim makes the disk slow (sub-second, to stay fast).
"""

from __future__ import annotations

import contextlib
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
SLOW = 0.5  # seconds a slowed fsync takes


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
    assert ticker.largest < SLOW * 0.6, ticker.largest


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
    assert ticker.largest < SLOW * 0.6, ticker.largest


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


@needs_proc
def test_a_log_given_up_does_its_file_work_off_the_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Seat 0's log: each fsync takes 0.6 s and fails (EIO), each write of its records and the rename aside take
    SLOW; ``timeout`` 2 (a sync waits 0.5 s); each seat in a loop (thread) of its own. Before, ``_give_up`` wrote
    what was queued and renamed the log aside in the game's loop (3 s + 3 s: the other seat named the honest seat
    ``silent``, ``tests/chaos_repro/repro_give_up_in_loop.py``). Now a worker thread does it, and the game's end
    waits for it: the log is set aside, one warning says so."""
    import threading

    from repro_give_up_in_loop import failing_disk, two_loops

    held: list[str] = []
    loops: set[threading.Thread] = set()
    for obj, attr, value in failing_disk("seat0.resume", SLOW, held, loops, fsync_wait=0.6):
        monkeypatch.setattr(obj, attr, value)
    verdicts, _ = two_loops(tmp_path, 2.0, loops, say=lambda line: None)
    assert "rename aside in the worker thread" in held, held
    assert not [h for h in held if "game loop" in h], held
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seat0.resume.incomplete", "seat1.resume"]
    said = [r.getMessage() for r in caplog.records if "cannot be written" in r.getMessage()]
    assert len(said) == 1 and ".incomplete" in said[0], said
    for seat in range(2):
        assert verdicts[seat] is not None and verdicts[seat].clean, (seat, verdicts[seat])


@needs_proc
def test_a_write_that_fails_after_a_late_sync_stopped_waiting_gives_the_log_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Seat 0's fsyncs take 1 s (``timeout`` 2: a sync waits 0.5 s, then hands the records to the system in a
    worker, waiting 0.5 s more); the first such late write takes 0.6 s and fails (EIO), its records lost. Before,
    nobody saw it: the log stayed in place with a hole (``p2php resume`` rebuilt the seat at its start, 0 of 15
    messages) and no warning (``tests/chaos_repro/repro_late_write_error.py``). Now it gives the log up as an
    on-time failure does: set aside, one warning."""
    import threading

    from repro_give_up_in_loop import two_loops
    from repro_late_write_error import late_write_fails

    loops: set[threading.Thread] = set()
    failed: list[int] = []
    for obj, attr, value in late_write_fails("seat0.resume", loops, failed, [], fsync_wait=1.0, write_wait=0.6):
        monkeypatch.setattr(obj, attr, value)
    verdicts, _ = two_loops(tmp_path, 2.0, loops, say=lambda line: None)
    assert failed  # a late write did fail
    said = [r.getMessage() for r in caplog.records if "cannot be written" in r.getMessage()]
    assert len(said) == 1 and "Input/output error" in said[0], said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seat0.resume.incomplete", "seat1.resume"]
    for seat in range(2):
        assert verdicts[seat] is not None and verdicts[seat].clean, (seat, verdicts[seat])


async def test_resume_peer_rebuilds_the_peer_off_the_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``p2php.api.resume_peer`` reads the log and replays every message of it (``resume.restore``): in the app's
    loop, a 2-seat UNO game's log (11.9 MB, 28 980 messages) held it 16.5 s
    (``tests/chaos_repro/repro_restore_in_loop.py``). A worker thread does it now: here a restore that takes SLOW
    (and then refuses the log) leaves the loop running."""
    from p2php import api
    from p2php.session import resume

    def slow_restore(path: Any) -> Any:
        time.sleep(SLOW)
        raise resume.ResumeError(f"{path}: not a resume log")

    monkeypatch.setattr(resume, "restore", slow_restore)
    ticker = Ticker(0.02)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ticker.run)
        async with api.resume_peer(tmp_path / "seat0.resume") as peer:
            with pytest.raises(api.PeerFailed, match="not a resume log"):
                await peer.wait()
        nursery.cancel_scope.cancel()
    assert ticker.largest < SLOW * 0.6, ticker.largest


@pytest.mark.parametrize("spelling", ["", "dotdot", pytest.param("symlink", marks=pytest.mark.skipif(
    sys.platform == "win32", reason="makes a symlink"))])
def test_a_save_that_runs_on_never_writes_into_the_next_saves_file(
        ended: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str) -> None:
    """A save past its wait (TimeoutError: "the write runs on") and the next save of the same path (the app saves
    again; the game's end saves there too) shared ``path.tmp``: the late write landed in the file the next save had
    renamed into place and said "saved" of -- the transcript then did not load ("stray bytes", review rv7-loopio,
    ``tests/chaos_repro/rv7_concurrent_saves.py``). Saves of one path are done one after the other, however the next
    spells it (``logs/../logs/``, a symlinked folder: before, their locks were kept by absolute path, red-team
    rt9-small)."""
    import builtins

    from p2php.session import durable

    real, stalls = builtins.open, [True]

    class Stalled:  # the first write of a file waits SLOW (a disk that throttles its writers)
        def __init__(self, file: Any) -> None:
            self.file = file

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *exc: Any) -> None:
            self.file.close()

        def write(self, data: bytes) -> int:
            time.sleep(SLOW)
            return int(self.file.write(data))

        def __getattr__(self, name: str) -> Any:
            return getattr(self.file, name)

    def stalling_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        opened = real(file, mode, *args, **kwargs)
        return Stalled(opened) if "w" in mode and stalls and stalls.pop() else opened

    monkeypatch.setattr(durable, "open", stalling_open, raising=False)
    early = make_peers("toy", 2, seed=1)[0]  # a save mid-game: a shorter record
    (tmp_path / "logs").mkdir()
    path = tmp_path / "logs" / "t.p2php"
    if spelling == "symlink":
        (tmp_path / "link").symlink_to(tmp_path / "logs", target_is_directory=True)
    again = {"": path, "dotdot": tmp_path / "logs" / ".." / "logs" / "t.p2php",
             "symlink": tmp_path / "link" / "t.p2php"}[spelling]

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await transcript.save_async(early, path, within=SLOW / 5)
        saved = await transcript.save_async(ended, again)
        assert transcript.verify(saved).ok
        await trio.sleep(2 * SLOW)  # (the first save's write, had it run on alone)

    trio.run(main)
    assert transcript.verify(path).ok  # the last save's whole record
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == ["t.p2php"]


@pytest.mark.skipif(sys.platform == "win32", reason="sends itself a SIGINT")
def test_a_ctrl_c_during_a_save_still_waits_a_bounded_time_for_the_disk() -> None:
    """A Ctrl-C while ``save_async`` waits for the disk in trio's main task (``p2php peer``: ``run_peer`` saves at the
    end): trio raises it there as a KeyboardInterrupt, no Cancelled, and the shielded wait was skipped -- the
    process ended with its worker thread, no transcript, a stray ``.tmp`` (review rv7-loopio)."""
    import subprocess

    script = Path(__file__).resolve().parent / "chaos_repro" / "rv7_ctrl_c_save.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60).stdout
    assert "interrupted" in out and "files as the process ends: ['t.p2php']" in out, out


@pytest.mark.parametrize("spelling", ["", "dotdot", pytest.param("symlink", marks=pytest.mark.skipif(
    sys.platform == "win32", reason="makes a symlink"))])
def test_a_log_still_being_set_aside_is_neither_resumed_nor_made_anew(spelling: str) -> None:
    """A game cancelled while a slow disk renames its given-up log aside (the cancelled game's wait, 5 s, ends first):
    an app that resumes the seat at once restored it from the log it had said it cannot resume from, and the
    rename then moved the resumed game's new log aside, the seat unaware (review rv7-loopio). Now the resume is
    refused; a new game's log at that path is made once the rename is done, and stays in place. So too when the
    resume and the new log spell the path another way (``logs/../logs/``, a symlinked folder): the set-aside was
    kept by absolute path, and such a spelling got past it (red-team rt9-small)."""
    import subprocess

    script = Path(__file__).resolve().parent / "chaos_repro" / "rv7_resume_while_set_aside.py"
    out = subprocess.run([sys.executable, str(script), spelling], capture_output=True, text=True, timeout=60).stdout
    assert "restore refused" in out and "is being set aside" in out, out
    assert "files: ['seat0.resume', 'seat0.resume.incomplete']" in out and "is game 2's: True" in out, out


@needs_proc
def test_a_late_failure_of_the_ends_close_leaves_a_resumed_games_log_in_place() -> None:
    """The end's close runs past its wait (a cancelled game) and fails later (EIO), after the app resumed the seat
    (its new log now at the same path): that late failure gives the old log up, and its thread renamed the resumed
    game's log aside, the seat unaware (review rv7-loopio). Now only the file given up is set aside."""
    import subprocess

    script = Path(__file__).resolve().parent / "chaos_repro" / "rv7_late_close_failure.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60).stdout
    assert "the resumed game still logging: True ; files: ['seat0.resume']" in out, out
    assert "a newer log now at its path is left as it is" in out, out


@needs_proc
def test_a_command_line_seat_ends_only_once_a_save_that_ran_on_is_done(
        ended: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save past its wait (``run_peer``'s at the end: a warning, "the write runs on") in a command-line seat: the
    process ended right after, its worker thread with it -- no transcript, a stray ``.tmp``
    (``tests/chaos_repro/rv7_cli_save_timeout.py``; before save_async, the save waited for the disk). ``p2php``'s
    ``main`` now waits for such writes before it ends (review rv7-loopio)."""
    from p2php import cli

    (tmp_path / "slow").mkdir()
    fsync, _ = slow_fsync_under(tmp_path / "slow", SLOW)
    monkeypatch.setattr(os, "fsync", fsync)
    path = tmp_path / "slow" / "t.p2php"

    def seat(args: Any) -> int:
        async def game() -> None:
            with pytest.raises(TimeoutError):
                await transcript.save_async(ended, path, within=SLOW / 5)

        trio.run(game)
        return 0

    monkeypatch.setattr(cli, "cmd_bridge", seat)
    assert cli.main(["bridge"]) == 0
    assert transcript.verify(path).ok


def test_a_save_cancelled_before_it_began_is_not_waited_for(ended: Any, tmp_path: Path) -> None:
    """(The wait above must not wait for a save whose thread never began: a cancel already pending.)"""
    async def cancelled() -> None:
        with trio.CancelScope() as scope:
            scope.cancel()
            await transcript.save_async(ended, tmp_path / "t.p2php")

    trio.run(cancelled)
    began = time.monotonic()
    transcript.wait_for_saves()
    assert time.monotonic() - began < 1.0


def test_a_save_whose_thread_never_began_is_neither_lost_nor_waited_for_for_good(ended: Any, tmp_path: Path) -> None:
    """The loop's default thread limiter (40) is spent (by the app's own threads; before dac2006, by a hung resume
    log's writes): save_async waited for a token, its wait ended first -- "the write runs on" of a write that never
    began, no transcript though its disk is fine -- and its entry stayed in the saves ``p2php``'s ``main`` waits for
    at exit: that wait never ended (review rv7b-disk, ``tests/chaos_repro/rv7b_limiter_starved.py``)."""
    import threading

    path = tmp_path / "t.p2php"

    async def starved() -> None:
        limiter = trio.to_thread.current_default_thread_limiter()
        holders = [object() for _ in range(int(limiter.total_tokens))]
        for holder in holders:
            limiter.acquire_on_behalf_of_nowait(holder)
        try:
            with contextlib.suppress(TimeoutError):
                await transcript.save_async(ended, path, within=0.5)
        finally:
            for holder in holders:
                limiter.release_on_behalf_of(holder)

    try:
        trio.run(starved)
        waiter = threading.Thread(target=transcript.wait_for_saves, daemon=True)
        waiter.start()
        waiter.join(3)
        assert not waiter.is_alive(), "wait_for_saves waits for good for a save that never began"
        assert transcript.verify(path).ok
    finally:
        with transcript._WRITING_GUARD:
            transcript._RUNNING.clear()  # (the failing case: never waited for by later tests)


def test_the_exits_wait_for_a_save_on_a_hung_disk_is_bounded(
        ended: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that hangs (a network share gone, a FUSE file system stuck): the end-of-game save past its wait runs on
    and never ends. ``p2php``'s ``main`` waited for it without a bound: the game over, its verdict shown, the process
    never ended (a script or a tournament harness running ``p2php play`` stood still for good; on Windows a Ctrl-C
    does not end a wait with no timeout). It waits at most SAVE_WAIT now, then says the transcript may be missing
    (review rv7b-disk)."""
    import threading

    from p2php import cli

    hang = threading.Event()
    monkeypatch.setattr(transcript, "_write", lambda path, data: hang.wait(30))
    monkeypatch.setattr(transcript, "SAVE_WAIT", 0.5)

    def seat(args: Any) -> int:
        async def game() -> None:
            with pytest.raises(TimeoutError):
                await transcript.save_async(ended, tmp_path / "t.p2php", within=0.1)

        trio.run(game)
        return 0

    monkeypatch.setattr(cli, "cmd_bridge", seat)
    ended_main: list[int] = []
    runner = threading.Thread(target=lambda: ended_main.append(cli.main(["bridge"])), daemon=True)
    try:
        runner.start()
        runner.join(5)
        assert ended_main == [0], "p2php's main still waits for the hung disk's save"
    finally:
        hang.set()
        runner.join(5)


def test_saves_on_a_hung_disk_take_a_bounded_number_of_threads(
        ended: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(With a limiter of their own, saves no longer share trio's 40 threads; they must not take one each without
    end either: a disk that hangs keeps every thread that writes to it.)"""
    import threading

    hang = threading.Event()
    monkeypatch.setattr(transcript, "_write", lambda path, data: hang.wait(30))

    async def many() -> list[str]:
        out: list[str] = []

        async def one(n: int) -> None:
            try:
                await transcript.save_async(ended, tmp_path / f"t{n}.p2php", within=0.5)
            except TimeoutError as err:
                out.append(str(err.strerror))

        async with trio.open_nursery() as nursery:
            for n in range(transcript.SAVE_THREADS + 4):
                nursery.start_soon(one, n)
        return out

    before = threading.active_count()
    try:
        errors = trio.run(many)
        assert threading.active_count() - before <= transcript.SAVE_THREADS
        assert sum("did not begin" in e for e in errors) == 4, errors
        assert len(transcript.wait_for_saves(0.1)) == transcript.SAVE_THREADS
    finally:
        hang.set()
        assert transcript.wait_for_saves(5) == []


@pytest.fixture(scope="module")
def fast_ended() -> Any:
    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=1)  # (a fast deck: a message the log keeps points with)
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    return peers[0]


def test_a_long_record_is_packed_off_the_loop_byte_for_byte_as_before(
        fast_ended: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resumed seat's new log (``ResumeWriter``, made in ``_Runner.__init__`` once its mesh formed) and a saved
    transcript (``save_async``) made every held message's wire form and packed it in the loop: for a 2-seat UNO game's
    28 980 messages, 256 ms and 414 ms of the loop (red-team rt8-disk). Only the held messages are taken there now;
    their wire forms are made, and packed, by the worker thread that writes the file, into the same bytes."""
    import threading

    import msgpack

    from p2php.session import resume
    from p2php.session.messages import ATT, Message

    ls = fast_ended
    assert any(ATT in ls.logged_wire(m) for m in ls.transcript)
    in_loop: list[str] = []
    real = Message.to_wire

    def to_wire(self: Message) -> dict[str, Any]:
        if threading.current_thread() is threading.main_thread():  # (the trio loop's thread)
            in_loop.append(self.kind)
        return real(self)

    async def main() -> None:
        cfg = PeerConfig("toy", {}, 3, 0, "p0", resume_path=tmp_path / "again.resume")
        monkeypatch.setattr(Message, "to_wire", to_wire)
        writer = resume.ResumeWriter(cfg, ls, {s: ("127.0.0.1", 1 + s) for s in range(3)})
        assert writer.file is not None
        await trio.to_thread.run_sync(writer.file.close)  # (its worker's step: the file made)
        await transcript.save_async(ls, tmp_path / "t.p2php")
        monkeypatch.setattr(Message, "to_wire", real)

    trio.run(main)
    assert in_loop == [], in_loop
    data = (tmp_path / "again.resume").read_bytes()
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    unpacker.unpack()  # (the header)
    assert data[unpacker.tell():] == b"".join(msgpack.packb(ls.logged_wire(m), use_bin_type=True)
                                              for m in ls.transcript)
    assert (tmp_path / "t.p2php").read_bytes() == msgpack.packb(transcript.to_data(ls), use_bin_type=True)
