"""Review of 12f973e (runner: in our audit, a seat that still plays while another seat's link is down gets its
audit due a timeout after that seat's resume_timeout). The grace needs a down link AT THE AUDITOR. A cheater (seat 0)
sends its last action of the game (the toy game, seeded secrets 3, as tests/chaos_repro/repro_lost_lock.py
last-action) to seat 1 only, resets its link to seat 2 and refuses seat 2's redials, but keeps its link to seat 1
up (it even audits there). Seat 2 waits resume_timeout for seat 0, as it must; seat 1 has no down link, so it
gives seat 2 no grace and names the honest seat 2 refused_audit a timeout into its audit.

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_withhold_keep_link.py [timeout resume_timeout]
"""
from __future__ import annotations

import sys
import time
from typing import Any

import adversarial.faultproxy as fp
import toygame  # noqa: F401  (registers "toy")
import trio
from adversarial.faultproxy import LOOPBACK, Fault, FaultProxy, LinkPlan, toy_deciders

from p2php.net.mesh import listen, listener_port
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, run_peer

_CONNS: list[Any] = []
_init = fp._Connection.__init__


def _track(self: Any, *args: Any, **kw: Any) -> None:
    _init(self, *args, **kw)
    _CONNS.append(self)


async def table(timeout: float, resume_timeout: float, say: Any = print) -> dict[int, Any]:
    players = 3
    listeners = [await listen(LOOPBACK, 0) for _ in range(players)]
    real = {s: (LOOPBACK, listener_port(listeners[s])) for s in range(players)}
    plans = {(2, 0): LinkPlan.first(Fault("blackhole", duration=30.0, on_kind="action", direction="down", nth=2)),
             (1, 0): LinkPlan.clean(), (2, 1): LinkPlan.clean()}
    proxies = {k: FaultProxy(real[k[1]], p, name=f"{k[0]}->{k[1]}") for k, p in plans.items()}
    deciders = toy_deciders(players, 3)
    verdicts: dict[int, Any] = {}
    t0 = time.perf_counter()

    async def one(seat: int) -> None:
        cfg = PeerConfig(game="toy", options={}, players=players, seat=seat, name=f"bot{seat}", timeout=timeout,
                         resume_timeout=resume_timeout, secrets=seeded_secrets(3, seat), linger=1.0)
        addresses = {s: proxies[(seat, s)].address if s < seat else real[s] for s in range(players)}
        try:
            ls = (await run_peer(cfg, addresses, listeners[seat], deciders[seat])).lockstep
            verdicts[seat] = ls.verdict
        finally:
            await listeners[seat].aclose()
        v = verdicts.get(seat)
        text = "none" if v is None else "clean" if v.clean else f"culprit={v.culprit} code={v.code}: {v.reason}"
        say(f"{time.perf_counter() - t0:6.2f}s seat {seat}: {text}")

    async def cheat() -> None:
        while proxies[(2, 0)].stats.faults.get("blackhole", 0) == 0:
            await trio.sleep(0.001)
        await trio.sleep(0.05)
        proxies[(2, 0)].max_connections = 0  # seat 0 refuses seat 2's redials from now on
        for c in _CONNS:
            if c.proxy is proxies[(2, 0)]:
                c._abort()  # its link to seat 2 reset; its last action never reached seat 2
        say(f"{time.perf_counter() - t0:6.2f}s seat 0 withheld its last action from seat 2 and cut that link "
            "(its link to seat 1 stays up)")

    fp._Connection.__init__ = _track  # type: ignore[method-assign]
    try:
        async with trio.open_nursery() as outer:
            for p in proxies.values():
                await outer.start(p.run)
            async with trio.open_nursery() as n:
                n.start_soon(cheat)
                for s in range(players):
                    n.start_soon(one, s)
            outer.cancel_scope.cancel()
    finally:
        fp._Connection.__init__ = _init  # type: ignore[method-assign]
        _CONNS.clear()
    return verdicts


async def main(timeout: float, resume_timeout: float) -> None:
    verdicts = await table(timeout, resume_timeout)
    named = {s: f"seat {v.culprit} {v.code}" for s, v in verdicts.items() if v is not None and v.culprit == 2}
    print(f"HONEST SEAT 2 NAMED: {named}" if named else "seat 2 not named")


if __name__ == "__main__":
    numbers = [float(a) for a in sys.argv[1:]] or [3.0, 12.0]
    trio.run(main, *numbers)
