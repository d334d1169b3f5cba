"""Chaos soak seed 3 (a rematch, fast deck), made deterministic.

Seat 0's process dies right after its last lock pass reached seat 1 but not seat 2 (the frame towards seat 2 is
held by the proxy, then seat 0's connections are reset, as the kernel does for a killed process). Every seat is
honest. Seat 1 goes on to step 2.0 and sends its keys; seat 2 waits for seat 0 (its link is down: up to
``resume_timeout``). Seat 1 ends the game unattributed ("seat 2 is still waiting for others") and starts its audit;
seat 2's audit is then due within ``timeout``, but seat 2 never took seat 1's abort: it sits parked behind seat 1's
keys message, which came as a compact frame held for a tick seat 2 has not reached. Seat 2 keeps waiting for
seat 0 until ``resume_timeout``, and seat 1 names it ``refused_audit``.

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_lost_lock.py [last-action] [timeout resume_timeout]
"""

from __future__ import annotations

import sys
import time
from typing import Any

import adversarial.faultproxy as fp
import trio
from adversarial.faultproxy import LOOPBACK, Fault, FaultProxy, LinkPlan, game_deciders, toy_deciders

from p2php.net.mesh import listen, listener_port
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, run_peer

_CONNS: list[Any] = []
_init = fp._Connection.__init__


def _track(self: Any, *args: Any, **kw: Any) -> None:
    _init(self, *args, **kw)
    _CONNS.append(self)



async def lost_lock_table(timeout: float, resume_timeout: float, say: Any = print, game: str = "uno",
                          on_kind: str = "lock", nth: int = 1, stopped_by: dict[int, Any] | None = None
                          ) -> dict[int, Any]:
    """Play the table; seat -> its verdict (seat 0, killed, has none); ``stopped_by``, if given, gets seat -> the
    seat whose abort stopped it (None: its own deadline). ``game="toy"``, ``on_kind="action"``,
    ``nth=2``: seat 0's last action of the game (seeded secrets 3) reaches seat 1 only."""
    players = 3
    listeners = [await listen(LOOPBACK, 0) for _ in range(players)]
    real = {s: (LOOPBACK, listener_port(listeners[s])) for s in range(players)}
    # Seat 2 dials seat 0, so "down" is 0 -> 2: seat 0's first lock frame that way is its own last pass.
    plans = {(2, 0): LinkPlan.first(Fault("blackhole", duration=30.0, on_kind=on_kind, direction="down", nth=nth)),
             (1, 0): LinkPlan.clean(), (2, 1): LinkPlan.clean()}
    proxies = {k: FaultProxy(real[k[1]], p, name=f"{k[0]}->{k[1]}") for k, p in plans.items()}
    deciders = toy_deciders(players, 3) if game == "toy" else game_deciders(game, players, 3)
    verdicts: dict[int, Any] = {}
    faults_from: dict[int, Any] = {}  # seat -> whose abort stopped it (None: its own finding)
    kill = trio.CancelScope()
    t0 = time.perf_counter()

    async def one(seat: int) -> None:
        options = {} if game == "toy" else {"rounds": 1, "crypto": "fast"}
        cfg = PeerConfig(game=game, options=options, players=players, seat=seat,
                         name=f"bot{seat}", timeout=timeout, resume_timeout=resume_timeout,
                         secrets=seeded_secrets(3, seat))
        addresses = {s: proxies[(seat, s)].address if s < seat else real[s] for s in range(players)}
        with kill if seat == 0 else trio.CancelScope():
            try:
                ls = (await run_peer(cfg, addresses, listeners[seat], deciders[seat])).lockstep
                verdicts[seat], faults_from[seat] = ls.verdict, ls.fault_from
            finally:
                await listeners[seat].aclose()
        v = verdicts.get(seat)
        text = "killed" if v is None else "clean" if v.clean else f"culprit={v.culprit} code={v.code}: {v.reason}"
        say(f"{time.perf_counter() - t0:6.2f}s seat {seat}: {text}")

    async def killer() -> None:
        while proxies[(2, 0)].stats.faults.get("blackhole", 0) == 0:
            await trio.sleep(0.001)
        await trio.sleep(0.05)
        say(f"{time.perf_counter() - t0:6.2f}s seat 0's {on_kind} frame #{nth} held from seat 2; seat 0 killed")
        kill.cancel()
        for c in _CONNS:
            if c.proxy is proxies[(2, 0)]:
                c._abort()  # its connections reset: the held frame is lost

    fp._Connection.__init__ = _track  # type: ignore[method-assign]  # (to reset the dead seat's connections)
    try:
        async with trio.open_nursery() as outer:
            for p in proxies.values():
                await outer.start(p.run)
            async with trio.open_nursery() as n:
                n.start_soon(killer)
                for s in range(players):
                    n.start_soon(one, s)
            outer.cancel_scope.cancel()
    finally:
        fp._Connection.__init__ = _init  # type: ignore[method-assign]
        _CONNS.clear()
    if stopped_by is not None:
        stopped_by.update(faults_from)
    return verdicts


async def main(timeout: float, resume_timeout: float, variant: str) -> None:
    if variant == "last-action":
        import toygame  # noqa: F401  (registers "toy")

        verdicts = await lost_lock_table(timeout, resume_timeout, game="toy", on_kind="action", nth=2)
    else:
        verdicts = await lost_lock_table(timeout, resume_timeout)
    named = {s: f"seat {v.culprit}: {v.reason}" for s, v in verdicts.items() if v.culprit is not None}
    print(f"HONEST SEAT NAMED: {named}" if named else "nobody named")


if __name__ == "__main__":
    variant = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1][0].isdigit() else "lock"
    numbers = [float(a) for a in sys.argv[1:] if a[0].isdigit()] or [3.0, 12.0]
    trio.run(main, *numbers, variant)
