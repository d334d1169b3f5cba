"""The delayed loopback network (internet latency in user space) and a whole game played over it."""

from __future__ import annotations

import time

import pytest
import trio

from p2php.engine.contract import Decide
from p2php.engine.registry import get_game
from p2php.session.local_net import run_local_table
from p2php.session.runner import bot_decider
from p2php.testing.delay import LinkDelay, delayed_loopback


async def _link(delay: float, jitter: float = 0.0) -> tuple[float, list[bytes]]:
    """Send three chunks and an end over one delayed link; the first arrival's delay and what arrived."""
    async with delayed_loopback(delay, jitter, seed=3) as net:
        listener = await net.open_listener()
        host, port = net.address_of(listener)
        client = await net.dial(host, port)
        server = await listener.accept()
        sent = time.perf_counter()
        for chunk in (b"one ", b"two ", b"three"):
            await client.send_all(chunk)
        await client.send_eof()
        assert time.perf_counter() - sent < delay / 2  # the sender is not held up by the delay
        got: list[bytes] = []
        first = 0.0
        while data := await server.receive_some(1024):
            first = first or time.perf_counter() - sent
            got.append(bytes(data))
        await client.aclose()
        await server.aclose()
        await listener.aclose()
    return first, got


async def test_a_delayed_link_delivers_late_in_order_and_then_its_end() -> None:
    first, got = await _link(0.2, jitter=0.05)
    assert first >= 0.2
    assert b"".join(got) == b"one two three"  # jitter never reorders: a chunk waits for the one before it


async def test_the_other_direction_is_delayed_too() -> None:
    async with delayed_loopback(0.15) as net:
        listener = await net.open_listener()
        client = await net.dial(*net.address_of(listener))
        server = await listener.accept()
        sent = time.perf_counter()
        await server.send_all(b"pong")
        assert await client.receive_some(16) == b"pong"
        assert time.perf_counter() - sent >= 0.15
        for s in (client, server, listener):
            await s.aclose()


def test_a_negative_delay_is_refused() -> None:
    with pytest.raises(ValueError, match="delay >= 0"):
        LinkDelay(-0.01)


@pytest.mark.crypto("fast")
async def test_a_whole_game_over_links_of_40_ms_one_way_ends_clean() -> None:
    game = get_game("uno")
    deciders = [bot_decider(game.make_bot("heuristic", f"5/{s}")) for s in range(3)]
    started = trio.current_time()
    async with delayed_loopback(0.04, jitter=0.01, seed=5) as net:
        results = await run_local_table("uno", 3, deciders, {"rounds": 1, "crypto": "fast"}, seed=5,
                                        network=net, timeout=30)
    verdicts = [r.lockstep.verdict for r in results]
    assert len(results) == 3 and all(v is not None and v.clean for v in verdicts)
    assert len({v.state_hash for v in verdicts if v is not None}) == 1
    decisions = sum(1 for e in results[0].lockstep.events if isinstance(e.step, Decide))
    assert trio.current_time() - started >= 0.04 * decisions  # every decision crossed at least one delayed link
