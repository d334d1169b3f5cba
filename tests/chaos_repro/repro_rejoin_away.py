"""Chaos soak ``--extra`` seed 5004 (UNO, verified deck), made deterministic with the fast deck: seats 1 and 2 die at
the set-up, before either sent a message; seat 2 is brought back from its log at once, seat 1 only ``away`` seconds
later (longer than the table's ``timeout``, inside its ``resume_timeout``). Every seat is honest.

Before the fix the restored seat 2 waited for seat 1's link for the whole ``connect_timeout`` before its mesh
formed, while seat 0, linked to it already (a ``Rejoined``), gave it one ``timeout`` for its beacon: no heartbeat,
no message came, and seat 0 named the honest seat 2 silent.

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_rejoin_away.py [away]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from adversarial.faultproxy import LOOPBACK, game_deciders

from p2php.net.mesh import listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import PeerConfig, run_peer


async def rejoin_away_table(tmp: Path, away: float, say: Any = print, timeout: float = 2.0,
                            resume_timeout: float = 15.0) -> dict[int, Any]:
    """Seat -> its final verdict, or the error it ended with (seats 1 and 2: their resumed runs)."""
    players = 3
    listeners = [await listen(LOOPBACK, 0) for _ in range(players)]
    addresses = {s: (LOOPBACK, listener_port(listeners[s])) for s in range(players)}
    deciders = game_deciders("uno", players, 3)
    out: dict[int, Any] = {}
    kills = {s: trio.CancelScope() for s in (1, 2)}
    t0 = time.perf_counter()

    def log(seat: int) -> Path:
        return tmp / f"seat{seat}.resume"

    def note(seat: int, what: Any) -> None:
        out[seat] = what
        text = what if isinstance(what, str) else ("clean" if what.clean else
                                                    f"culprit={what.culprit} code={what.code}: {what.reason}")
        say(f"{time.perf_counter() - t0:6.2f}s seat {seat}: {text}")

    def config(seat: int, secrets: LocalSecrets) -> PeerConfig:
        return PeerConfig(game="uno", options={"rounds": 1, "crypto": "fast"}, players=players, seat=seat,
                          name=f"bot{seat}", timeout=timeout, resume_timeout=resume_timeout, linger=2.0,
                          secrets=secrets, resume_path=None if seat == 0 else log(seat))

    async def one(seat: int) -> None:
        with kills.get(seat, trio.CancelScope()):
            try:
                result = await run_peer(config(seat, seeded_secrets(5, seat)), addresses, listeners[seat],
                                        deciders[seat])
                note(seat, result.lockstep.verdict)
            finally:
                await listeners[seat].aclose()
        if seat in kills and kills[seat].cancelled_caught:
            delay = 0.3 if seat == 2 else away
            say(f"{time.perf_counter() - t0:6.2f}s seat {seat} killed; resumed in {delay} s")
            await trio.sleep(delay)
            header, ls = restore(log(seat))
            own = await listen(LOOPBACK, addresses[seat][1])
            try:
                result = await run_peer(config(seat, LocalSecrets(master=header["master"])), addresses, own,
                                        deciders[seat], restored=ls)
                note(seat, result.lockstep.verdict)
            except Exception as err:  # what `p2php resume` reports as its error line (exit status 3)
                note(seat, f"resumed run failed: {type(err).__name__}: {err}")
            finally:
                await own.aclose()

    async def killer() -> None:
        while not (log(1).exists() and log(2).exists()):
            await trio.sleep(0.001)
        for scope in kills.values():
            scope.cancel()

    async with trio.open_nursery() as n:
        n.start_soon(killer)
        for s in range(players):
            n.start_soon(one, s)
    return out


async def main(away: float) -> None:
    with tempfile.TemporaryDirectory() as d:
        out = await rejoin_away_table(Path(d), away)
    bad = {s: v for s, v in out.items() if isinstance(v, str) or v is None or v.culprit is not None}
    print(f"SEAT WITHOUT A VERDICT OR NAMED: {bad}" if bad else "every seat has a verdict naming nobody")


if __name__ == "__main__":
    trio.run(main, float(sys.argv[1]) if len(sys.argv) > 1 else 8.0)
