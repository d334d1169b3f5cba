"""The bridge's ``settings``: HP Sha's names in one language, and forced single choices answered by the bridge."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import trio

CJK = re.compile(r"[\u4e00-\u9fff]")


async def _play(settings: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A 4-seat HP Sha demo through a bridge session, answering every your_turn with its first choice."""
    from p2php.bridge.session import BridgeSession

    out: list[dict[str, Any]] = []
    tx, rx = trio.open_memory_channel[str](100)

    async def lines() -> Any:
        async for line in rx:
            yield line

    async def answer() -> None:
        acted = 0
        while True:
            await trio.sleep(0.01)
            turns = [e for e in out if e["event"] == "your_turn"]
            if len(turns) > acted:
                acted += 1
                await tx.send('{"op": "act", "index": 0}')

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(BridgeSession(out.append).run, lines())
            if settings is not None:
                await tx.send(json.dumps({"op": "settings", **settings, "id": "s"}))
            await tx.send('{"op": "demo", "game": "hpsha", "bots": 3, "seed": 4, "options": {"crypto": "fast"}}')
            nursery.start_soon(answer)
            while not any(e["event"] in ("game_over", "failed") for e in out):
                await trio.sleep(0.02)
            await tx.send('{"op": "quit"}')
            nursery.cancel_scope.cancel()
    return out


async def test_settings_give_one_language_and_answer_forced_choices() -> None:
    plain = await _play(None)
    assert any(e["event"] == "your_turn" and len(e["legal"]) == 1 for e in plain)  # forced choices do come up
    assert any(CJK.search(json.dumps(e["labels"], ensure_ascii=False)) for e in plain if e["event"] == "your_turn")

    out = await _play({"lang": "en", "auto_forced": True})
    assert next(e for e in out if e.get("id") == "s") == {"event": "ok", "op": "settings", "lang": "en",
                                                          "auto_forced": True, "id": "s"}
    turns = [e for e in out if e["event"] == "your_turn"]
    # Only a decision every seat would have one action in, whatever its cards, answers itself: one forced by the
    # seat's own cards (a window while the hand holds no answer) is still asked, or the time it took would tell
    # every seat what the hand lacks (protocol.md §10.4; red-team rt5).  This game asks no such public one.
    assert turns and len(turns) <= len([e for e in plain if e["event"] == "your_turn"])
    for e in out:
        if e["event"] in ("your_turn", "step", "game_over"):
            shown = {k: v for k, v in e.items() if k != "legal"}
            if isinstance(shown.get("view"), dict):  # HP Sha's view carries its Chinese log beside the English one
                shown["view"] = {k: v for k, v in shown["view"].items() if k != "log_zh"}
            assert not CJK.search(json.dumps(shown, ensure_ascii=False)), e
    assert next(e for e in out if e["event"] == "game_over")["clean"]


async def test_settings_refuse_an_unknown_language_or_a_bad_switch() -> None:
    from p2php.bridge.session import BadCommand, BridgeSession

    session = BridgeSession(lambda _event: None)
    with pytest.raises(BadCommand, match="lang must be one of en, zh"):
        await session._op_settings({"lang": "fr"}, None)
    with pytest.raises(BadCommand):
        await session._op_settings({"auto_forced": "yes"}, None)
