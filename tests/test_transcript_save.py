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
