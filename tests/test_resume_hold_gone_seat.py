"""The rejoin hold and a seat that is away (review rv6-hold).

Seats 0 and 1 lose power together (a shared room); seat 1 comes back from a complete log at once, at a point where it
owes the move seat 2 waits for; seat 0 does not come back within the test. Nothing of seat 1's is lost: no seat holds
a message of its that its log lacks. Seat 2 linked, synced, says so at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from log_cut import LogCut

from p2php.engine.registry import get_game
from p2php.net.mesh import listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import PeerConfig, bot_decider, run_peer, slowed

TIMEOUT = 10.0
THINK = 4.0
"""Seconds the person at resumed seat 1 thinks: well within its ``TIMEOUT``."""


def _cfg(seat: int, tmp: Path, secrets: LocalSecrets, **kw: Any) -> PeerConfig:
    return PeerConfig("uno", {"rounds": 1, "crypto": "fast"}, 3, seat, f"p{seat}", timeout=TIMEOUT,
                      resume_timeout=14.0, secrets=secrets, resume_path=tmp / f"seat{seat}.resume", linger=1.0, **kw)


def _bot(seat: int) -> Any:
    return bot_decider(get_game("uno").make_bot("random", f"{seat}"))


async def _play(tmp_path: Path, think: float) -> None:
    log = tmp_path / "seat1.resume"
    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    results: dict[int, Any] = {}
    power = [trio.CancelScope(), trio.CancelScope()]  # seats 0 and 1 together
    snap: list[int] = []
    counter = LogCut()

    def observe(ls: Lockstep, _lines: Any) -> None:
        counter.watch(ls)
        if ls.tick >= 20 and ls.awaiting_me() and not snap:
            snap.append(counter.mark(ls))
            power[0].cancel()
            power[1].cancel()

    async def seat_0() -> None:
        with power[0]:
            await run_peer(_cfg(0, tmp_path, seeded_secrets(2, 0)), addresses, listeners[0], _bot(0))
        await listeners[0].aclose()  # away for good

    async def seat_1() -> None:
        with power[1]:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(2, 1)), addresses, listeners[1], _bot(1), observe)
        await listeners[1].aclose()
        assert snap
        counter.cut(log, snap[0])
        header, ls = restore(log)
        assert ls.awaiting_me()
        again = await listen("127.0.0.1", addresses[1][1])
        results[1] = await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"])), addresses, again,
                                    slowed(_bot(1), think), restored=ls)
        await again.aclose()

    async def seat_2() -> None:
        results[2] = await run_peer(_cfg(2, tmp_path, seeded_secrets(2, 2)), addresses, listeners[2], _bot(2))

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat_0)
            nursery.start_soon(seat_1)
            nursery.start_soon(seat_2)
    said = {s: (v.code, v.culprit, v.reason[:70]) if (v := results[s].lockstep.verdict) else None for s in (1, 2)}
    assert all(v is not None and v[1] != 1 for v in said.values()), said  # the away seat 0 is named, never seat 1


async def test_a_seat_away_does_not_eat_the_resumed_seats_move_time(tmp_path: Path) -> None:
    """The person at seat 1 thinks 4 s: before, it was asked only after the hold, which ran its whole 5 s for away
    seat 0's sync after the formation's 2.5 s, and seat 2 named seat 1 ``silent``."""
    await _play(tmp_path, THINK)


async def test_a_slow_new_log_does_not_lengthen_the_hold(tmp_path: Path, monkeypatch: Any) -> None:
    """Seat 1's new log takes 3 s to reach its disk (its ``fsync``, as tests/test_resume_slow_disk.py). Before, the
    hold counted from then, not from the mesh's forming: seat 2 got the move 10.5 s after seat 1's link came back and
    named it ``silent`` (its ``timeout`` 10 s)."""
    from p2php.session import runner as runner_mod

    run = runner_mod._Runner.run

    async def slow_run(self: Any, listener: Any, rejoining: bool) -> None:
        if rejoining:  # its new log made durable, in its own process (here one event loop runs every seat)
            await trio.sleep(3.0)
        await run(self, listener, rejoining)

    monkeypatch.setattr(runner_mod._Runner, "run", slow_run)
    await _play(tmp_path, 0.0)
