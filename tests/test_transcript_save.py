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
