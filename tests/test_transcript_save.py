"""Saving a transcript to a path that names no file (red-team rt4-faults)."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2php.bots import RandomBot
from p2php.session import transcript
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory


@pytest.fixture(scope="module")
def ended() -> Lockstep:
    peers = make_peers("toy", 2, seed=1)
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    assert peers[0].verdict is not None
    return peers[0]


@pytest.mark.parametrize("where", [".", "/", "here", "here/"])
def test_a_directory_for_a_transcript_is_an_oserror_and_leaves_nothing(
        ended: Lockstep, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """Every caller (``run_peer``, ``p2php host``/``join``, the API) says an OSError in one line and keeps the
    result; before, ``--transcript .`` raised ValueError after the game (a traceback, no verdict shown) and a
    directory left its transcript as a stray ``<dir>.tmp`` beside it."""
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OSError):
        transcript.save(ended, where)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here"]
    assert not list((tmp_path / "here").iterdir())


def test_a_file_path_still_saves(ended: Lockstep, tmp_path: Path) -> None:
    saved = transcript.save(ended, tmp_path / "sub" / "seat0.p2php")
    assert saved.is_file() and not saved.with_name("seat0.p2php.tmp").exists()
    assert transcript.verify(saved).ok


def test_a_saved_transcript_is_on_the_disk_before_and_after_its_rename(
        ended: Lockstep, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The transcript reaches its name by a rename: its bytes must be on the disk before it (else a power cut may
    leave the name on an empty file), and the rename itself needs an ``fsync`` of the directory (else a power cut
    may leave no transcript, or the older one, under the name). Before, neither was synced (red-team rt5-disk)."""
    import os
    import stat

    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    def replace(src: object, dst: object) -> None:
        events.append("rename")
        real_replace(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    saved = transcript.save(ended, tmp_path / "seat0.p2php")
    assert events == ["fsync file", "rename", "fsync dir"], events
    assert transcript.verify(saved).ok


def test_a_transcript_whose_disk_fails_leaves_no_tmp(
        ended: Lockstep, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import os

    def fsync(_fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError):
        transcript.save(ended, tmp_path / "seat0.p2php")
    assert not list(tmp_path.iterdir())


def test_a_saved_transcript_has_protocol_9_4s_layout(ended: Lockstep, tmp_path: Path) -> None:
    """The file is §9.4's map: format version 1 (a file any release wrote must still be read), ``culprit`` −1 for
    none, the messages in the order the peer processed them (mutation run T)."""
    import msgpack

    data = msgpack.unpackb(transcript.save(ended, tmp_path / "t.p2php").read_bytes(), raw=False)
    assert set(data) == {"format", "version", "seat", "game", "options", "hellos", "messages", "equivocations",
                         "refused", "verdict"}
    assert data["equivocations"] == [] and data["refused"] == []  # (optional, rt6: proofs the messages cannot hold)
    assert (data["format"], data["version"], data["seat"], data["game"]) == ("p2php-transcript", 1, 0, "toy")
    assert data["messages"] == [m.to_wire() for m in ended.transcript]
    assert data["hellos"] == list(ended.table.hellos)
    verdict = data["verdict"]
    assert set(verdict) == {"clean", "culprit", "reason", "code", "seats", "state_hash"}
    assert verdict["clean"] is True and verdict["culprit"] == -1 and verdict["state_hash"] == ended.verdict.state_hash
    named = transcript.to_data(ended)
    assert named["version"] == 1


def test_an_empty_file_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty.p2php").write_bytes(b"")
    with pytest.raises(transcript.TranscriptError, match="the file is empty"):
        transcript.load(tmp_path / "empty.p2php")


@pytest.mark.parametrize("pad", [120, 121])
def test_an_entry_shorter_than_a_signed_message_is_refused_before_it_is_decoded(
        ended: Lockstep, tmp_path: Path, pad: int) -> None:
    """A hello or message of fewer than ``MIN_ENTRY`` (128) bytes cannot hold a 64-byte signature and 32-byte
    keys: refused as too short; one of 128 bytes is read, and refused for what it is (mutation run T)."""
    import msgpack

    entry = {"pad": "a" * pad}
    assert len(msgpack.packb(entry)) == 7 + pad  # 127 or 128 bytes
    data = transcript.to_data(ended)
    data["messages"] = [entry, *data["messages"]]
    path = tmp_path / "t.p2php"
    path.write_bytes(msgpack.packb(data, use_bin_type=True))
    if pad == 120:  # 127 bytes: one short of MIN_ENTRY (128, stated here: the test is of the bound)
        with pytest.raises(transcript.TranscriptError, match="message 0: 127 bytes, too short to be a signed message"):
            transcript.verify(path)
    else:
        check = transcript.verify(path)
        assert not check.ok and any(line.startswith("message 0 (seat ?, ? at ?): malformed") for line in check.lines)


def test_a_list_of_entries_that_fills_the_rest_of_the_file_exactly_is_read(ended: Lockstep, tmp_path: Path) -> None:
    """The bound on a list's length is the bytes after its header over ``MIN_ENTRY``: a list of 128-byte entries
    that ends the file is at that bound, and is read (each entry then refused for what it is)."""
    import msgpack

    data = {k: v for k, v in transcript.to_data(ended).items() if k != "messages"}
    data["messages"] = [{"pad": "a" * 121} for _ in range(3)]  # last in the map: nothing after its entries
    path = tmp_path / "t.p2php"
    path.write_bytes(msgpack.packb(data, use_bin_type=True))
    assert path.read_bytes().endswith(msgpack.packb(data["messages"])[1:])
    check = transcript.verify(path)
    assert not check.ok and check.lines[-1] == "refused: 3 of 3 messages do not verify on their own"


def test_a_file_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(transcript.TranscriptError, match="No such file or directory"):
        transcript.verify(tmp_path / "missing.p2php")


def test_hellos_with_sixteen_fields_or_more_are_read(tmp_path: Path) -> None:
    """Unknown hello fields are tolerated (protocol.md, versioning): a hello of a later version with 16 fields or
    more is a map16 in msgpack, read like any other (mutation run T)."""
    import toygame  # noqa: F401  (registers "toy")

    from p2php.engine.registry import get_game
    from p2php.session.handshake import Table, make_hello
    from p2php.session.memory import seeded_secrets
    from p2php.session.modes import parse_table_options

    game = get_game("toy")
    options = parse_table_options(game, {})
    secrets = [seeded_secrets(5, s) for s in range(2)]
    extra = {f"later{k}": k for k in range(6)}
    hellos = [make_hello(secrets[s], s, 2, "toy", options, f"p{s}", extra) for s in range(2)]
    assert all(len(h) >= 16 for h in hellos)
    table = Table("toy", options, tuple(hellos))
    peers = [Lockstep(game, table, s, secrets[s]) for s in range(2)]
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    check = transcript.verify(transcript.save(peers[0], tmp_path / "t.p2php"))
    assert check.ok, check.lines


def test_a_transcript_saves_into_folders_that_do_not_exist_yet(ended: Lockstep, tmp_path: Path) -> None:
    """``--transcript games/2026/today.p2php``: every missing folder is made (mutation run V: only one level was
    tried)."""
    saved = transcript.save(ended, tmp_path / "games" / "2026" / "seat0.p2php")
    assert saved.is_file() and transcript.verify(saved).ok


@pytest.mark.parametrize("fields", [15, 16])
def test_hellos_of_exactly_15_and_16_fields_are_read(tmp_path: Path, fields: int) -> None:
    """15 fields: the largest fixmap (0x8f), 16: the smallest map16; both are maps (mutation run V: 0x8f left out of
    the map headers refused a 15-field hello)."""
    import toygame  # noqa: F401  (registers "toy")

    from p2php.engine.registry import get_game
    from p2php.session.handshake import Table, make_hello
    from p2php.session.memory import seeded_secrets
    from p2php.session.modes import parse_table_options

    game = get_game("toy")
    options = parse_table_options(game, {})
    secrets = [seeded_secrets(5, s) for s in range(2)]
    base = len(make_hello(secrets[0], 0, 2, "toy", options, "p0", {}))
    extra = {f"later{k}": k for k in range(fields - base)}
    hellos = [make_hello(secrets[s], s, 2, "toy", options, f"p{s}", extra) for s in range(2)]
    assert all(len(h) == fields for h in hellos)
    table = Table("toy", options, tuple(hellos))
    peers = [Lockstep(game, table, s, secrets[s]) for s in range(2)]
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    check = transcript.verify(transcript.save(peers[0], tmp_path / "t.p2php"))
    assert check.ok, check.lines


def test_a_spectators_record_says_seat_minus_1(ended: Lockstep) -> None:
    import copy

    watcher = copy.copy(ended)
    watcher.seat = None
    assert transcript.to_data(watcher)["seat"] == -1 and transcript.to_data(ended)["seat"] == ended.seat
