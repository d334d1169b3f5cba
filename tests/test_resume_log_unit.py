"""The resume log's promises, each checked in well under a second, without a network (mutation run W).

What a seat's log must do for the person behind it: every message of its own on the disk (``fsync``) before it
leaves, or the disk's slowness said and the message at least handed to the system; the whole log on the disk when
the game ends; a rename into place that a power cut cannot undo; a file a crash or a power cut cut short read back
with every whole record; and any log the writer can make restored.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from pathlib import Path
from typing import Any

import msgpack
import pytest
import toygame  # noqa: F401  (registers "toy")
import trio

from p2php.bots import RandomBot
from p2php.session import resume
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory
from p2php.session.resume import ResumeError, ResumeWriter, restore
from p2php.session.runner import PeerConfig

ADDRESSES = {0: ("127.0.0.1", 1), 1: ("127.0.0.1", 2)}


def _writer(path: Path, ls: Lockstep | None = None) -> ResumeWriter:
    ls = ls if ls is not None else make_peers("toy", 2, seed=1)[0]
    return ResumeWriter(PeerConfig("toy", {}, 2, 0, "p0", timeout=2.0, resume_path=path), ls, ADDRESSES)


def _records(path: Path) -> list[Any]:
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(path.read_bytes())
    return list(unpacker)[1:]


class _Disk:
    """``os.fsync`` watched: for each one, whether it was of a directory, and the size of the file it synced.
    ``hold()``: every later fsync waits until ``release()`` (a disk that takes its time)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.synced: list[tuple[str, int, int]] = []  # ("dir" | "file", inode, size)
        self.inside = threading.Event()
        self._go = threading.Event()
        self._go.set()
        real = os.fsync

        def fsync(fd: int) -> None:
            st = os.fstat(fd)
            self.inside.set()
            assert self._go.wait(10)
            real(fd)
            self.synced.append(("dir" if stat.S_ISDIR(st.st_mode) else "file", st.st_ino, os.fstat(fd).st_size))

        monkeypatch.setattr(os, "fsync", fsync)

    def hold(self) -> None:
        self.inside.clear()
        self._go.clear()

    def release(self) -> None:
        self._go.set()

    def file_synced_at(self, path: Path) -> list[int]:
        """The sizes ``path``'s file had at each of its fsyncs."""
        ino = path.stat().st_ino
        return [size for kind, i, size in self.synced if kind == "file" and i == ino]

    def dirs(self) -> int:
        return sum(kind == "dir" for kind, _, _ in self.synced)


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


# ----------------------------------------------------------------------------- our messages, a fast and a slow disk


async def test_on_a_fast_disk_our_message_waits_for_its_fsync_and_nothing_is_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    disk = _Disk(monkeypatch)
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        writer.append({"local": "ours", "n": 1})
        assert await writer.sync(5.0) is True  # in time
        assert _records(path)[-1] == {"local": "ours", "n": 1}
        assert disk.file_synced_at(path)[-1] == path.stat().st_size  # on the disk before it leaves
        writer.append({"local": "ours", "n": 2})
        assert await writer.sync(5.0) is True
        assert disk.file_synced_at(path)[-1] == path.stat().st_size
        assert _records(path)[-2:] == [{"local": "ours", "n": 1}, {"local": "ours", "n": 2}]
        nursery.cancel_scope.cancel()
    assert _warnings(caplog) == []  # a fast disk is never called slow


