"""Whole A Year at Hogwarts bot games through the real protocol (loopback TCP) with the knowledge check of
``p2php.testing.secrecy.SecrecyWatch`` at every decision of every seat, counting the hand re-masks (E38,
protocol.md §10.4) and the random picks from hands.

    .venv/bin/python benchmarks/hogwarts_remask_secrecy.py fast|verified MODE LENGTH SEATS SEED
"""

from __future__ import annotations

import sys

import trio

from p2php.engine.contract import Randomness, Reshuffle
from p2php.games.hogwarts.game import GAME
from p2php.session.local_net import run_local_table
from p2php.session.runner import bot_decider
from p2php.testing.secrecy import SecrecyWatch

PICKS = ("steal", "discard", "spy")


def main(crypto: str, mode: str, length: str, seats: int, seed: int) -> None:
    watch = SecrecyWatch()
    deciders = [watch.wrap(s, bot_decider(GAME.make_bot("heuristic", f"remask/{seed}/{s}"))) for s in range(seats)]
    options = {"crypto": crypto, "mode": mode, "length": length, **({"teams": "2"} if mode == "team" else {})}
    results = trio.run(lambda: run_local_table(GAME.name, seats, deciders, options, seed=seed, timeout=120.0))
    verdicts = [r.lockstep.verdict for r in results]
    events = results[0].lockstep.events
    remasks = [e.step for e in events if isinstance(e.step, Reshuffle) and e.step.purpose.endswith("_hand")]
    picks = [e.step for e in events if isinstance(e.step, Randomness) and e.step.purpose in PICKS]
    print(f"crypto={crypto} {mode} {length} seats={seats} seed={seed}: {len(picks)} random picks from hands, "
          f"{len(remasks)} hand re-masks ({sum(len(r.slots) for r in remasks)} cards); verdicts "
          f"{sorted({(v.code if v else None) for v in verdicts}, key=str)}, audits clean "
          f"{all(v is not None and v.clean for v in verdicts)}, state hashes "
          f"{len({v.state_hash for v in verdicts if v is not None})} distinct; watch checks {watch.checks}, "
          f"violations {len(watch.violations)} {watch.violations[:2]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
