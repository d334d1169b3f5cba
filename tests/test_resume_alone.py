"""A restored seat whose every other seat is away too (chaos soak, TCG 2 seats, seeds 20007 and 20014).

Both seats of a 2-seat table lose power mid-game; seat 1 comes back from its log, seat 0 never does. Seat 1 must end
as a seat never restarted does when the other goes for good: after ``resume_timeout``, a verdict that names nobody
(``could not reach seat 0``) and its transcript. Before, its formation found no link and raised ``MeshError``: no
verdict, no transcript (``p2php resume`` exit 3)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import trio

from p2php.engine.registry import get_game
from p2php.net.mesh import MeshError, listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import PeerConfig, bot_decider, run_peer
from p2php.session.transcript import verify


def _cfg(seat: int, tmp: Path, secrets: LocalSecrets, **kw: Any) -> PeerConfig:
    return PeerConfig("uno", {"rounds": 1, "crypto": "fast"}, 2, seat, f"p{seat}", timeout=5.0, resume_timeout=3.0,
                      connect_timeout=3.0, secrets=secrets, resume_path=tmp / f"seat{seat}.resume", linger=1.0, **kw)


def _bot(seat: int) -> Any:
    return bot_decider(get_game("uno").make_bot("random", f"{seat}"))


async def test_a_restored_seat_that_finds_nobody_ends_with_a_verdict_and_its_record(tmp_path: Path) -> None:
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    power = trio.CancelScope()  # both seats together

    def observe(ls: Lockstep, _lines: Any) -> None:
        if ls.tick >= 6:
            power.cancel()

    async def seat(s: int) -> None:
        await run_peer(_cfg(s, tmp_path, seeded_secrets(3, s)), addresses, listeners[s], _bot(s),
                       observe if s == 1 else None)

    with trio.fail_after(60):
        with power:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(seat, 0)
                nursery.start_soon(seat, 1)
        for listener in listeners:
            await listener.aclose()  # seat 0 away for good
        header, ls = restore(tmp_path / "seat1.resume")
        assert not ls.finished
        again = await listen("127.0.0.1", addresses[1][1])
        record = tmp_path / "seat1.p2php"
        result = await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"]), transcript_path=record),
                                addresses, again, _bot(1), restored=ls)
        await again.aclose()
    verdict = result.lockstep.verdict
    assert verdict is not None and verdict.culprit is None and "could not reach seat 0" in verdict.reason, verdict
    check = verify(record)
    assert [ln for ln in check.lines if ln.startswith("audit: ")][-1].startswith("audit: unattributed"), check.lines


async def test_a_restored_seat_whose_peer_answers_for_another_table_fails_at_once(tmp_path: Path) -> None:
    """The log of another table (the user resumed the wrong file): what answers at seat 0's address presents a hello
    that is not the log's seat 0. The formation fails, saying so, at its deadline, as it did before a lone restored
    seat played on: waiting alone it ended only after ``resume_timeout``, as ``could not reach seat 0`` (a network
    fault), with the log closed on that verdict."""
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    power = trio.CancelScope()

    def observe(ls: Lockstep, _lines: Any) -> None:
        if ls.tick >= 6:
            power.cancel()

    async def seat(s: int) -> None:
        await run_peer(_cfg(s, tmp_path, seeded_secrets(3, s)), addresses, listeners[s], _bot(s),
                       observe if s == 1 else None)

    async def other_table() -> None:  # a new table's seat 0 at the old seat 0's address
        with contextlib.suppress(MeshError):  # (no seat 1 of its own comes)
            await run_peer(_cfg(0, tmp_path / "b", seeded_secrets(4, 0)), addresses, listeners[0], _bot(0))

    (tmp_path / "b").mkdir()
    with trio.fail_after(60):
        with power:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(seat, 0)
                nursery.start_soon(seat, 1)
        for listener in listeners:
            await listener.aclose()
        header, ls = restore(tmp_path / "seat1.resume")
        listeners[0] = await listen("127.0.0.1", addresses[0][1])
        again = await listen("127.0.0.1", addresses[1][1])
        start = trio.current_time()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(other_table)
            with pytest.raises(MeshError, match="different hello"):
                await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"])), addresses, again, _bot(1),
                               restored=ls)
        await again.aclose()
        await listeners[0].aclose()
    assert trio.current_time() - start < 3.0 + 2.5  # connect_timeout, not resume_timeout after it
    assert not restore(tmp_path / "seat1.resume")[1].finished  # the log is left as it was: resume it again
