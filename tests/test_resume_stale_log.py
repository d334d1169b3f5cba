"""A seat resumed from a log that lacks messages it sent (red-team rt4-faults): a disk that went read-only (the
log could be neither written nor set aside) or that said it had written what it had not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from p2php.engine.registry import get_game
from p2php.net.mesh import listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import PeerConfig, bot_decider, run_peer


def _cfg(seat: int, tmp: Path, secrets: LocalSecrets) -> PeerConfig:
    return PeerConfig("uno", {"rounds": 1, "crypto": "fast"}, 3, seat, f"p{seat}", timeout=5.0, resume_timeout=20.0,
                      secrets=secrets, resume_path=tmp / f"seat{seat}.resume", linger=2.0)


def _bot(seat: int, salt: str = "") -> Any:
    return bot_decider(get_game("uno").make_bot("random", f"{seat}{salt}"))


async def test_a_seat_resumed_from_a_log_that_lacks_its_last_moves_takes_them_back_and_is_not_an_equivocator(
        tmp_path: Path) -> None:
    """Seat 1's log is as it was when seat 1 was about to act at step 40 or later; seat 1 then played on to step 45
    and its machine restarted. Resumed (a new bot seed, as ``p2php resume`` gives, or a person choosing again), it
    waits until the others have handed its own later messages back (their ``sync`` says they hold them) before it
    makes one. Before, it chose anew at once, and every seat — its own included — convicted it of equivocation."""
    log = tmp_path / "seat1.resume"
    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    results: dict[int, Any] = {}
    crash = trio.CancelScope()
    stale: list[bytes] = []

    def observe(ls: Lockstep, _lines: Any) -> None:
        if ls.tick >= 40 and ls.awaiting_me() and not stale:
            stale.append(log.read_bytes())  # what the disk still holds: not the move about to be made
        if ls.tick >= 45 and not crash.cancel_called:
            crash.cancel()

    async def play(seat: int) -> None:
        results[seat] = await run_peer(_cfg(seat, tmp_path, seeded_secrets(9, seat)), addresses, listeners[seat],
                                       _bot(seat))

    async def seat_1() -> None:
        with crash:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(9, 1)), addresses, listeners[1], _bot(1), observe)
        await listeners[1].aclose()
        assert stale and crash.cancel_called
        log.write_bytes(stale[0])
        header, ls = restore(log)
        assert ls.awaiting_me()  # the log ends where seat 1 was to act: it did, but the log does not say so
        again = await listen("127.0.0.1", addresses[1][1])
        results[1] = await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"])), addresses, again,
                                    _bot(1, "again"), restored=ls)
        await again.aclose()

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, 0)
            nursery.start_soon(seat_1)
            nursery.start_soon(play, 2)
    verdicts = [results[s].lockstep.verdict for s in range(3)]
    assert all(v is not None and v.clean for v in verdicts), verdicts


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
