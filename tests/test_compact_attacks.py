"""The compact wire form (protocol.md §5.4) attacked over real loopback sockets, by a rogue peer.

``tests/test_compact_wire.py`` attacks it in memory; here the rogue is a real peer on real links that
agreed to the compact form, so the runner's ``c``/``want``/``full`` frames and the mesh are in the path:
a malformed compact frame names its sender in one line, and a compact frame that does not verify (here:
every one the rogue sends) is only ever answered by asking for the full form — it convicts nobody.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from adversarial.rogue import Out, Rogue, make_rogue, run_table_with_rogue

from p2php.bots import RandomBot
from p2php.session.compact import FRAME, FULL, compact_frame
from p2php.session.runner import bot_decider


def _bots(players: int) -> list[Any]:
    return [bot_decider(RandomBot(50 + s)) for s in range(players)]


def _compact(rogue: Rogue, frame: dict[str, Any]) -> dict[str, Any] | None:
    ls = rogue.ls
    if ls is None:
        return None
    return compact_frame(frame, players=ls.players, previous=partial(ls.held_copy, ls.seat))


async def test_a_malformed_compact_frame_names_its_sender_in_one_line() -> None:
    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "action" and rogue.state.setdefault("seq", frame["seq"]) == frame["seq"]:
            return [(0.0, {FRAME: [frame["seq"], 0, 0, ["x" * 500], 99, {}, b"\0"]})]
        return [(0.0, frame)]

    results = await run_table_with_rogue("toy", 3, _bots(3), make_rogue(1, policy), seed=7)
    for seat in (0, 2):
        result = results[seat]
        assert result is not None and result.lockstep.verdict is not None
        verdict = result.lockstep.verdict
        assert verdict.culprit == 1 and verdict.code == "bad_message", verdict
        assert "compact" in verdict.reason and "\n" not in verdict.reason and len(verdict.reason) <= 300
        assert "x" * 100 not in verdict.reason  # the rogue's text is not echoed


async def test_compact_frames_that_do_not_verify_are_asked_for_in_full_and_convict_nobody() -> None:
    """Every compact frame the rogue sends carries a broken signature; its full forms (answered by its own
    honest runner when asked) are sound.  The game ends clean: the broken frames cost one request each."""

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        short = _compact(rogue, frame)
        if short is None:
            return [(0.0, frame)]
        fields = list(short[FRAME])
        fields[6] = bytes(b ^ 0xFF for b in fields[6])
        rogue.state["broken"] = rogue.state.get("broken", 0) + 1
        return [(0.0, {FRAME: fields})]

    rogue = make_rogue(1, policy)
    results = await run_table_with_rogue("toy", 3, _bots(3), rogue, seed=7)
    assert rogue.state["broken"] > 5
    answered = sum(1 for _to, frame in rogue.log if FULL in frame)
    assert answered > 5  # the honest peers asked for the full forms, and got them
    for seat in (0, 2):
        result = results[seat]
        assert result is not None and result.lockstep.verdict is not None
        assert result.lockstep.verdict.clean, result.lockstep.verdict