async def test_on_a_slow_disk_our_message_leaves_in_bounded_time_said_and_handed_to_the_system(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """An fsync that hangs: the message's wait ends (not in time), the person is told at once, and what is appended
    meanwhile still reaches the file before the next message leaves (a kill loses none of it)."""
    disk = _Disk(monkeypatch)
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        assert await writer.sync(5.0) is True  # the log is made and in place
        disk.hold()
        writer.append({"local": "ours", "n": 1})
        with trio.fail_after(3):
            assert await writer.sync(0.1) is False
        assert disk.inside.is_set()  # its fsync hangs
        assert _warnings(caplog), "a slow disk is said at its first late fsync"
        writer.append({"local": "ours", "n": 2})  # the worker is still in the first fsync
        with trio.fail_after(3):
            assert await writer.sync(0.1) is False
        assert _records(path)[-1] == {"local": "ours", "n": 2}  # handed to the system all the same
        disk.release()
        assert await writer.sync(5.0) is True  # the disk caught up: in time again
        assert disk.file_synced_at(path)[-1] == path.stat().st_size
        nursery.cancel_scope.cancel()


# ----------------------------------------------------------------------------- the end of a game


async def test_the_end_of_a_game_puts_the_whole_log_on_the_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = _Disk(monkeypatch)
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    writer.write_now()  # (the worker's first step: the log made)
    for n in range(3):
        writer.append({"local": "last", "n": n})
    await writer.aclose()
    assert [r["n"] for r in _records(path)[-3:]] == [0, 1, 2]
    assert disk.file_synced_at(path)[-1] == path.stat().st_size  # the last records too
    assert disk.dirs() == 1  # and its rename into place (no message of ours had fsynced it yet)
    writer.append({"local": "after the end"})  # nothing more is written
    assert [r.get("n") for r in _records(path)[-1:]] == [2]


# ----------------------------------------------------------------------------- the rename into place


def test_a_resumes_log_replaces_the_older_one_durably_before_the_game_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resume writes a new log over the older one: the rename is made durable (its folder fsynced) by the step
    that makes it, else a power cut may bring the older log back and the seat answer again what it sent since."""
    path = tmp_path / "seat0.resume"
    path.write_bytes(b"the older log")
    disk = _Disk(monkeypatch)
    writer = _writer(path)
    writer.write_now()  # (the worker's first step)
    assert path.read_bytes() != b"the older log" and disk.file_synced_at(path) == [path.stat().st_size]
    assert disk.dirs() >= 1
    assert [kind for kind, _, _ in disk.synced][-1] == "dir"  # the rename's, after the file's


async def test_a_new_games_log_rename_is_made_durable_by_the_first_fsync_of_ours(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "seat0.resume"
    disk = _Disk(monkeypatch)
    writer = _writer(path)
    writer.write_now()
    assert path.exists() and disk.dirs() == 0  # in place at once, its fsyncs left to the first durable flush
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        writer.append({"local": "ours"})
        assert await writer.sync(5.0) is True
        nursery.cancel_scope.cancel()
    assert disk.dirs() == 1 and disk.file_synced_at(path)  # the folder's fsync, once
    assert [kind for kind, _, _ in disk.synced][-1] == "dir"


# ----------------------------------------------------------------------------- reading a log back

HEADER = {"format": resume.FORMAT, "version": resume.VERSION, "game": "toy", "options": {}, "seat": 0,
          "hellos": [{}, {}], "master": b"m" * 32, "addresses": [["127.0.0.1", 1], ["127.0.0.1", 2]]}


def _log(tmp_path: Path, records: list[dict[str, Any]], tail: bytes = b"") -> Path:
    path = tmp_path / "crafted.resume"
    path.write_bytes(b"".join(msgpack.packb(x, use_bin_type=True) for x in [HEADER, *records]) + tail)
    return path


@pytest.mark.parametrize("last_from", [0, 1], ids=["ours", "another seat's"])
@pytest.mark.parametrize("zeros", [1, 4096])
def test_a_whole_last_record_before_a_power_cuts_zero_bytes_is_kept(tmp_path: Path, last_from: int,
                                                                     zeros: int) -> None:
    """The zeros a power cut leaves after the last whole record are dropped, that record is kept (it ends in a
    byte that is not zero, before them): whoever sent it."""
    records = [{"from": 1, "seq": 0, "kind": "x"}, {"from": last_from, "seq": 1, "kind": "x"}]
    assert resume.read(_log(tmp_path, records, b"\0" * zeros))[1] == records


def test_another_seats_last_record_that_may_end_in_a_power_cuts_zeros_is_dropped(tmp_path: Path) -> None:
    """A record whose own last bytes are zeros, followed by zeros: where it really ended cannot be told, so another
    seat's is dropped (relayed again on the rejoin), ours kept (ours are fsynced before they leave)."""
    theirs = [{"from": 0, "seq": 0, "kind": "x"}, {"from": 1, "seq": 0, "kind": "x", "n": 0}]
    assert resume.read(_log(tmp_path, theirs, b"\0" * 8))[1] == theirs[:1]
    assert resume.read(_log(tmp_path, theirs))[1] == theirs  # no zeros after it: whole
    ours = [{"from": 1, "seq": 0, "kind": "x"}, {"from": 0, "seq": 0, "kind": "x", "n": 0}]
    assert resume.read(_log(tmp_path, ours, b"\0" * 8))[1] == ours


# ----------------------------------------------------------------------------- restoring what the writer makes


def _played(tmp_path: Path, header: dict[str, Any]) -> tuple[Lockstep, Path]:
    """A whole two-seat toy game in memory; seat 0's log of it (``header``'s fields over the writer's)."""
    peers = make_peers("toy", 2, seed=5)
    records: list[dict[str, Any]] = []
    peers[0].record = records.append
    run_in_memory(peers, {s: RandomBot(50 + s) for s in range(2)})
    live = peers[0]
    assert live.secrets is not None
    full = {"format": resume.FORMAT, "version": resume.VERSION, "game": "toy", "options": live.table.options,
            "seat": 0, "name": "p0", "master": live.secrets.master, "hellos": list(live.table.hellos),
            "timeout": 30.0, "resume_timeout": 30.0, "bot": "random", "private_decks": {},
            "addresses": [["127.0.0.1", 1], ["127.0.0.1", 2]], **header}
    path = tmp_path / "seat0.resume"
    path.write_bytes(b"".join(msgpack.packb(x, use_bin_type=True) for x in [full, *records]))
    return live, path


@pytest.mark.parametrize("decks", [None, {}], ids=["none (an older writer's)", "empty"])
def test_a_log_with_no_private_decks_restores(tmp_path: Path, decks: dict[str, Any] | None) -> None:
    live, path = _played(tmp_path, {"private_decks": decks})
    _, ls = restore(path)
    assert ls.verdict is not None and ls.verdict == live.verdict and len(ls.transcript) == len(live.transcript)


def test_a_log_of_another_seats_hellos_for_our_secret_is_refused(tmp_path: Path) -> None:
    _, path = _played(tmp_path, {"seat": 1})
    with pytest.raises(ResumeError, match="the secret in this log is not seat 1's"):
        restore(path)


def _played_peers(silent: tuple[int, ...] = ()) -> list[Lockstep]:
    peers = make_peers("toy", 2, seed=5)
    run_in_memory(peers, {s: RandomBot(50 + s) for s in range(2)}, silent=silent)
    return peers


def test_the_log_a_resumed_seat_writes_holds_the_whole_game_and_restores(tmp_path: Path) -> None:
    """A resume writes a new log from the rebuilt peer (its header and every message it holds): that log restores
    to the same seat, the same messages, the same verdict."""
    live = _played_peers()[0]
    path = tmp_path / "seat0.resume"
    writer = _writer(path, live)
    writer.write_now()  # (the worker's first step: the file made)
    assert writer.file is not None
    writer.file.close()
    header, ls = restore(path)
    assert header["seat"] == 0 and header["name"] == "p0"
    assert ls.verdict == live.verdict and len(ls.transcript) == len(live.transcript)


def test_a_frame_that_came_ahead_of_its_turn_is_kept_in_the_log_and_played_once_the_missing_one_comes(
        tmp_path: Path) -> None:
    got: list[tuple[int, Any]] = []
    peers = make_peers("toy", 2, seed=5)
    receive = peers[0].receive
    peers[0].receive = lambda s, f: (got.append((s, f)), receive(s, f))[1]  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(50 + s) for s in range(2)})
    fresh = make_peers("toy", 2, seed=5)[0]
    fresh.receive(1, got[1][1])  # seat 1's second message, its first still on its way
    assert fresh.parked
    path = tmp_path / "seat0.resume"
    writer = _writer(path, fresh)
    writer.write_now()
    assert writer.file is not None
    writer.file.close()
    _, ls = restore(path)
    assert [f["seq"] for f in ls.parked[1]] == [1]
    ls.receive(1, got[0][1])  # the missing one comes: both are taken
    assert not ls.parked.get(1)
    ls.poll()
    assert {m.seq for m in ls.transcript if m.sender == 1} >= {0, 1}


