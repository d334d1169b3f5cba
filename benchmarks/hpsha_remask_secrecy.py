"""Bot games of HP Sha through the real protocol (loopback TCP) with the knowledge check of
``p2php.testing.secrecy.SecrecyWatch`` at every decision of every seat, counting the hand re-masks (protocol.md §10.4).

    .venv/bin/python benchmarks/hpsha_remask_secrecy.py fast|verified SEATS DECISIONS SEED
"""

from __future__ import annotations

import sys

import trio

from p2php.engine.contract import Action, Deal, Reshuffle
from p2php.games.hpsha import GAME
from p2php.session.local_net import run_local_table
from p2php.session.lockstep import Lockstep
from p2php.session.runner import Decider, LeaveTable, bot_decider
from p2php.testing.secrecy import SecrecyWatch


def main(crypto: str, seats: int, decisions: int, seed: int) -> None:
    watch = SecrecyWatch()
    asked: list[int] = []

    def counted(seat: int, decide: Decider) -> Decider:
        async def one(ls: Lockstep) -> Action:
            asked.append(seat)
            if seat == 0 and len(asked) >= decisions:
                raise LeaveTable()
            return await decide(ls)

        return watch.wrap(seat, one)

    deciders = [counted(s, bot_decider(GAME.make_bot("heuristic", f"remask/{seed}/{s}"))) for s in range(seats)]
    options = {"crypto": crypto, "creatures": 11}
    results = trio.run(lambda: run_local_table(GAME.name, seats, deciders, options, seed=seed, timeout=120.0))
    verdicts = [r.lockstep.verdict for r in results]
    events = results[1].lockstep.events
    remasks = [e.step for e in events if isinstance(e.step, Reshuffle) and e.step.purpose.startswith("hand")]
    deals = [e.step for e in events if isinstance(e.step, Deal)]
    print(f"crypto={crypto} seats={seats} seed={seed}: {len(asked)} decisions, {len(remasks)} hand re-masks "
          f"({sum(len(r.slots) for r in remasks)} cards), {len(deals)} deals; verdicts "
          f"{sorted({(v.code if v else None) for v in verdicts}, key=str)}, state hashes "
          f"{len({v.state_hash for v in verdicts if v is not None})} distinct; watch checks {watch.checks}, "
          f"violations {len(watch.violations)} {watch.violations[:2]}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
