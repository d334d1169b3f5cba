"""Real peers over the in-memory network (p2php.testing.network) with trio's autojump clock.

The whole protocol runs (mesh handshake with link tags, lockstep, deadlines, audit), but
timeouts pass in virtual time: a 60-second deadline costs nothing and does not depend on how
loaded the machine is.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import trio

from p2php.engine.registry import get_game
from p2php.session.runner import Decider, bot_decider
from p2php.testing.network import MemoryNetwork, run_memory_table


def bots(game: str, n: int, seed: int = 1) -> list[Decider]:
    g = get_game(game)
    return [bot_decider(g.make_bot("random", f"{seed}/{s}")) for s in range(n)]


async def test_a_whole_game_over_the_memory_network_is_clean_and_agrees(autojump_clock: Any) -> None:
    results = await run_memory_table("toy", 3, bots("toy", 3), seed=4)
    verdicts = [r.lockstep.verdict for r in results]
    assert len(results) == 3 and all(v is not None and v.clean for v in verdicts), verdicts
    assert len({v.state_hash for v in verdicts if v is not None}) == 1


@pytest.mark.parametrize("crypto", ["fast", "verified"])
async def test_a_seat_that_never_answers_is_named_silent_in_virtual_time(autojump_clock: Any, crypto: str) -> None:
    deciders = bots("uno", 3)

    async def mute(ls: Any) -> Any:
        await trio.sleep_forever()

    deciders[1] = mute
    wall, virtual = time.monotonic(), trio.current_time()
    results = await run_memory_table("uno", 3, deciders, {"rounds": 1, "crypto": crypto}, seed=5, timeout=60.0)
    assert trio.current_time() - virtual >= 60.0  # the deadline really passed ...
    assert time.monotonic() - wall < 30.0  # ... without waiting for it
    for r in results:
        if r.lockstep.seat != 1:
            v = r.lockstep.verdict
            assert v is not None and v.culprit == 1 and v.code == "silent", v


async def test_a_slow_decision_gets_the_slow_seat_named_and_nobody_hangs(autojump_clock: Any) -> None:
    """One peer's decision outlasts the others' timeout: they name it, and it learns so too."""
    deciders = bots("uno", 2)
    fast, slept = deciders[0], []

    async def slow(ls: Any) -> Any:
        if not slept:
            slept.append(1)
            await trio.sleep(30)
        return await fast(ls)

    deciders[0] = slow
    results = await run_memory_table("uno", 2, deciders, {"rounds": 1}, timeout=10.0)
    for r in results:
        assert r.lockstep.verdict is not None and r.lockstep.verdict.culprit == 0, r.lockstep.verdict


async def test_dialing_an_address_nobody_listens_at_is_refused() -> None:
    network = MemoryNetwork()
    listener = network.listen()
    try:
        await network.dial("memory", listener.port + 1)
    except ConnectionRefusedError:
        pass
    else:
        raise AssertionError("a dial to nowhere connected")
    await listener.aclose()
    try:
        await network.dial("memory", listener.port)
    except ConnectionRefusedError:
        pass
    else:
        raise AssertionError("a dial to a closed listener connected")


@pytest.mark.parametrize("crypto", ["fast", "verified"])
async def test_a_player_who_leaves_is_named_at_once_and_the_record_kept(autojump_clock: Any, crypto: str,
                                                                       tmp_path: Any) -> None:
    """A leaving player's peer sends a signed leave: the others end at once (no deadline passes), name it ``left``
    (not a cheat), agree on the state and keep a transcript that verifies."""
    from p2php.session import transcript
    from p2php.session.runner import LeaveTable

    deciders = bots("uno", 3)
    honest, asked = deciders[2], []

    async def leaves(ls: Any) -> Any:
        asked.append(ls.tick)
        if len(asked) == 3:
            raise LeaveTable()
        return await honest(ls)

    deciders[2] = leaves
    start = trio.current_time()
    results = await run_memory_table("uno", 3, deciders, {"rounds": 1, "crypto": crypto}, seed=6, timeout=60.0,
                                     resume_timeout=300.0)
    assert trio.current_time() - start < 30.0  # neither the 60 s decision deadline nor the 300 s resume wait
    assert results[2].left and not results[0].left
    for r in results:
        v = r.lockstep.verdict
        assert v is not None and not v.clean and v.culprit == 2 and v.code == "left", v
        assert "left the table" in v.reason
    assert len({r.lockstep.verdict.state_hash for r in results if r.lockstep.verdict}) == 1
    check = transcript.verify(transcript.save(results[0].lockstep, tmp_path / "seat0.p2php"))
    assert "left the table" in " ".join(check.lines)