def test_an_online_seats_log_keeps_its_libp2p_settings(tmp_path: Path) -> None:
    online = {"relay": None, "port": 4001, "advertise": ["203.0.113.7"], "relay_only": False}
    path = tmp_path / "seat0.resume"
    ls = make_peers("toy", 2, seed=1)[0]
    writer = ResumeWriter(PeerConfig("toy", {}, 2, 0, "p0", resume_path=path, online=online), ls, ADDRESSES)
    writer.write_now()
    assert writer.file is not None
    writer.file.close()
    header, _ = resume.read(path)
    assert header["online"] == online


@pytest.mark.skipif(not hasattr(os, "fchmod"), reason="POSIX modes")
def test_a_stale_tmp_of_an_older_version_does_not_make_the_log_readable_by_others(tmp_path: Path) -> None:
    path = tmp_path / "seat0.resume"
    stale = path.with_name(path.name + ".tmp")
    stale.write_bytes(b"left by a crash")
    stale.chmod(0o644)
    writer = _writer(path)
    writer.write_now()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert resume.read(path)[0]["seat"] == 0


def test_a_log_that_names_another_seat_restores_with_that_finding(tmp_path: Path) -> None:
    """Only a log whose replay faults *our own* seat is refused: one where another seat was named (here seat 1,
    silent) restores, with that finding."""
    live = _played_peers(silent=(1,))[0]
    assert live.fault is not None and live.fault.culprit == 1
    path = tmp_path / "seat0.resume"
    writer = _writer(path, live)
    writer.write_now()
    assert writer.file is not None
    writer.file.close()
    _, ls = restore(path)
    assert ls.fault is not None and ls.fault.culprit == 1


