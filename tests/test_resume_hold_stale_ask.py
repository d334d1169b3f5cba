"""A decision asked during the rejoin hold for a point the seat had already answered (rv6-faults).

Two seats. Seat 1 moves at tick A, seat 0 answers, and seat 1 owes its next move when its machine dies; its log lacks
everything from its move at A on (a power cut; tests/log_cut.py). Resumed, it is at A, awaiting itself: the hold
starts, and the player is asked at once -- about A, which seat 0 hands back within a fraction of a second. The
player (a bot slowed to THINK s, well within TIMEOUT) answers A after THINK s; that answer is dropped and it is asked
again, about the point actually owed: 2 x THINK after the link came back."""

from __future__ import annotations

import contextlib
import io
import os
import time
from pathlib import Path
from typing import Any

import trio
from log_cut import LogCut

from p2php.api import NotYourTurn, Peer
from p2php.engine.registry import get_game
from p2php.net.mesh import listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import LeaveTable, PeerConfig, bot_decider, run_peer, slowed
from p2php.terminal import TerminalUI

TIMEOUT = 10.0
THINK = 6.0
"""Seconds the player at resumed seat 1 takes for a move: well within its ``TIMEOUT``."""


def _cfg(seat: int, tmp: Path, secrets: LocalSecrets, **kw: Any) -> PeerConfig:
    return PeerConfig("uno", {"rounds": 1, "crypto": "fast"}, 2, seat, f"p{seat}", timeout=TIMEOUT,
                      resume_timeout=14.0, secrets=secrets, resume_path=tmp / f"seat{seat}.resume", linger=1.0, **kw)


def _bot(seat: int) -> Any:
    return bot_decider(get_game("uno").make_bot("random", f"{seat}"))


async def test_a_stale_ask_in_the_hold_does_not_eat_the_owed_moves_time(tmp_path: Path) -> None:
    await _play(tmp_path, leave=False)


async def test_a_person_asked_the_withdrawn_question_answers_the_owed_one(tmp_path: Path) -> None:
    """A person at a terminal (TerminalUI, its lines from a pipe): the question about A is withdrawn while they think,
    and the line they type once asked about the owed point answers it. Before read_line's shared reader (rt7-stale)
    the withdrawn question's reading thread, still in ``input()``, took that line and lost it; the owed question
    waited for another, and the person was named silent."""
    await _play(tmp_path, leave=False, person=True)


async def test_an_app_asked_the_withdrawn_question_answers_the_owed_one(tmp_path: Path) -> None:
    """An app on the Peer API (a YourTurn answered after half a second): the withdrawn YourTurn takes no answer."""
    await _play(tmp_path, leave=False, api=True)


async def _play(tmp_path: Path, leave: bool, person: bool = False, api: bool = False) -> dict[int, Any]:
    log = tmp_path / "seat1.resume"
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    results: dict[int, Any] = {}
    power = trio.CancelScope()
    marks: list[tuple[int, int]] = []  # (tick, records logged) where seat 1 awaited itself
    counter = LogCut()
    asked: list[tuple[float, int, int]] = []

    def observe(ls: Lockstep, _lines: Any) -> None:
        counter.watch(ls)
        if ls.tick >= 20 and ls.awaiting_me() and (not marks or marks[-1][0] != ls.tick):
            marks.append((ls.tick, counter.mark(ls)))
            if len(marks) == 2:  # a later point owed: the power goes
                power.cancel()

    async def seat_0() -> None:
        results[0] = await run_peer(_cfg(0, tmp_path, seeded_secrets(2, 0)), addresses, listeners[0], _bot(0))

    async def seat_1() -> None:
        with power:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(2, 1)), addresses, listeners[1], _bot(1), observe)
        await listeners[1].aclose()
        assert len(marks) == 2
        counter.cut(log, marks[0][1])  # the log ends where seat 1 was to move at the first mark
        header, ls = restore(log)
        assert ls.awaiting_me() and ls.tick == marks[0][0]
        again = await listen("127.0.0.1", addresses[1][1])
        inner, fast = slowed(_bot(1), THINK), _bot(1)
        t0 = time.monotonic()
        if person:
            typed, keys = os.pipe()
            lines, keyboard = os.fdopen(typed, "r"), os.fdopen(keys, "w")

            def ask(_prompt: str) -> str:
                line = lines.readline()
                if not line:
                    raise EOFError
                return str(line.rstrip("\n"))

            ui = TerminalUI(out=io.StringIO(), ask=ask, lang="en", colour=False, tty=False)

            async def person_at_keyboard() -> None:  # types "1" once a question has been open for half a second
                answered = -1
                while True:
                    await trio.sleep(0.05)
                    if not ui.asking or answered == len(asked):
                        continue
                    seen = len(asked)
                    await trio.sleep(0.5)
                    if ui.asking and len(asked) == seen:
                        keyboard.write("1\n")
                        keyboard.flush()
                        answered = seen

        peer = Peer()

        async def embedder() -> None:  # an app on the Peer API: answers a YourTurn open for half a second
            while True:
                await trio.sleep(0.05)
                if not peer.is_my_turn():
                    continue
                seen = len(asked)
                await trio.sleep(0.5)
                if peer.is_my_turn() and len(asked) == seen:
                    with contextlib.suppress(NotYourTurn):
                        await peer.submit(0)

        async def decide(ls: Lockstep) -> Any:
            asked.append((time.monotonic() - t0, ls.tick, ls.phase))
            if leave:
                raise LeaveTable()
            if api:
                return await peer._decide(ls)
            if person:
                return await ui.decide(ls)
            return await (inner if len(asked) <= 2 else fast)(ls)  # (the moves after it: at once)

        async with trio.open_nursery() as typing:
            if person:
                typing.start_soon(person_at_keyboard)
            if api:
                typing.start_soon(embedder)
            results[1] = await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"])), addresses, again,
                                        decide, restored=ls)
            typing.cancel_scope.cancel()
        await again.aclose()

    with trio.fail_after(150):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat_0)
            nursery.start_soon(seat_1)
    said = {s: (v.code, v.culprit, v.reason[:70]) if (v := results[s].lockstep.verdict) else None for s in (0, 1)}
    print("asked (s after restart, tick, phase):", [(round(t, 2), k, p) for t, k, p in asked[:4]], "marks:", marks)
    print("verdicts:", said)
    if not leave:
        assert all(v is not None and v[1] != 1 for v in said.values()), said  # seat 1 honest: never named
    return said


async def test_a_player_who_leaves_in_the_hold_is_not_named_an_equivocator(tmp_path: Path) -> None:
    """The person at seat 1 leaves (LeaveTable) as soon as it is asked, in the hold, before seat 0's sync has handed
    its move at A back: it must be named ``left``, never ``equivocation``."""
    said = await _play(tmp_path, leave=True)
    assert all(v is not None and v[0] == "left" for v in said.values()), said
