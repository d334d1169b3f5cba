"""The bridge's ``save`` on a slow disk must not hold the client's next commands (review rv7b-disk)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from p2php.bridge.session import BridgeSession

sys.path.insert(0, str(Path(__file__).parent / "chaos_repro"))
from repro_save_in_loop import slow_fsync_under  # noqa: E402

needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="finds a descriptor's path in /proc")


@needs_proc
@pytest.mark.parametrize("verify", [False, True])
async def test_a_save_on_a_slow_disk_never_holds_the_clients_move(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verify: bool) -> None:
    """A client saves its transcript mid-game (``save``) and sends its move (``act``) at once, as a client that does
    not wait for each reply does. The save waits for the disk (``save_async``: off the loop, up to SAVE_WAIT), and
    the bridge read no command meanwhile: the move, unread for the two 3 s ``fsync``s, came after ``timeout`` (2 s)
    and the bot named the honest seat ``silent``. The save runs beside the commands now. So does a ``verify`` of that
    file sent between them, which waits for the save: it waited in the command loop, and the move behind it came
    after ``timeout`` all the same (red-team rt8-red2)."""
    (tmp_path / "slow").mkdir()
    fsync, _ = slow_fsync_under(tmp_path / "slow", 3.0)
    monkeypatch.setattr(os, "fsync", fsync)
    send, receive = trio.open_memory_channel[str](100)
    events: list[dict[str, Any]] = []
    over = trio.Event()
    turns = [0]

    def emit(event: dict[str, Any]) -> None:
        event = json.loads(json.dumps(event, default=str))
        events.append(event)
        if event.get("event") == "your_turn":
            turns[0] += 1
            if turns[0] == 2:
                send.send_nowait(json.dumps({"op": "save", "path": str(tmp_path / "slow" / "mid.p2php")}))
                if verify:
                    send.send_nowait(json.dumps({"op": "verify", "path": str(tmp_path / "slow" / "mid.p2php")}))
            send.send_nowait(json.dumps({"op": "act", "index": 0}))
        elif event.get("event") in ("game_over", "failed"):
            over.set()
            send.send_nowait(json.dumps({"op": "quit"}))

    async def lines() -> Any:
        async for line in receive:
            yield line

    send.send_nowait(json.dumps({"op": "demo", "game": "uno", "bots": 1, "seed": 3, "timeout": 2}))
    with trio.fail_after(120):
        await BridgeSession(emit).run(lines())
    ends = [e for e in events if e.get("event") in ("game_over", "failed")]
    assert ends and ends[0].get("culprit") is None, (ends[0].get("code"), ends[0].get("reason"))
    assert "silent" not in ends[0].get("reason", ""), ends[0].get("reason")  # (the bot's abort: unattributed here)
    assert any(e.get("event") == "saved" for e in events)
    assert any(e.get("event") == "verified" for e in events) == verify


async def test_a_long_verify_never_holds_the_clients_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same with ``verify``: a long record's check (a 2-seat UNO game's 28 980 messages: 17 s of CPU) held every
    command after it, and the client's move, sent right after, came past ``timeout``: the bot named the honest seat
    ``silent`` (red-team rt8-disk). Here a check that takes 6 s, ``timeout`` 2. It runs beside the commands now."""
    import time

    from p2php import api

    real = api.verify_transcript

    def slow_verify(path: Any) -> Any:
        time.sleep(6.0)
        return real(path)

    monkeypatch.setattr(api, "verify_transcript", slow_verify)
    send, receive = trio.open_memory_channel[str](100)
    events: list[dict[str, Any]] = []
    turns = [0]
    saved = tmp_path / "first.p2php"

    def emit(event: dict[str, Any]) -> None:
        event = json.loads(json.dumps(event, default=str))
        events.append(event)
        if event.get("event") == "your_turn":
            turns[0] += 1
            if turns[0] == 1:
                send.send_nowait(json.dumps({"op": "save", "path": str(saved)}))
            if turns[0] == 2:
                send.send_nowait(json.dumps({"op": "verify", "path": str(saved)}))
            send.send_nowait(json.dumps({"op": "act", "index": 0}))
        elif event.get("event") in ("game_over", "failed"):
            send.send_nowait(json.dumps({"op": "quit"}))

    async def lines() -> Any:
        async for line in receive:
            yield line

    send.send_nowait(json.dumps({"op": "demo", "game": "uno", "bots": 1, "seed": 3, "timeout": 2}))
    with trio.fail_after(120):
        await BridgeSession(emit).run(lines())
    ends = [e for e in events if e.get("event") in ("game_over", "failed")]
    assert ends and ends[0].get("clean") is True, (ends[0].get("code"), ends[0].get("reason"))
    verified = [e for e in events if e.get("event") == "verified"]
    assert len(verified) == 1 and verified[0]["ok"] is False  # (an incomplete record: it says so, after 6 s)


async def test_quit_waits_for_a_verify_that_never_ends_a_bounded_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``quit`` (or the end of the input) waits for a verify still running, for its answer, but not for good: a path
    that never answers (a FIFO nobody writes; a hung network mount) held the bridge at its end for good (review
    rv8-disk). Past :data:`~p2php.bridge.session.VERIFY_QUIT_WAIT` the verify's answer is an error, then ``bye``."""
    from p2php.bridge import session

    fifo = tmp_path / "record.p2php"
    os.mkfifo(fifo)
    monkeypatch.setattr(session, "VERIFY_QUIT_WAIT", 0.5, raising=False)
    events: list[dict[str, Any]] = []

    async def lines() -> Any:
        yield json.dumps({"op": "verify", "path": str(fifo), "id": 7})
        yield json.dumps({"op": "quit"})

    with trio.fail_after(10):
        await BridgeSession(events.append).run(lines())
    assert [e["event"] for e in events] == ["ready", "error", "bye"], events
    assert events[1]["op"] == "verify" and events[1]["id"] == 7
