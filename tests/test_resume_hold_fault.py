"""A fault found on receipt during the rejoin hold (rt7-stale).

Three seats. Seat 1 moves at tick A, the others answer, and seat 1 owes its next move when its machine dies; its log
lacks everything from its move at A on (a power cut; tests/log_cut.py). Resumed, it is at A and holds (REJOIN_HOLD)
until the others hand its lost messages back. Before they do, seat 0 (a cheater) sends it a frame that is no message:
seat 1 finds the fault on receipt and names seat 0 (bad message). Its abort is a message of its own: made then, in
the hold, it took the number of its lost move at A, which seats 0 and 2 hold -- and seat 2, honest, named honest
seat 1 ``equivocation``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from log_cut import LogCut

from p2php.engine.registry import get_game
from p2php.net.mesh import Frame, listen, listener_port
from p2php.session import runner as runner_module
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import PeerConfig, bot_decider, run_peer

N = 3


def _cfg(seat: int, tmp: Path, secrets: LocalSecrets, **kw: Any) -> PeerConfig:
    return PeerConfig("uno", {"rounds": 1, "crypto": "fast"}, N, seat, f"p{seat}", timeout=10.0,
                      resume_timeout=14.0, secrets=secrets, resume_path=tmp / f"seat{seat}.resume", linger=1.0, **kw)


def _bot(seat: int) -> Any:
    return bot_decider(get_game("uno").make_bot("random", f"{seat}"))


async def test_a_fault_found_in_the_hold_does_not_make_the_honest_seat_an_equivocator(
        tmp_path: Path, monkeypatch: Any) -> None:
    log = tmp_path / "seat1.resume"
    listeners = [await listen("127.0.0.1", 0) for _ in range(N)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(N)}
    results: dict[int, Any] = {}
    power = trio.CancelScope()
    marks: list[tuple[int, int]] = []  # (tick, records logged) where seat 1 awaited itself
    counter = LogCut()
    inject: list[bool] = []

    pump = runner_module._Runner._pump

    async def cheating_pump(self: Any, out: Any) -> None:
        if inject and self.ls.seat == 1:  # seat 0's first frame to the resumed seat 1: no message at all
            inject.clear()
            await out.send(Frame(0, {"kind": "junk"}))
        await pump(self, out)

    monkeypatch.setattr(runner_module._Runner, "_pump", cheating_pump)

    def observe(ls: Lockstep, _lines: Any) -> None:
        counter.watch(ls)
        if ls.tick >= 20 and ls.awaiting_me() and (not marks or marks[-1][0] != ls.tick):
            marks.append((ls.tick, counter.mark(ls)))
            if len(marks) == 2:  # a later point owed: the power goes
                power.cancel()

    async def seat(s: int) -> None:
        results[s] = await run_peer(_cfg(s, tmp_path, seeded_secrets(N, s)), addresses, listeners[s], _bot(s))

    async def seat_1() -> None:
        with power:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(N, 1)), addresses, listeners[1], _bot(1), observe)
        await listeners[1].aclose()
        assert len(marks) == 2
        counter.cut(log, marks[0][1])  # the log ends where seat 1 was to move at the first mark
        header, ls = restore(log)
        assert ls.awaiting_me() and ls.tick == marks[0][0]
        again = await listen("127.0.0.1", addresses[1][1])
        inject.append(True)
        results[1] = await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"])), addresses, again,
                                    _bot(1), restored=ls)
        await again.aclose()

    with trio.fail_after(150):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat, 0)
            nursery.start_soon(seat_1)
            nursery.start_soon(seat, 2)
    said = {s: (v.code, v.culprit, v.reason[:70]) if (v := results[s].lockstep.verdict) else None for s in range(N)}
    print("marks:", marks)
    print("verdicts:", said)
    assert said[2] is not None and said[2][1] != 1, said  # honest seat 2 never names honest seat 1
    assert all(v is not None and v[1] != 1 for v in said.values()), said
