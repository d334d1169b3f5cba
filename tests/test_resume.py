"""Peers that lose their link or their process come back; absent ones are named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from p2php.engine.registry import get_game
from p2php.net.mesh import listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import PeerConfig, PeerResult, bot_decider, run_peer

GAME = "uno"
OPTIONS = {"rounds": 1, "deck": "magic"}


def _cfg(seat: int, tmp: Path, secrets: LocalSecrets, **kw: object) -> PeerConfig:
    options = kw.pop("options", OPTIONS)
    return PeerConfig(GAME, options, 3, seat, f"p{seat}", timeout=kw.pop("timeout", 5.0),  # type: ignore[arg-type]
                      resume_timeout=kw.pop("resume_timeout", 20.0), secrets=secrets,  # type: ignore[arg-type]
                      resume_path=tmp / f"seat{seat}.resume", **kw)  # type: ignore[arg-type]


def _bot(seat: int, salt: str = "") -> object:
    return bot_decider(get_game(GAME).make_bot("heuristic", f"{seat}{salt}"))


@pytest.mark.parametrize("crypto", ["fast", "verified"])
async def test_a_killed_peer_resumes_from_its_log_and_the_game_ends_clean(tmp_path: Path, crypto: str) -> None:
    """In a verified deck the resumed seat re-makes byte-identical proofs (contexts and nonces from history)."""
    options = {**OPTIONS, "crypto": crypto}
    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    results: dict[int, PeerResult] = {}
    crash = trio.CancelScope()

    def observe(ls: Lockstep, _: list[str]) -> None:
        if ls.tick >= 25 and not crash.cancel_called:
            crash.cancel()  # seat 1's process "dies" mid-game

    links: list[tuple[int, bool, float]] = []

    async def play(seat: int) -> None:
        told = (lambda s, up, wait: links.append((s, up, wait))) if seat == 0 else None
        results[seat] = await run_peer(_cfg(seat, tmp_path, seeded_secrets(8, seat), options=options,
                                            on_link=told), addresses, listeners[seat],
                                       _bot(seat))  # type: ignore[arg-type]

    async def victim() -> None:
        with crash:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(8, 1), options=options), addresses, listeners[1],
                           _bot(1),  # type: ignore[arg-type]
                           observe)
        assert crash.cancelled_caught, "the game ended before the crash"
        await listeners[1].aclose()
        await trio.sleep(0.5)
        header, ls = restore(tmp_path / "seat1.resume")  # re-verifies everything it logged
        assert ls.tick >= 20
        relisten = await listen("127.0.0.1", addresses[1][1])
        cfg = _cfg(1, tmp_path, LocalSecrets(master=header["master"]), options=options)
        results[1] = await run_peer(cfg, addresses, relisten, _bot(1, "again"), restored=ls)  # type: ignore[arg-type]
        await relisten.aclose()

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, 0)
            nursery.start_soon(victim)
            nursery.start_soon(play, 2)
    verdicts = [results[s].lockstep.verdict for s in range(3)]
    assert all(v is not None and v.clean for v in verdicts), verdicts
    assert len({v.state_hash for v in verdicts if v is not None}) == 1
    assert results[1].lockstep.result is not None
    # Seat 0's person was told: seat 1 gone, with its time to come back (resume_timeout), then back.
    assert links == [(1, False, 20.0), (1, True, 0.0)], links


def test_a_seat_whose_link_is_down_is_due_when_its_resume_timeout_ends_not_its_timeout() -> None:
    """Sans-IO: the deadline of a seat whose link dropped is the drop plus ``resume_timeout``, earlier or later
    than its message's own ``timeout``; a seat whose link is up keeps its ``timeout``."""
    from p2php.session.runner import Deadlines

    people = Deadlines(timeout=300.0, resume_timeout=60.0)  # a table of people: minutes to think
    people.update({1: (4, 0), 2: (4, 0)}, now=100.0)
    assert people.next_deadline({}) == 400.0
    assert people.next_deadline({2: 110.0}) == 170.0  # told "60 s to come back": named then, not at 400
    assert people.expired(169.0, {2: 110.0}) == [] and people.expired(170.0, {2: 110.0}) == [2]
    bots = Deadlines(timeout=2.0, resume_timeout=20.0)
    bots.update({1: (4, 0)}, now=100.0)
    assert bots.expired(105.0, {1: 101.0}) == [] and bots.expired(121.0, {1: 101.0}) == [1]
    assert bots.expired(102.0, {}) == [1]


