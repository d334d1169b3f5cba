"""Whole games at internet latency: wall time, decisions, and round trips per decision (issue 13).

Every link of a loopback table is delayed in user space (:mod:`p2php.testing.delay`; the kernel's netem is not
available here), the same one-way delay both ways. A seeded table with seeded bots plays the same game at every
delay, so the extra time is the latency's alone::

    round trips per decision = (play(d) - play(0)) / (2·d · decisions)

where *play* runs from the first decision to the end of the game (the set-up and the audit are reported apart).
1.0 means each decision costs one round trip; the lockstep's goal is at most 1.2 on average.

``python benchmarks/latency.py [--game uno:4 hpsha:6] [--delay 0 25 100] [--jitter MS] [--crypto fast] [--json]``
(delays in milliseconds, one way).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import trio

from p2php.engine.contract import Decide
from p2php.engine.registry import get_game
from p2php.session.local_net import run_local_table
from p2php.session.lockstep import Lockstep
from p2php.session.runner import bot_decider
from p2php.testing.delay import delayed_loopback

GAMES = {"uno": {"rounds": 1}, "hpsha": {}}  # one UNO round keeps the 100 ms run to a minute or so


@dataclass
class Phases:
    """When seat 0 first had a decision to make, and when the game was over."""

    start: float
    first_decision: float = 0.0
    game_over: float = 0.0

    def __call__(self, ls: Lockstep, _lines: list[str]) -> None:
        now = time.perf_counter()
        if not self.first_decision and isinstance(ls.step, Decide):
            self.first_decision = now
        if not self.game_over and (ls.auditing or ls.finished):
            self.game_over = now


async def one_game(game: str, peers: int, delay: float, jitter: float, crypto: str, seed: int) -> dict[str, Any]:
    g = get_game(game)
    options = {**GAMES.get(game, {}), "crypto": crypto}
    deciders = [bot_decider(g.make_bot("heuristic", f"{seed}/{s}")) for s in range(peers)]
    phases = Phases(time.perf_counter())
    timeout = max(30.0, 40 * (delay + jitter))  # a slow link must never look silent
    async with delayed_loopback(delay, jitter, seed) as net:
        results = await run_local_table(game, peers, deciders, options, seed=seed, timeout=timeout, network=net,
                                        observe=phases, resume_timeout=2 * timeout)
    end = time.perf_counter()
    ls = results[0].lockstep
    verdicts = [r.lockstep.verdict for r in results]
    decisions = sum(1 for e in ls.events if isinstance(e.step, Decide))
    return {
        "game": game, "peers": peers, "delay_ms": round(delay * 1000), "jitter_ms": round(jitter * 1000),
        "crypto": crypto, "ticks": ls.tick, "decisions": decisions,
        "setup_s": round(phases.first_decision - phases.start, 3),
        "play_s": round(phases.game_over - phases.first_decision, 3),
        "audit_s": round(end - phases.game_over, 3),
        "wall_s": round(end - phases.start, 3),
        "audit": "clean" if all(v is not None and v.clean for v in verdicts) else "NOT CLEAN",
    }


def round_trips(rows: list[dict[str, Any]]) -> None:
    """Add ``round_trips_per_decision`` to each delayed row, against the same game at no delay."""
    base = {(r["game"], r["peers"]): r for r in rows if r["delay_ms"] == 0}
    for r in rows:
        b = base.get((r["game"], r["peers"]))
        d = (r["delay_ms"] + r["jitter_ms"] / 2) / 1000
        if b is None or not d or not r["decisions"]:
            continue
        if b["decisions"] != r["decisions"]:
            r["note"] = "a different game than at no delay (decisions differ): ratio not comparable"
            continue
        r["round_trips_per_decision"] = round((r["play_s"] - b["play_s"]) / (2 * d * r["decisions"]), 2)
        r["setup_round_trips"] = round((r["setup_s"] - b["setup_s"]) / (2 * d), 1)
        r["audit_round_trips"] = round((r["audit_s"] - b["audit_s"]) / (2 * d), 1)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--game", nargs="+", default=["uno:4", "hpsha:6"], help="GAME:PEERS (default: uno:4 hpsha:6)")
    ap.add_argument("--delay", nargs="+", type=float, default=[0, 25, 100], help="one-way delays in ms")
    ap.add_argument("--jitter", type=float, default=0.0, help="uniform extra delay 0..MS per chunk")
    ap.add_argument("--crypto", default="fast", choices=["fast", "verified"])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    delays = sorted(set(args.delay) | {0.0})
    rows = []
    for spec in args.game:
        game, _, peers = spec.partition(":")
        for delay in delays:
            print(f"latency.py: {game} {peers or 4} peers, {delay:g} ms one way...", file=sys.stderr)
            rows.append(trio.run(one_game, game, int(peers or 4), delay / 1000, args.jitter / 1000, args.crypto,
                                 args.seed))
    round_trips(rows)
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{'game':<7}{'peers':>6}{'delay':>7}{'decisions':>10}{'set-up':>9}{'play':>9}{'audit':>8}"
          f"{'RT/decision':>13}{'set-up RT':>11}{'audit RT':>10}  audit")
    for r in rows:
        print(f"{r['game']:<7}{r['peers']:>6}{r['delay_ms']:>5}ms{r['decisions']:>10}{r['setup_s']:>8.2f}s"
              f"{r['play_s']:>8.2f}s{r['audit_s']:>7.2f}s{r.get('round_trips_per_decision', '-'):>13}"
              f"{r.get('setup_round_trips', '-'):>11}{r.get('audit_round_trips', '-'):>10}  {r['audit']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