async def test_messages_we_receive_are_handed_to_the_system_without_an_fsync_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only our own messages wait for the disk: a flush of what we received writes it, and costs no fsync."""
    disk = _Disk(monkeypatch)
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        assert await writer.sync(5.0) is True  # the log made, on the disk
        synced = len(disk.synced)
        writer.append({"from": 1, "seq": 0, "kind": "theirs"})
        writer.flush()
        with trio.fail_after(5):
            while not _records(path) or _records(path)[-1].get("kind") != "theirs":
                await trio.sleep(0.01)
        await trio.sleep(0.05)
        assert len(disk.synced) == synced
        nursery.cancel_scope.cancel()


# ----------------------------------------------------------------------------- closing, giving up


def test_closing_a_log_without_waiting_while_its_fsync_runs_leaves_that_fsync_to_finish(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``close(block=False)`` (a log given up) while a worker's fsync runs: nothing is closed under it."""
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    writer.write_now()
    log = writer.file
    assert log is not None
    disk = _Disk(monkeypatch)
    disk.hold()
    errors: list[BaseException] = []

    def durable_flush() -> None:
        try:
            log.flush(durable=True)
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    log.append({"local": "ours"})
    worker = threading.Thread(target=durable_flush)
    worker.start()
    assert disk.inside.wait(5)
    log.close(block=False)
    disk.release()
    worker.join(10)
    assert errors == [] and disk.file_synced_at(path)