@pytest.mark.parametrize("timeout", [2.0, 120.0])
async def test_a_peer_that_never_returns_is_named_after_the_timeout(tmp_path: Path, timeout: float) -> None:
    """With a ``timeout`` far longer than ``resume_timeout`` (people thinking) the others still name the
    vanished seat once its ``resume_timeout`` has passed: it cannot be thinking where it cannot be heard."""
    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    results: dict[int, PeerResult] = {}
    crash = trio.CancelScope()

    def observe(ls: Lockstep, _: list[str]) -> None:
        if ls.tick >= 10:
            crash.cancel()

    async def play(seat: int) -> None:
        # Fast dealing and a 2 s timeout: under a loaded CI worker a verified shuffle proof can
        # take longer than 1 s, and the late honest shuffler would be named — not what this tests.
        cfg = _cfg(seat, tmp_path, seeded_secrets(9, seat), timeout=timeout, resume_timeout=3.0,
                   options={**OPTIONS, "crypto": "fast"})
        if seat == 1:
            with crash:
                await run_peer(cfg, addresses, listeners[1], _bot(1), observe)  # type: ignore[arg-type]
            await listeners[1].aclose()
            return
        results[seat] = await run_peer(cfg, addresses, listeners[seat], _bot(seat))  # type: ignore[arg-type]

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for seat in range(3):
                nursery.start_soon(play, seat)
    for seat in (0, 2):
        verdict = results[seat].lockstep.verdict
        # Its link stayed down past the resume timeout: named unreachable, a network fault, not a cheat.
        assert verdict is not None and verdict.culprit is None and verdict.code == "unreachable", verdict
        assert verdict.seats == (1,)
        assert results[seat].lockstep.transcript  # nothing already played is lost


async def _three_seats(tmp: Path, configure: Callable[[PeerConfig], None] | None = None) -> dict[int, PeerResult]:
    """A clean game of three seats over loopback, each with its resume log; ``configure`` may change a config."""
    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    results: dict[int, PeerResult] = {}

    async def play(seat: int) -> None:
        cfg = _cfg(seat, tmp, seeded_secrets(9, seat))
        if configure is not None:
            configure(cfg)
        results[seat] = await run_peer(cfg, addresses, listeners[seat], _bot(seat))  # type: ignore[arg-type]

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for seat in range(3):
                nursery.start_soon(play, seat)
    verdicts = [results[s].lockstep.verdict for s in range(3)]
    assert all(v is not None and v.clean for v in verdicts), verdicts
    assert len({v.state_hash for v in verdicts if v is not None}) == 1
    return results


async def test_a_resume_log_that_fills_the_disk_mid_game_is_set_aside_and_the_seat_plays_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Before, the OSError ended the seat's run: an honest seat crashed mid-game and the table named it."""
    import errno

    from p2php.session.resume import ResumeLog

    flushes = {"n": 0}
    honest, honest_if_free, create = ResumeLog.flush, ResumeLog.flush_if_free, ResumeLog.create
    seat1: list[ResumeLog] = []

    def create_tagged(cfg: PeerConfig, ls: Lockstep, addresses: object) -> ResumeLog:
        made = create(cfg, ls, addresses)  # type: ignore[arg-type]
        if ls.seat == 1:
            seat1.append(made)
        return made

    def flush(self: ResumeLog, durable: bool = False) -> None:
        if self in seat1:
            flushes["n"] += 1
            if flushes["n"] > 30:
                raise OSError(errno.ENOSPC, "No space left on device")
        honest(self, durable)

    def flush_if_free(self: ResumeLog) -> bool:  # (the game's thread writes what it can without waiting)
        if self in seat1:
            flushes["n"] += 1
            if flushes["n"] > 30:
                raise OSError(errno.ENOSPC, "No space left on device")
        return honest_if_free(self)

    monkeypatch.setattr(ResumeLog, "flush", flush)
    monkeypatch.setattr(ResumeLog, "flush_if_free", flush_if_free)
    monkeypatch.setattr(ResumeLog, "create", create_tagged)
    await _three_seats(tmp_path)
    assert flushes["n"] > 30  # it failed mid-game
    # resume cannot start from a log that lacks what was sent after it failed (it would answer again, differently)
    assert not (tmp_path / "seat1.resume").exists() and (tmp_path / "seat1.resume.incomplete").exists()
    assert (tmp_path / "seat0.resume").exists()
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "resume log" in r.getMessage()]
    assert len(said) == 1 and "No space left on device" in said[0] and "cannot resume" in said[0]


async def test_a_resume_log_that_cannot_be_made_is_said_once_and_the_seat_plays_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "a-file").write_text("not a directory")

    def elsewhere(cfg: PeerConfig) -> None:
        if cfg.seat == 1:
            cfg.resume_path = tmp_path / "a-file" / "seat1.resume"

    await _three_seats(tmp_path, elsewhere)
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "resume log" in r.getMessage()]
    assert len(said) == 1 and "a-file/seat1.resume cannot be written" in said[0]


async def test_a_transcript_that_cannot_be_saved_still_leaves_the_result(tmp_path: Path,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    """Before, the OSError came out of ``run_peer`` after the game: the seat's result was lost with it."""
    (tmp_path / "a-file").write_text("not a directory")

    def unsavable(cfg: PeerConfig) -> None:
        cfg.transcript_path = tmp_path / "a-file" / f"seat{cfg.seat}.p2php"

    results = await _three_seats(tmp_path, unsavable)
    assert all(results[s].lockstep.verdict is not None for s in range(3))
    said = [r.getMessage() for r in caplog.records if "cannot save the transcript" in r.getMessage()]
    assert len(said) == 3 and "a-file/seat" in said[0]
