"""A sweep of engine-only games of A Year at Hogwarts with bots: do they all finish, how fast, how long.

For each table size and length it plays seeded games on a trusted local table (no crypto) and prints games/s,
turns and decisions per game, how many games ended with more than one winner (a tie, C-7), and the joint
random draws a game needs (each a message round through the protocol; a seat's hash chain holds 1024 and
then renews itself, so "over" only counts the games whose seats renew their chains).  A game that
raises or does not end within ``--max-decisions`` is reported with its seed.  ``--mode return_of_voldemort``
plays The Return of Lord Voldemort (2–4 players; the length does not matter there) and the outcomes line counts
each side's wins and the drawn games ("ties" there are the heroes' shared wins).

    python benchmarks/hogwarts_sweep.py [--games 100] [--players 2,4,9] [--lengths quick,classic,long]
                                        [--bot heuristic|random] [--mode underage|return_of_voldemort] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from p2php.engine.contract import Decide, GameOver
from p2php.engine.local import LocalTable
from p2php.games.hogwarts.game import GAME

CHAIN = 1024
"""Joint random draws a session's hash chains hold (p2php.session.handshake.CHAIN_LENGTH)."""


def play(players: int, length: str, seed: int, bot: str, max_decisions: int,
         mode: str = "underage") -> tuple[int, int, int, int, str]:
    """One game: (turns, decisions, winners, joint random draws, the outcome's headline)."""
    st = GAME.new_state(players, {"length": length, "mode": mode})
    tb = LocalTable(st, seed)
    bots = {s: GAME.make_bot(bot, f"{seed}/{s}") for s in range(players)}
    for decisions in range(max_decisions):
        step = tb.run_chance()
        if isinstance(step, GameOver):
            return (st.turns, decisions, len(step.winners), sum(kind == "Randomness" for kind, _ in tb.log),
                    step.summary.split(":")[0])
        assert isinstance(step, Decide)
        tb.act([(s, bots[s].choose(st, s, tb.knowledge(s), st.legal_actions(s, tb.knowledge(s))))
                for s in step.seats])
    raise RuntimeError(f"{players} players, {length}, seed {seed}: no end within {max_decisions} decisions")


def sweep(games: int, players: list[int], lengths: list[str], bot: str, max_decisions: int,
          mode: str = "underage") -> list[dict[str, Any]]:
    rows = []
    for length in lengths:
        for n in players:
            start = time.perf_counter()
            turns, decisions, draws, ties = [], [], [], 0
            outcomes: dict[str, int] = {}
            for seed in range(games):
                t, d, w, r, headline = play(n, length, seed, bot, max_decisions, mode)
                outcomes[headline] = outcomes.get(headline, 0) + 1
                turns.append(t)
                decisions.append(d)
                draws.append(r)
                ties += w > 1
            elapsed = time.perf_counter() - start
            rows.append({"length": length, "players": n, "games": games, "bot": bot,
                         "games_per_s": round(games / elapsed, 2), "turns_mean": round(sum(turns) / games, 1),
                         "turns_max": max(turns), "decisions_mean": round(sum(decisions) / games, 1),
                         "ties": ties, "draws_max": max(draws), "over_chain": sum(r > CHAIN for r in draws),
                         "mode": mode, "outcomes": dict(sorted(outcomes.items()))})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", default="2,4,9")
    ap.add_argument("--lengths", default="quick,classic,long")
    ap.add_argument("--bot", default="heuristic", choices=GAME.bot_kinds)
    ap.add_argument("--max-decisions", type=int, default=500_000)
    ap.add_argument("--mode", default="underage", choices=("underage", "return_of_voldemort"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = sweep(args.games, [int(p) for p in args.players.split(",")], args.lengths.split(","), args.bot,
                 args.max_decisions, args.mode)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        print(f"{r['length']:>7} {r['players']} players, {r['games']} {r['bot']} games: {r['games_per_s']} games/s, "
              f"turns {r['turns_mean']} (max {r['turns_max']}), decisions {r['decisions_mean']}, ties {r['ties']}, "
              f"joint draws max {r['draws_max']} ({r['over_chain']} over {CHAIN})")
        print(f"        outcomes ({r['mode']}): " + ", ".join(f"{k} {v}" for k, v in r["outcomes"].items()))


if __name__ == "__main__":
    main()
