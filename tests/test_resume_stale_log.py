"""A seat resumed from a log that lacks messages it sent (red-team rt4-faults): a disk that went read-only (the
log could be neither written nor set aside) or that said it had written what it had not."""

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
from p2php.session.runner import PeerConfig, bot_decider, run_peer


def _cfg(seat: int, tmp: Path, secrets: LocalSecrets) -> PeerConfig:
    return PeerConfig("uno", {"rounds": 1, "crypto": "fast"}, 3, seat, f"p{seat}", timeout=10.0, resume_timeout=20.0,
                      secrets=secrets, resume_path=tmp / f"seat{seat}.resume", linger=2.0)


def _bot(seat: int, salt: str = "") -> Any:
    return bot_decider(get_game("uno").make_bot("random", f"{seat}{salt}"))


async def _play_with_a_stale_log(tmp_path: Path) -> dict[int, Any]:
    """Seat 1's log is as it was when seat 1 was about to act at step 40 or later; seat 1 then played on to step 45
    and its machine restarted; it resumes from that log (a new bot seed, as ``p2php resume`` gives). The results.
    (Secrets seeded 5 since v10: v10's seed-1 game had seat 1 send nothing of step 45 before its crash.)"""
    log = tmp_path / "seat1.resume"
    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    results: dict[int, Any] = {}
    crash = trio.CancelScope()
    stale: list[int] = []  # the log as it stood when seat 1 was about to act at step 40 or later
    counter = LogCut()

    def observe(ls: Lockstep, _lines: Any) -> None:
        counter.watch(ls)
        if ls.tick >= 40 and ls.awaiting_me() and not stale:
            stale.append(counter.mark(ls))  # what the disk still holds: not the move about to be made
        if ls.tick >= 45 and not crash.cancel_called:
            crash.cancel()

    async def play(seat: int) -> None:
        results[seat] = await run_peer(_cfg(seat, tmp_path, seeded_secrets(5, seat)), addresses, listeners[seat],
                                       _bot(seat))

    async def seat_1() -> None:
        with crash:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(5, 1)), addresses, listeners[1], _bot(1), observe)
        await listeners[1].aclose()
        assert stale and crash.cancel_called
        counter.cut(log, stale[0])
        header, ls = restore(log)
        assert ls.awaiting_me()  # the log ends where seat 1 was to act: it did, but the log does not say so
        resumed.append(True)
        again = await listen("127.0.0.1", addresses[1][1])
        results[1] = await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"])), addresses, again,
                                    _bot(1, "again"), restored=ls)
        await again.aclose()

    resumed.clear()
    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, 0)
            nursery.start_soon(seat_1)
            nursery.start_soon(play, 2)
    return results


resumed: list[bool] = []
"""Set once seat 1 resumes (for a test that changes how the others answer it)."""


async def test_a_seat_resumed_from_a_log_that_lacks_its_last_moves_takes_them_back_and_is_not_an_equivocator(
        tmp_path: Path) -> None:
    """Resumed, seat 1 waits until the others have handed its own later messages back (their ``sync`` says they
    hold them) before it makes one. Before, it chose anew at once, and every seat — its own included — convicted
    it of equivocation. (Its message of step 45 may reach one seat only as it dies: see the test below.)"""
    results = await _play_with_a_stale_log(tmp_path)
    verdicts = [results[s].lockstep.verdict for s in range(3)]
    assert all(v is not None and v.clean for v in verdicts), verdicts


async def test_one_early_sync_that_says_less_does_not_end_the_hold(tmp_path: Path, monkeypatch: Any) -> None:
    """Seat 2 (a cheater, or a seat that never got seat 1's last move) answers seat 1's rejoin at once with a sync
    that says it holds none of seat 1's messages, and relays nothing; honest seat 0 answers 1 s later (a slower
    link; the hold is 2.5 s here). Before, that first sync ended the hold: seat 1 chose anew and seat 0, which held
    the move seat 1 had made, named it equivocation (review of the rejoin hold)."""
    from p2php.session import runner as runner_mod

    orig_sync, orig_answer = runner_mod._Runner._sync, runner_mod._Runner._answer_sync

    async def sync(self: Any, seat: int) -> None:
        if resumed and seat == 1 and self.ls.seat == 2:  # "I hold none of seat 1's"
            self.asked.add(seat)
            await self.mesh.send(seat, {"sync": [[s, -1 if s == 1 else self.ls.sync_seq(s)] for s in range(3)]})
            return
        if resumed and seat == 1 and self.ls.seat == 0:
            await trio.sleep(1.0)
        await orig_sync(self, seat)

    async def answer(self: Any, seat: int, have: Any) -> None:
        if resumed and seat == 1 and self.ls.seat == 2:
            self.synced.add(seat)  # relays nothing back
            return
        if resumed and seat == 1 and self.ls.seat == 0:
            await trio.sleep(1.0)
        await orig_answer(self, seat, have)

    monkeypatch.setattr(runner_mod._Runner, "_sync", sync)
    monkeypatch.setattr(runner_mod._Runner, "_answer_sync", answer)
    results = await _play_with_a_stale_log(tmp_path)
    v0 = results[0].lockstep.verdict
    assert v0 is not None and v0.culprit != 1, v0


