"""A sweep of engine-only games of A Year at Hogwarts with bots: do they all finish, how fast, how long.

For each table size and length it plays seeded games on a trusted local table (no crypto) and prints games/s,
turns and decisions per game, how many games ended with more than one winner (a tie, C-7), and the joint
random draws a game needs (each a message round through the protocol; a seat's hash chain holds 1024 and
then renews itself, so "over" only counts the games whose seats renew their chains).  A game that
raises stops the sweep with its seed; one that does not end within ``--max-decisions`` is counted as
unfinished (its seeds listed).  ``--mode`` plays another mode (``qualified``, ``solo`` with ``--difficulty``,
``team`` with ``--teams``): the rows then also count the games won (solo and one team of all may lose), the
Death Eater battles and the Quidditch matches (solo: Snitch practices) per game.  ``--mode
return_of_voldemort`` plays The Return of Lord Voldemort (2–4 players; the length does not matter there).
Every row's outcomes count the games by the headline of their result (in the Return mode: each side's wins and
the drawn games; "ties" there are the heroes' shared wins).

    python benchmarks/hogwarts_sweep.py [--games 100] [--players 2,4,9] [--lengths quick,classic,long]
                                        [--bot heuristic|random]
                                        [--mode underage|qualified|solo|team|return_of_voldemort]
                                        [--difficulty underage|qualified] [--teams 2] [--json]
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
         options: dict[str, Any] | None = None) -> tuple[int, int, int, int, int, int, str] | None:
    """One game: (turns, decisions, winners, joint random draws, Death Eater battles, matches, the outcome's
    headline), None if it did not end within ``max_decisions``."""
    st = GAME.new_state(players, {"length": length, **(options or {})})
    tb = LocalTable(st, seed)
    bots = {s: GAME.make_bot(bot, f"{seed}/{s}") for s in range(players)}
    for decisions in range(max_decisions):
        step = tb.run_chance()
        if isinstance(step, GameOver):
            draws = [getattr(s, "purpose", "") for kind, s in tb.log if kind == "Randomness"]
            return (st.turns, decisions, len(step.winners), len(draws), draws.count("death_eater"),
                    sum(st.matches) // (1 if st.mode == "solo" else 2), step.summary.split(":")[0])
        assert isinstance(step, Decide)
        tb.act([(s, bots[s].choose(st, s, tb.knowledge(s), st.legal_actions(s, tb.knowledge(s))))
                for s in step.seats])
    return None


def sweep(games: int, players: list[int], lengths: list[str], bot: str, max_decisions: int,
          options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    rows = []
    for length in lengths:
        for n in players:
            start = time.perf_counter()
            turns, decisions, draws, ties, won, eaters, matches, unfinished = [], [], [], 0, 0, 0, 0, []
            outcomes: dict[str, int] = {}
            for seed in range(games):
                result = play(n, length, seed, bot, max_decisions, options)
                if result is None:
                    unfinished.append(seed)
                    continue
                t, d, w, r, e, m, headline = result
                outcomes[headline] = outcomes.get(headline, 0) + 1
                turns.append(t)
                decisions.append(d)
                draws.append(r)
                ties += w > 1
                won += w > 0
                eaters += e
                matches += m
            elapsed = time.perf_counter() - start
            done = max(1, len(turns))
            rows.append({"mode": (options or {}).get("mode", "underage"), "length": length, "players": n,
                         "games": games, "bot": bot, "games_per_s": round(games / elapsed, 2),
                         "turns_mean": round(sum(turns) / done, 1), "turns_max": max(turns, default=0),
                         "decisions_mean": round(sum(decisions) / done, 1), "ties": ties, "won": won,
                         "death_eater_battles_mean": round(eaters / done, 2), "matches_mean": round(matches / done, 2),
                         "draws_max": max(draws, default=0), "over_chain": sum(r > CHAIN for r in draws),
                         "unfinished": unfinished, "outcomes": dict(sorted(outcomes.items()))})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", default="2,4,9")
    ap.add_argument("--lengths", default="quick,classic,long")
    ap.add_argument("--bot", default="heuristic", choices=GAME.bot_kinds)
    ap.add_argument("--max-decisions", type=int, default=500_000)
    ap.add_argument("--mode", default="underage",
                    choices=("underage", "qualified", "solo", "team", "return_of_voldemort"))
    ap.add_argument("--difficulty", default="underage", choices=("underage", "qualified"))
    ap.add_argument("--teams", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    options: dict[str, Any] = {"mode": args.mode}
    if args.mode == "solo":
        options["difficulty"] = args.difficulty
    if args.mode == "team":
        options["teams"] = args.teams
    players = [1] if args.mode == "solo" else [int(p) for p in args.players.split(",")]
    rows = sweep(args.games, players, args.lengths.split(","), args.bot, args.max_decisions, options)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        print(f"{r['mode']} {r['length']:>7} {r['players']} players, {r['games']} {r['bot']} games: "
              f"{r['games_per_s']} games/s, turns {r['turns_mean']} (max {r['turns_max']}), decisions "
              f"{r['decisions_mean']}, won {r['won']}, ties {r['ties']}, Death Eater battles "
              f"{r['death_eater_battles_mean']}/game, matches {r['matches_mean']}/game, joint draws max "
              f"{r['draws_max']} ({r['over_chain']} over {CHAIN}), unfinished {len(r['unfinished'])} "
              f"{r['unfinished'][:10] if r['unfinished'] else ''}")
        print("        outcomes: " + ", ".join(f"{k} {v}" for k, v in r["outcomes"].items()))


if __name__ == "__main__":
    main()
