"""The bridge's ``verify``, run in a task of its own (fast: the check itself is replaced): one answer to each,
one at a time, its errors, and ``quit`` waiting for it up to ``VERIFY_QUIT_WAIT``."""

from __future__ import annotations

import importlib
import json
import time
from dataclasses import dataclass
from typing import Any

import pytest
import trio

from p2php import api
from p2php.bridge import BridgeSession
from p2php.session.transcript import TranscriptError

bridge_session = importlib.import_module("p2php.bridge.session")


@dataclass
class _Check:
    ok: bool = True
    lines: tuple[str, ...] = ("audit: clean",)
    state_hash: str = "ab" * 32


def _verify_taking(seconds: float, result: Any = None) -> Any:
    def verify(path: Any) -> Any:
        time.sleep(seconds)
        if isinstance(result, BaseException):
            raise result
        return _Check() if result is None else result

    return verify


async def _run(commands: list[dict[str, Any]], *, gap: float = 0.0) -> list[dict[str, Any]]:
    """The events of a session fed ``commands`` (``gap`` seconds apart), ``ready`` left out."""
    out: list[dict[str, Any]] = []

    async def lines() -> Any:
        for cmd in commands:
            yield json.dumps(cmd)
            await trio.sleep(gap)

    with trio.fail_after(30):
        await BridgeSession(out.append).run(lines())
    assert out[0]["event"] == "ready"
    return out[1:]


async def test_a_verify_then_quit_at_once_still_answers_before_bye(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "verify_transcript", _verify_taking(0.3))
    out = await _run([{"op": "verify", "path": "x.p2php", "id": 1}, {"op": "quit"}])
    assert out == [{"event": "verified", "ok": True, "lines": ["audit: clean"], "state_hash": "ab" * 32, "id": 1},
                   {"event": "bye"}]


async def test_a_second_verify_while_one_runs_is_refused_and_one_after_it_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "verify_transcript", _verify_taking(0.5))
    out = await _run([{"op": "verify", "path": "a", "id": 1}, {"op": "verify", "path": "b", "id": 2}], gap=0.1)
    assert [(e["event"], e.get("id")) for e in out] == [("error", 2), ("verified", 1), ("bye", None)]
    assert out[0]["op"] == "verify" and "still running" in out[0]["message"]
    out = await _run([{"op": "verify", "path": "a", "id": 1}, {"op": "verify", "path": "b", "id": 2}], gap=0.8)
    assert [(e["event"], e.get("id")) for e in out] == [("verified", 1), ("verified", 2), ("bye", None)]


async def test_quit_leaves_a_verify_unfinished_after_verify_quit_wait_and_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "verify_transcript", _verify_taking(3.0))
    monkeypatch.setattr(bridge_session, "VERIFY_QUIT_WAIT", 0.3)
    started = time.monotonic()
    out = await _run([{"op": "verify", "path": "x.p2php", "id": 5}, {"op": "quit"}])
    assert time.monotonic() - started < 2.5
    assert out == [{"event": "error", "message": "verify: not done within 0 s of quit; left unfinished",
                    "op": "verify", "id": 5}, {"event": "bye"}]


@pytest.mark.parametrize(("raised", "message"), [
    (TranscriptError("not a p2php transcript"), "not a p2php transcript"),
    (ValueError("bad header"), "bad header"),
    (FileNotFoundError(2, "No such file or directory"), "No such file or directory"),
    (RuntimeError("boom"), "internal error: RuntimeError('boom')"),
])
async def test_a_verify_that_fails_answers_with_one_error(
        monkeypatch: pytest.MonkeyPatch, raised: BaseException, message: str) -> None:
    monkeypatch.setattr(api, "verify_transcript", _verify_taking(0.0, raised))
    out = await _run([{"op": "verify", "path": "x.p2php", "id": 3}, {"op": "legal", "id": 4}], gap=0.2)
    assert out[0] == {"event": "error", "message": message, "op": "verify", "id": 3}, out
    assert [(e["event"], e.get("id")) for e in out[1:]] == [("error", 4), ("bye", None)]  # the session goes on


async def test_an_act_for_another_question_is_refused_as_stale_before_its_index_or_turn_is_judged() -> None:
    """``act`` checks its ``turn`` first: an answer for another question with an index the open one lacks, or sent
    once no question is open, is told that its question is not the open one (docs/bridge.md, ``act``), not that the
    index does not exist or that it is not the seat's turn."""
    send, receive = trio.open_memory_channel[str](100)
    out: list[dict[str, Any]] = []
    asked: list[int] = []

    def emit(event: dict[str, Any]) -> None:
        out.append(event)
        if event.get("event") == "your_turn" and not asked:
            asked.append(event["turn"])
            send.send_nowait(json.dumps({"op": "act", "index": 999, "turn": event["turn"] + 5, "id": "far"}))
            send.send_nowait(json.dumps({"op": "act", "index": 0, "turn": event["turn"], "id": "mine"}))
        elif event.get("id") == "mine":
            send.send_nowait(json.dumps({"op": "act", "index": 0, "turn": asked[0], "id": "again"}))
            send.send_nowait(json.dumps({"op": "quit"}))

    async def lines() -> Any:
        async for line in receive:
            yield line

    send.send_nowait(json.dumps({"op": "demo", "game": "uno", "bots": 1, "options": {"crypto": "fast"}, "seed": 5}))
    with trio.fail_after(60):
        await BridgeSession(emit).run(lines())
    replies = {e["id"]: e for e in out if e.get("id") in ("far", "mine", "again")}
    t = asked[0]
    assert replies["far"]["event"] == "error" and replies["far"]["message"] == (
        f"that answer is for question {t + 5}, but question {t} is open: it was not played"), replies["far"]
    assert replies["mine"]["event"] == "ok" and replies["mine"]["turn"] == t
    assert replies["again"]["event"] == "error" and f"answer is for question {t}, but" in replies["again"]["message"]
