"""Pass digests (protocol v8, §6.4) over real loopback sockets: a seat that plays with a pass's points.

Seat 0 makes the first shuffle pass of a fast deck; its points go to seat 1 only (seat 1 makes the next pass). The
rogue (:mod:`adversarial.rogue`) is an unmodified peer whose outgoing frames a policy rewrites, so each test is one
thing a modified client could do with the wire field ``att``, and what every honest peer concludes.
"""

from __future__ import annotations

from typing import Any

import pytest
from adversarial.rogue import Out, Rogue, make_rogue, run_table_with_rogue

from p2php.bots import RandomBot
from p2php.session.messages import ATT
from p2php.session.runner import PeerResult, bot_decider

pytestmark = pytest.mark.crypto("fast")  # the fast deck's own mechanics

NEXT = 1
"""The seat that makes the pass after the rogue's first one (seat 0's shuffle, then seat 1's)."""


def _bots(players: int) -> list[Any]:
    return [bot_decider(RandomBot(40 + s)) for s in range(players)]


def _first_pass(rogue: Rogue, frame: dict[str, Any]) -> bool:
    """Whether ``frame`` is the rogue's first pass with its points (the one this test plays with)."""
    if ATT not in frame:
        return False
    return rogue.state.setdefault("seq", frame["seq"]) == frame["seq"]


def _verdicts(results: list[PeerResult | None]) -> dict[int, Any]:
    return {r.lockstep.seat: r.lockstep.verdict for r in results[1:] if r is not None}  # type: ignore[misc]


async def test_points_sent_late_complete_the_pass_and_the_game_ends_clean() -> None:
    """The message first without its points, then again with them (as a relay and the direct copy may cross)."""
    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if _first_pass(rogue, frame):
            return [(0.0, {k: v for k, v in frame.items() if k != ATT}), (0.3, frame)]
        return [(0.0, frame)]

    rogue = make_rogue(0, policy, seed=41)
    results = await run_table_with_rogue("toy", 3, _bots(3), rogue, seed=41, timeout=3.0)
    assert "seq" in rogue.state, "the rogue sent no pass with points"
    for seat, verdict in _verdicts(results).items():
        assert verdict is not None and verdict.clean, (seat, verdict)


async def test_points_kept_back_never_convict_an_honest_seat() -> None:
    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if _first_pass(rogue, frame):
            return [(0.0, {k: v for k, v in frame.items() if k != ATT})]
        return [(0.0, frame)]

    rogue = make_rogue(0, policy, seed=42)
    results = await run_table_with_rogue("toy", 3, _bots(3), rogue, seed=42, timeout=2.0, resume_timeout=4.0)
    assert "seq" in rogue.state, "the rogue sent no pass with points"
    verdicts = _verdicts(results)
    assert verdicts[NEXT] is not None and verdicts[NEXT].culprit == 0 and verdicts[NEXT].code == "silent", verdicts
    for seat, verdict in verdicts.items():  # seat 2 was told by heartbeats that seat 1 waits for seat 0
        assert verdict is not None and verdict.culprit in (0, None), (seat, verdict)


async def test_points_that_are_not_the_digested_ones_name_the_sender_on_its_own_link() -> None:
    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if _first_pass(rogue, frame):
            points = frame[ATT]
            return [(0.0, {**frame, ATT: points[:-1] + bytes([points[-1] ^ 1])})]
        return [(0.0, frame)]

    rogue = make_rogue(0, policy, seed=43)
    results = await run_table_with_rogue("toy", 3, _bots(3), rogue, seed=43, timeout=2.0, resume_timeout=4.0)
    verdicts = _verdicts(results)
    nxt = results[NEXT]
    assert nxt is not None and nxt.lockstep.fault is not None
    assert nxt.lockstep.fault.culprit == 0 and nxt.lockstep.fault.code == "bad_message", nxt.lockstep.fault
    assert "not the points its digest names" in nxt.lockstep.fault.reason
    for seat, verdict in verdicts.items():
        assert verdict is not None and verdict.culprit in (0, None), (seat, verdict)


async def test_points_sent_to_every_seat_change_nothing() -> None:
    """Points a seat does not need are checked against the digest and dropped when the pass is taken."""
    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        points: dict[int, bytes] = rogue.state.setdefault("points", {})
        if ATT in frame:  # the copy for the next passer goes first (Lockstep.deliveries)
            points[frame["seq"]] = frame[ATT]
        elif frame.get("seq") in points and frame.get("kind") in ("shuffle", "lock"):
            return [(0.0, {**frame, ATT: points[frame["seq"]]})]  # the same points, to a seat that does not need them
        return [(0.0, frame)]

    rogue = make_rogue(0, policy, seed=44)
    results = await run_table_with_rogue("toy", 3, _bots(3), rogue, seed=44, timeout=3.0)
    assert any(to == 2 and ATT in frame for to, frame in rogue.log), "the rogue sent seat 2 no points"
    for seat, verdict in _verdicts(results).items():
        assert verdict is not None and verdict.clean, (seat, verdict)
    for r in results[1:]:
        assert r is not None and not [k for k in r.lockstep.attachments if k[0] == 0]  # none kept after the game
