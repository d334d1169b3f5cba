"""A new game's resume log is in place before its slow fsyncs run (review rv6-faults).

The seat's messages leave after a bounded wait for the log (SYNC_WAIT), while the worker still makes it: before, a
new log stayed a ``.tmp`` through both fsyncs, and a kill then left no log at all (``p2php resume``: "No such file or
directory") though messages had been sent. A resume's new log still replaces the older one only once fsynced."""

from __future__ import annotations

import os
import threading
from functools import partial
from pathlib import Path

import msgpack
import pytest

from p2php.session import resume
from p2php.session.resume import ResumeLog, _make_log


def _blocked_fsync(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """Every fsync waits until the returned ``go`` is set; ``inside`` is set when the first one starts."""
    inside, go, real = threading.Event(), threading.Event(), os.fsync

    def fsync(fd: int) -> None:
        inside.set()
        assert go.wait(10)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(resume.os, "fsync", fsync)
    return inside, go


HEADER = {"format": resume.FORMAT, "version": resume.VERSION, "seat": 0}


def _make(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ResumeLog, threading.Thread, threading.Event]:
    inside, go = _blocked_fsync(monkeypatch)
    log = ResumeLog(None, partial(_make_log, path, msgpack.packb(HEADER, use_bin_type=True)))
    log.append({"from": 0, "seq": 0})
    worker = threading.Thread(target=partial(log.flush, True))
    worker.start()
    assert inside.wait(10)  # the worker is in the make's first fsync
    return log, worker, go


def test_a_new_games_log_is_in_place_during_its_fsync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "seat0.resume"
    log, worker, go = _make(path, monkeypatch)
    try:
        assert path.exists()  # a kill now leaves a log: its header and what was queued
        log.append({"from": 0, "seq": 1})  # appended during the slow fsync: written to the file all the same
        assert log.flush_if_free()
        unpacker = msgpack.Unpacker(raw=False)
        unpacker.feed(path.read_bytes())
        assert list(unpacker) == [HEADER, {"from": 0, "seq": 0}, {"from": 0, "seq": 1}]
    finally:
        go.set()
        worker.join()
    assert not path.with_name(path.name + ".tmp").exists()


def test_a_resumes_log_replaces_the_older_one_only_once_fsynced(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "seat0.resume"
    path.write_bytes(b"older")
    _, worker, go = _make(path, monkeypatch)
    try:
        assert path.read_bytes() == b"older"
    finally:
        go.set()
        worker.join()
    assert path.read_bytes().startswith(msgpack.packb(HEADER, use_bin_type=True))
