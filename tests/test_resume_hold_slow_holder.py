"""The rejoin hold waits for a seat that holds our lost messages even when its link is slow to come back
(red-team rt6-hold).

Seat 1's last message reached seat 0 only (its process, and machine, died between the two sends; the log lacks the
message: a power cut). Resumed, seat 1 links to seat 2 at once, but its dial to seat 0 takes longer than the
formation's ``timeout / 4`` (a slow route), so its mesh forms without seat 0, whose link then starts down. Before,
the hold counted only the seats linked at that moment: seat 2's ``sync`` (it never got the message) ended it, seat 1
made its move anew, and seat 0, which held the first version, named honest seat 1 ``equivocation``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from log_cut import LogCut

from p2php.engine.registry import get_game
from p2php.net.mesh import Mesh, listen, listener_port
from p2php.net.transport import tcp_dial
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import PeerConfig, bot_decider, run_peer

TIMEOUT = 10.0
SLOW_DIAL = 3.5
"""Seconds each dial of the resumed seat 1 to seat 0 takes: more than the formation's ``TIMEOUT / 4`` after the first
link, less than the hold (``TIMEOUT / 2`` after the formation)."""


def _cfg(seat: int, tmp: Path, secrets: LocalSecrets, **kw: Any) -> PeerConfig:
    return PeerConfig("uno", {"rounds": 1, "crypto": "fast"}, 3, seat, f"p{seat}", timeout=TIMEOUT,
                      resume_timeout=20.0, secrets=secrets, resume_path=tmp / f"seat{seat}.resume", linger=2.0, **kw)


def _bot(seat: int, salt: str = "") -> Any:
    return bot_decider(get_game("uno").make_bot("random", f"{seat}{salt}"))


async def _play(tmp_path: Path, monkeypatch: Any, slow_dial: float) -> tuple[dict[int, Any], dict[str, Any]]:
    log = tmp_path / "seat1.resume"
    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    results: dict[int, Any] = {}
    crash = trio.CancelScope()
    stale: list[int] = []
    counter = LogCut()
    cut: dict[str, Any] = {"armed": False, "message": None}

    orig_broadcast = Mesh.broadcast

    async def broadcast(self: Mesh, frame: dict[str, Any], seats: list[int] | None = None) -> None:
        if (self.seat == 1 and cut["armed"] and cut["message"] is None and isinstance(frame, dict)
                and frame.get("from") == 1 and "kind" in frame):
            cut["message"] = (frame["seq"], frame["kind"])
            await orig_broadcast(self, frame, [0])  # it reaches seat 0 only: then the power goes
            await trio.sleep(0.5)
            crash.cancel()
            await trio.sleep_forever()
        await orig_broadcast(self, frame, seats)

    monkeypatch.setattr(Mesh, "broadcast", broadcast)

    def observe(ls: Lockstep, _lines: Any) -> None:
        counter.watch(ls)
        if ls.tick >= 30 and ls.awaiting_me() and len(ls.legal_actions()) > 1 and not stale:
            stale.append(counter.mark(ls))  # what the disk will hold: not the message about to be made
            cut["armed"] = True

    async def slow_to_seat_0(host: str, port: int) -> trio.abc.HalfCloseableStream:
        if port == addresses[0][1]:
            await trio.sleep(slow_dial)
        return await tcp_dial(host, port)

    first = _bot(1)

    async def decide_first(ls: Lockstep) -> Any:
        action = await first(ls)
        if cut["armed"] and "action" not in cut:
            cut["action"] = action  # the move that reaches seat 0 only
        return action

    async def decide_again(ls: Lockstep) -> Any:
        """A person thinks again after the restart: another legal move at the point it had answered."""
        other = [a for a in ls.legal_actions() if a != cut.get("action")]
        return other[0] if other else ls.legal_actions()[0]

    async def play(seat: int) -> None:
        results[seat] = await run_peer(_cfg(seat, tmp_path, seeded_secrets(1, seat)), addresses, listeners[seat],
                                       _bot(seat))

    async def seat_1() -> None:
        with crash:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(1, 1)), addresses, listeners[1], decide_first, observe)
        await listeners[1].aclose()
        assert stale and cut["message"] is not None
        counter.cut(log, stale[0])
        header, ls = restore(log)
        assert ls.awaiting_me()  # the log ends where seat 1 was to send: it did (to seat 0), the log does not say so
        again = await listen("127.0.0.1", addresses[1][1])
        results[1] = await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"]), connect=slow_to_seat_0),
                                    addresses, again, decide_again, restored=ls)
        await again.aclose()

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, 0)
            nursery.start_soon(seat_1)
            nursery.start_soon(play, 2)
    return results, cut


def _check(results: dict[int, Any], cut: dict[str, Any]) -> None:
    verdicts = {s: results[s].lockstep.verdict for s in range(3)}
    said = {s: None if v is None else (v.code, v.culprit, v.reason[:60]) for s, v in verdicts.items()}
    assert all(v is not None and v.culprit != 1 for v in verdicts.values()), (cut["message"], said)
    assert all(v is not None and v.clean for v in verdicts.values()), (cut["message"], said)


async def test_the_hold_waits_for_a_slow_seat_that_holds_our_lost_message(tmp_path: Path, monkeypatch: Any) -> None:
    """Seat 0's link comes back after the formation's wait: the hold waits for its sync all the same (before: seat 0
    named seat 1 ``equivocation``)."""
    results, cut = await _play(tmp_path, monkeypatch, SLOW_DIAL)
    _check(results, cut)


async def test_our_message_handed_back_goes_on_to_the_seat_that_missed_it(tmp_path: Path, monkeypatch: Any) -> None:
    """Every link comes back at once: seat 0 hands seat 1's lost message back, and seat 1 relays it on to seat 2,
    whose sync it had answered before it held it (before: seat 2 waited for it in vain and named seat 1
    ``silent``)."""
    results, cut = await _play(tmp_path, monkeypatch, 0.0)
    _check(results, cut)