def test_closing_a_log_without_waiting_while_it_is_being_made_leaves_the_make_to_finish(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "seat0.resume"
    path.write_bytes(b"the older log")  # a resume's: made with an fsync, under the write lock
    writer = _writer(path)
    log = writer.file
    assert log is not None
    disk = _Disk(monkeypatch)
    disk.hold()
    errors: list[BaseException] = []

    def make() -> None:
        try:
            log.flush()
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    worker = threading.Thread(target=make)
    worker.start()
    assert disk.inside.wait(5)
    assert log.flush_if_free() is False  # the writer is busy: nothing done, nothing waited for
    log.close(block=False)
    disk.release()
    worker.join(10)
    assert errors == []


def test_flush_if_free_makes_no_file(tmp_path: Path) -> None:
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    assert writer.file is not None and writer.file.flush_if_free() is False
    assert not path.exists()  # making it fsyncs: left to a writer that may wait


async def test_a_disk_that_hangs_at_the_end_of_the_game_holds_it_a_bounded_time_and_is_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    writer.write_now()
    disk = _Disk(monkeypatch)
    disk.hold()
    writer.append({"local": "last"})
    try:
        with trio.fail_after(5):
            await writer.aclose(0.2)
        assert _warnings(caplog), "the person is told the log may lack its last records"
    finally:
        disk.release()


async def test_a_log_whose_last_write_fails_is_never_left_where_p2php_resume_would_take_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    writer.write_now()
    assert resume.read(path)  # a whole log so far

    def fail(self: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(resume.ResumeLog, "_write_queue", fail)
    writer.append({"local": "last"})
    await writer.aclose()
    with pytest.raises(ResumeError):
        restore(path)  # it lacks what came after: a resume from it would answer again, differently


def test_a_log_of_a_table_the_game_cannot_seat_is_refused_for_its_player_count(tmp_path: Path) -> None:
    _, path = _played(tmp_path, {})
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(path.read_bytes())
    header, *records = list(unpacker)
    header["hellos"], header["addresses"] = header["hellos"][:1], header["addresses"][:1]
    path.write_bytes(b"".join(msgpack.packb(x, use_bin_type=True) for x in [header, *records]))
    with pytest.raises(ResumeError, match=r"toy needs 2.* players, not 1"):
        restore(path)


async def test_a_seat_whose_log_was_given_up_sends_without_waiting(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    writer = _writer(tmp_path / "a-file" / "seat0.resume")
    writer.write_now()  # the log cannot be made: given up, the seat plays on
    with trio.fail_after(1):
        assert await writer.sync(30.0) is True  # nothing to wait for


@pytest.mark.parametrize("later", ["abort_naming_us", "late_message"])
def test_what_came_after_our_own_abort_is_kept_by_the_resumed_seat(later: str) -> None:
    """Another seat's messages logged after our own abort (here moved to just after it) are read once the rebuilt
    peer has stopped where we did, and kept: the new log a resume writes holds every one of them."""
    from test_resume_own_abort import SEED, _pump

    from p2php.session.memory import seeded_secrets
    from p2php.session.records import Fault, FaultCode
    from p2php.session.resume import _restore

    peers = make_peers("uno", 3, {}, seed=SEED)
    log: list[dict[str, Any]] = []
    peers[2].record = log.append
    held: list[tuple[int, int, Any]] = []
    hold = {(1, 2)} if later == "late_message" else {(1, 0), (1, 2)}
    for _ in range(50):
        if not _pump(peers, hold, held):
            break
    peers[2].timeout([1])
    _pump(peers, hold | {(2, 0), (2, 1)}, [])
    if later == "abort_naming_us":
        peers[0]._raise_fault(Fault(2, "no message came from it", (peers[0].tick, peers[0].phase), FaultCode.SILENT))
        for msg in peers[0].poll():
            if msg.kind == "abort":
                peers[2].receive(0, peers[0].wire_for(msg, 2))
    else:
        for frm, to, frame in held:
            if to == 2:
                peers[2].receive(frm, frame)
    mine = next(n for n, r in enumerate(log) if r.get("from") == 2 and r.get("kind") == "abort")
    theirs = [r for r in log[mine + 1:] if r.get("from") != 2]
    assert theirs
    log = log[:mine + 1] + theirs + [r for r in log[mine + 1:] if r.get("from") == 2]
    header = {"game": "uno", "options": {}, "hellos": list(peers[2].table.hellos), "seat": 2,
              "master": seeded_secrets(SEED, 2).master}
    ls = _restore("seat2.resume", header, log)
    kept = [ls.logged_wire(m) for m in ls.transcript] + [ls.logged_wire(m) for q in ls.inbox.values() for m in q]
    kept += [f for frames in ls.parked.values() for f in frames]
    key = [(r["from"], r["seq"], r["kind"]) for r in kept]
    assert all((r["from"], r["seq"], r["kind"]) in key for r in theirs)


ONLINE = {"relay": None, "port": 4001, "advertise": ["203.0.113.7"], "relay_only": False}


@pytest.mark.parametrize(("change", "reason"), [
    ({"online": {**ONLINE, "port": 65536}}, "'online' is not"),
    ({"online": {**ONLINE, "port": -1}}, "'online' is not"),
    ({"online": {**ONLINE, "advertise": ["1" * 65]}}, "'online' is not"),
    ({"online": {**ONLINE, "relay": 5}}, "'online' is not"),
    ({"online": {**ONLINE, "relay_only": "yes"}}, "'online' is not"),
    ({"online": [1]}, "'online' is not"),
    ({"seat": 2}, "'seat' is not one of the 2 seats"),
    ({"seat": -1}, "'seat' is not one of the 2 seats"),
    ({"seat": True}, "'seat' is not one of the 2 seats"),
    ({"master": b"m" * 31}, "'master' is not 32 bytes"),
    ({"timeout": 0}, "'timeout' is not a positive number"),
    ({"resume_timeout": float("nan")}, "'resume_timeout' is not a positive number"),
    ({"addresses": [["127.0.0.1", 1], ["127.0.0.1", 2, 3]]}, "'addresses' is not one [host, port] per seat"),
    ({"addresses": [["127.0.0.1", 1], ["127.0.0.1"]]}, "'addresses' is not one [host, port] per seat"),
    ({"addresses": [["127.0.0.1", 1], ["127.0.0.1", 65536]]}, "'addresses' is not one [host, port] per seat"),
    ({"private_decks": {"d": [1, True]}}, "'private_decks' is not a map of card lists"),
    ({"name": 5}, "'name' is not a string"),
], ids=lambda v: repr(v)[:40] if isinstance(v, dict) else "")
def test_a_header_field_out_of_its_bounds_is_refused_for_its_own_reason(
        tmp_path: Path, change: dict[str, Any], reason: str) -> None:
    path = tmp_path / "crafted.resume"
    path.write_bytes(msgpack.packb({**HEADER, **change}, use_bin_type=True))
    with pytest.raises(ResumeError) as info:
        resume.read(path)
    assert f"damaged header: {reason}" in str(info.value), str(info.value)


@pytest.mark.parametrize("change", [
    {"online": {"relay": None, "port": 0}}, {"online": {**ONLINE, "port": 65535, "advertise": ["1" * 64]}},
    {"seat": 0}, {"seat": 1}, {"addresses": [["127.0.0.1", 0], ["::1", 65535]]}, {"timeout": 0.001},
], ids=lambda v: repr(v)[:40])
def test_a_header_at_its_bounds_is_read(tmp_path: Path, change: dict[str, Any]) -> None:
    path = tmp_path / "edge.resume"
    path.write_bytes(msgpack.packb({**HEADER, **change}, use_bin_type=True))
    assert resume.read(path) == ({**HEADER, **change}, [])


async def test_a_disk_that_fails_an_fsync_is_given_up_without_the_game_ever_waiting_on_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An fsync that fails (EIO) gives the log up; the seat plays on, and no fsync ever runs in the game's own
    thread (a failing disk's may hang: the game would stall with it)."""
    import errno

    in_game_thread: list[bool] = []

    def fsync(fd: int) -> None:
        in_game_thread.append(threading.current_thread() is threading.main_thread())
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)
    writer = _writer(tmp_path / "seat0.resume")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        writer.append({"local": "ours"})
        with trio.fail_after(5):
            await writer.sync(5.0)
        writer.append({"local": "more"})  # the seat plays on
        with trio.fail_after(5):
            assert await writer.sync(5.0) is True
        nursery.cancel_scope.cancel()
    assert in_game_thread and not any(in_game_thread)


def test_a_log_given_up_before_it_was_made_is_never_made(tmp_path: Path) -> None:
    """Given up (closed without waiting) while still to be made, as a worker's step starts: that step, and any
    later one, does nothing and raises nothing (an error there would end the seat's game)."""
    path = tmp_path / "seat0.resume"
    log = _writer(path).file
    assert log is not None
    log.close(block=False)
    log.flush()
    log.flush(durable=True)
    assert not path.exists() and not path.with_name(path.name + ".tmp").exists()


def test_a_log_of_format_version_1_is_read(tmp_path: Path) -> None:
    """The file format is version 1 (logs written by earlier p2php releases restore): a header saying so is read."""
    path = tmp_path / "v1.resume"
    path.write_bytes(msgpack.packb({**HEADER, "format": "p2php-resume", "version": 1}, use_bin_type=True))
    assert resume.read(path)[0]["version"] == 1


def test_a_log_is_made_in_a_folder_that_does_not_exist_yet(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "seat0.resume"
    writer = _writer(path)
    writer.write_now()
    assert resume.read(path)[0]["seat"] == 0


def test_a_log_whose_hellos_were_altered_is_refused_by_the_handshakes_check(tmp_path: Path) -> None:
    _, path = _played(tmp_path, {})
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(path.read_bytes())
    header, *records = list(unpacker)
    header["hellos"][1] = {**header["hellos"][1], "name": "mallory"}  # signed: its signature no longer verifies
    path.write_bytes(b"".join(msgpack.packb(x, use_bin_type=True) for x in [header, *records]))
    with pytest.raises(ResumeError) as info:
        restore(path)
    assert str(info.value).endswith("hello from seat 1 ('mallory'): bad signature"), str(info.value)  # not a record's


async def test_the_log_is_made_at_the_start_without_waiting_on_the_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker makes the log as the game starts (before any message of ours), and making a new game's log
    costs no fsync: those wait for our first message (a slow disk never holds the start)."""
    disk = _Disk(monkeypatch)
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        with trio.fail_after(5):
            while not path.exists():
                await trio.sleep(0.01)
        await trio.sleep(0.05)
        assert disk.synced == []
        nursery.cancel_scope.cancel()


async def test_the_end_of_a_game_waits_for_a_step_still_running_then_writes_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = _Disk(monkeypatch)
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        assert await writer.sync(5.0) is True
        disk.hold()
        writer.append({"local": "ours"})
        assert await writer.sync(0.05) is False  # the worker's fsync hangs
        writer.append({"local": "last"})
        threading.Timer(0.2, disk.release).start()  # the disk comes back while the game ends
        with trio.fail_after(5):
            await writer.aclose()
        nursery.cancel_scope.cancel()
    assert _records(path)[-1] == {"local": "last"}
    assert disk.file_synced_at(path)[-1] == path.stat().st_size


async def test_a_write_that_fails_while_an_fsync_hangs_gives_the_log_up_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Late (the worker's fsync hangs), what we append is handed to the system by the game's wait: if that write
    fails, the log is given up then -- not resumable -- and the game did not wait for the hung fsync."""
    import errno
    import time

    disk = _Disk(monkeypatch)
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    releaser = threading.Timer(2.0, disk.release)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        assert await writer.sync(5.0) is True
        disk.hold()
        writer.append({"local": "ours"})
        assert await writer.sync(0.05) is False
        assert disk.inside.wait(5)

        def fail(self: Any) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(resume.ResumeLog, "_write_queue", fail)
        writer.append({"local": "more"})
        releaser.start()
        began = time.monotonic()
        await writer.sync(0.2)
        assert time.monotonic() - began < 1.5  # never waited for the hung fsync
        assert writer.file is None  # given up
        disk.release()
        nursery.cancel_scope.cancel()
    releaser.cancel()
    with pytest.raises(ResumeError):
        restore(path)


async def test_a_log_given_up_between_a_wake_and_the_workers_step_ends_the_worker_quietly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    writer = _writer(tmp_path / "seat0.resume")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        assert await writer.sync(5.0) is True

        def fail(self: Any) -> None:
            raise OSError(errno.EIO, "Input/output error")

        writer.append({"local": "theirs"})
        writer.flush()  # the worker is woken ...
        monkeypatch.setattr(resume.ResumeLog, "_write_queue", fail)
        writer.write_now()  # ... and the log given up before its step runs
        assert writer.file is None
        writer.write_now()  # nothing more is tried
        with trio.fail_after(5):
            await trio.sleep(0.05)  # the worker ends (no error)
        nursery.cancel_scope.cancel()


def test_a_log_that_cannot_be_opened_again_after_its_rename_is_given_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The log is renamed into place closed, then opened again to append: if that fails (too many open files), the
    log is given up -- never left in place, silently taking no more records, for ``p2php resume`` to start from."""
    import errno

    real = os.fdopen

    def fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if mode == "ab":
            raise OSError(errno.EMFILE, "Too many open files")
        return real(fd, mode, *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", fdopen)
    path = tmp_path / "seat0.resume"
    writer = _writer(path)
    writer.write_now()
    assert writer.file is None  # given up: the seat plays on without it
    with pytest.raises(ResumeError):
        restore(path)


@pytest.mark.parametrize("later", ["abort_naming_us", "late_message"])
def test_a_seat_that_stopped_on_its_own_abort_late_in_a_game_is_rebuilt_where_it_stopped(later: str) -> None:
    """As test_resume_own_abort.py, but the abort comes after two rounds of play (there: at the set-up, before any
    message of another seat lay between our first record and our abort). The rebuilt peer stops at our abort,
    waiting for the seat we named only, as the live one did (with the log split at our first record instead, it
    ended past that point, waiting for seat 0 too)."""
    from test_resume_own_abort import SEED, _pump

    from p2php.session.memory import seeded_secrets
    from p2php.session.records import Fault, FaultCode
    from p2php.session.resume import _restore

    peers = make_peers("uno", 3, {}, seed=SEED)
    log: list[dict[str, Any]] = []
    peers[2].record = log.append
    def play() -> None:
        for ls in peers:
            if ls.awaiting_me():
                ls.act(RandomBot(ls.seat).choose(ls.state, ls.seat, ls.knowledge(), ls.legal_actions()))

    for _ in range(2):  # two rounds of play, everything delivered
        play()
        _pump(peers, set(), [])
    play()
    held: list[tuple[int, int, Any]] = []
    hold = {(1, 2)} if later == "late_message" else {(1, 0), (1, 2)}  # then seat 1's messages are held back
    for _ in range(50):
        if not _pump(peers, hold, held):
            break
    live = peers[2]
    assert live.waiting_for() == [1]
    at = (live.tick, live.phase)
    live.timeout([1])
    _pump(peers, hold | {(2, 0), (2, 1)}, [])
    if later == "abort_naming_us":  # the cheater seat 0
        peers[0]._raise_fault(Fault(2, "no message came from it", (peers[0].tick, peers[0].phase), FaultCode.SILENT))
        for msg in peers[0].poll():
            if msg.kind == "abort":
                live.receive(0, peers[0].wire_for(msg, 2))
    else:
        for frm, to, frame in held:
            if to == 2:
                live.receive(frm, frame)
    assert live.fault is not None and live.fault.culprit == 1
    header = {"game": "uno", "options": {}, "hellos": list(live.table.hellos), "seat": 2,
              "master": seeded_secrets(SEED, 2).master}
    ls = _restore("seat2.resume", header, log)
    assert (ls.tick, ls.phase) == at == (live.tick, live.phase)
    assert ls.fault is not None and (ls.fault.culprit, ls.fault.code) == (1, FaultCode.SILENT)
    assert ls.waiting_at_abort == live.waiting_at_abort == [1]
    assert ls.outbox == []