def test_a_log_that_cannot_be_set_aside_is_not_said_to_be(tmp_path: Path, monkeypatch: Any, caplog: Any) -> None:
    """A file system gone read-only: neither the rename to ``.incomplete`` nor the unlink can run. Before, the
    warning still said the log had been moved there, while the stale log stayed where ``p2php resume`` reads it."""
    import errno
    import os
    from types import SimpleNamespace

    from p2php.session.resume import ResumeWriter

    path = tmp_path / "seat1.resume"
    path.write_bytes(b"a log")

    def read_only(*_args: Any, **_kw: Any) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "replace", read_only)
    monkeypatch.setattr(Path, "unlink", read_only)
    writer = ResumeWriter.__new__(ResumeWriter)
    writer.path, writer.ls, writer.file = path, SimpleNamespace(record=None), None  # type: ignore[assignment]
    writer._give_up(OSError(errno.EROFS, "Read-only file system"))
    said = [r.getMessage() for r in caplog.records if "resume log" in r.getMessage()]
    assert path.exists() and len(said) == 1
    assert ".incomplete" not in said[0] and "do not resume from it" in said[0], said


async def test_our_last_message_handed_back_by_one_seat_is_relayed_to_the_seat_that_lacks_it(
        tmp_path: Path, monkeypatch: Any) -> None:
    """Seat 1 dies (a power cut) in the middle of a broadcast: its messages of step 45 reached seat 0, not seat 2,
    and its log lacks them. Resumed, it answers seat 2's sync (which says it lacks them) before seat 0 hands them
    back (seat 0 answers 1 s later). Before, nobody relayed them to seat 2 (its link to seat 0 never dropped): seat 2
    waited for seat 1's keys and named the honest seat silent ('no keys message in time'), 1 run in 3 of the test
    above (the order of seat 1's writes as it died)."""
    from p2php.net.mesh import Mesh
    from p2php.session import runner as runner_mod

    orig_broadcast, orig_answer, orig_accept = Mesh.broadcast, runner_mod._Runner._answer_sync, Lockstep._accept
    withheld: list[int] = []
    at_seat_0 = trio.Event()

    async def broadcast(self: Any, frame: dict[str, Any], seats: list[int] | None = None) -> None:
        at = frame.get("at")
        if self.seat == 1 and not resumed and frame.get("from") == 1 and isinstance(at, list) and at[0] >= 45:
            withheld.append(frame["seq"])  # sent to seat 0 only: the machine dies before the write to seat 2
            await orig_broadcast(self, frame, [s for s in (self.seats if seats is None else seats) if s != 2])
            await at_seat_0.wait()  # (then seat 1's observer crashes it)
            return
        await orig_broadcast(self, frame, seats)

    def accept(self: Any, msg: Any) -> None:
        orig_accept(self, msg)
        if self.seat == 0 and msg.sender == 1 and withheld and msg.seq >= withheld[0]:
            at_seat_0.set()

    async def answer(self: Any, seat: int, have: Any) -> None:
        if resumed and seat == 1 and self.ls.seat == 0:
            await trio.sleep(1.0)
        await orig_answer(self, seat, have)

    monkeypatch.setattr(Mesh, "broadcast", broadcast)
    monkeypatch.setattr(Lockstep, "_accept", accept)
    monkeypatch.setattr(runner_mod._Runner, "_answer_sync", answer)
    results = await _play_with_a_stale_log(tmp_path)
    assert withheld  # seat 1 made a message at step 45 that seat 2 never got from it
    verdicts = [results[s].lockstep.verdict for s in range(3)]
    assert all(v is not None and v.clean for v in verdicts), verdicts
