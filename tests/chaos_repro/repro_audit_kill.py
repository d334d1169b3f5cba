"""Chaos soak seed 105 (HP Sha, verified deck), made deterministic with UNO: seat 0's process dies in the audit,
after its own audit went out and before the others' came in (their audits, sent or relayed to seat 0, are lost
with the dead process's connections); it is brought back from its resume log after ``delay`` seconds: longer than
the others' ``linger`` once they finished, shorter than the table's ``resume_timeout``. Every seat is honest.

Before the fix the others, whose verdict was clean, had left after ``linger``, and the resumed seat ended with
"no connection with seat(s) [1, 2]": no verdict, no transcript (its game was clean everywhere else).

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_audit_kill.py [delay]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from adversarial.faultproxy import LOOPBACK, game_deciders

from p2php.net.mesh import Mesh, listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import PeerConfig, run_peer

LOST = [False]  # while set, what seats 1 and 2 send seat 0 in the audit (their audits, relayed or not) is lost
_broadcast, _send = Mesh.broadcast, Mesh.send


def _lost(mesh: Mesh, seat: int, frame: Any) -> bool:
    return (LOST[0] and mesh.seat != 0 and seat == 0 and isinstance(frame, dict)
            and (frame.get("kind") == "audit" or "relay" in frame))


async def _lossy_broadcast(self: Mesh, frame: dict[str, Any], seats: list[int] | None = None) -> None:
    seats = self.seats if seats is None else seats
    await _broadcast(self, frame, [s for s in seats if not _lost(self, s, frame)])


async def _lossy_send(self: Mesh, seat: int, frame: dict[str, Any]) -> None:
    if not _lost(self, seat, frame):
        await _send(self, seat, frame)



async def audit_kill_table(tmp: Path, delay: float, say: Any = print, linger: float = 2.0,
                           resume_timeout: float = 20.0) -> dict[int, Any]:
    """Seat -> its final verdict, or the error it ended with (seat 0: its resumed run)."""
    players, timeout = 3, 5.0
    listeners = [await listen(LOOPBACK, 0) for _ in range(players)]
    addresses = {s: (LOOPBACK, listener_port(listeners[s])) for s in range(players)}
    deciders = game_deciders("uno", players, 3)
    out: dict[int, Any] = {}
    kill = trio.CancelScope()
    verdicts = {s: trio.Event() for s in range(players)}
    t0 = time.perf_counter()
    log = tmp / "seat0.resume"
    LOST[0] = True

    def note(seat: int, what: Any) -> None:
        out[seat] = what
        text = what if isinstance(what, str) else ("clean" if what.clean else
                                                    f"culprit={what.culprit} code={what.code}: {what.reason}")
        say(f"{time.perf_counter() - t0:6.2f}s seat {seat}: {text}")

    def observer(seat: int) -> Any:
        def observe(ls: Any, _lines: Any) -> None:
            if ls.verdict is not None:
                verdicts[seat].set()
        return observe

    def config(seat: int, secrets: LocalSecrets) -> PeerConfig:
        return PeerConfig(game="uno", options={"rounds": 1, "crypto": "fast"}, players=players, seat=seat,
                          name=f"bot{seat}", timeout=timeout, resume_timeout=resume_timeout, linger=linger,
                          secrets=secrets, resume_path=log if seat == 0 else None)

    async def one(seat: int) -> None:
        with kill if seat == 0 else trio.CancelScope():
            try:
                result = await run_peer(config(seat, seeded_secrets(3, seat)), addresses, listeners[seat],
                                        deciders[seat], observer(seat))
                note(seat, result.lockstep.verdict)
            finally:
                await listeners[seat].aclose()
        if seat == 0 and kill.cancelled_caught:
            say(f"{time.perf_counter() - t0:6.2f}s seat 0 killed; resumed in {delay} s")
            await trio.sleep(delay)
            header, ls = restore(log)
            own = await listen(LOOPBACK, addresses[0][1])
            try:
                result = await run_peer(config(0, LocalSecrets(master=header["master"])), addresses, own,
                                        deciders[0], restored=ls)
                note(0, result.lockstep.verdict)
            except Exception as err:  # what `p2php resume` reports as its error line (exit status 3)
                note(0, f"resumed run failed: {type(err).__name__}: {err}")
            finally:
                await own.aclose()

    async def killer() -> None:
        await verdicts[1].wait()
        await verdicts[2].wait()
        assert not verdicts[0].is_set()
        say(f"{time.perf_counter() - t0:6.2f}s seats 1 and 2 have their verdicts; seat 0 lacks their audits")
        kill.cancel()
        LOST[0] = False  # (what was lost went with the dead process's connections)

    Mesh.broadcast = _lossy_broadcast  # type: ignore[method-assign]  # (for this table only)
    Mesh.send = _lossy_send  # type: ignore[method-assign]
    try:
        async with trio.open_nursery() as n:
            n.start_soon(killer)
            for s in range(players):
                n.start_soon(one, s)
    finally:
        LOST[0] = False
        Mesh.broadcast, Mesh.send = _broadcast, _send  # type: ignore[method-assign]
    return out


async def main(delay: float) -> None:
    with tempfile.TemporaryDirectory() as d:
        out = await audit_kill_table(Path(d), delay)
    bad = {s: v for s, v in out.items() if isinstance(v, str) or v is None or v.culprit is not None}
    print(f"SEAT WITHOUT A VERDICT OR NAMED: {bad}" if bad else "every seat has a verdict naming nobody")


if __name__ == "__main__":
    trio.run(main, float(sys.argv[1]) if len(sys.argv) > 1 else 4.0)
