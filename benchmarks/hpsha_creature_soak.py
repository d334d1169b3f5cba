"""HP Sha creature soak: many seeded engine-only games per player count with the creature pack (issue 15).

Run:  python benchmarks/hpsha_creature_soak.py [--games 500] [--players 4 5 6 7 8 9 10] [--creatures 4 11]
      [--bots heuristic random] [--json]

For every player count and every creature count, ``--games`` seeded games on a trusted local table; the bots
take turns by seed (all heuristic, all random, then half and half). Every game must end without an exception;
the report counts the games won, the games stopped by the turn limit (``max_turns``, a finish but no winner),
and games per second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from typing import Any

from p2php.engine.local import LocalTable
from p2php.games.hpsha import GAME


def bots_for(seed: int, n: int, kinds: list[str]) -> dict[int, Any]:
    """Seed ``k``'s seats: all of one kind, or (with two kinds) alternately mixed every third game."""
    if len(kinds) > 1 and seed % 3 == 2:
        return {s: GAME.make_bot(kinds[s % len(kinds)], f"{seed}/{s}") for s in range(n)}
    kind = kinds[seed % len(kinds)]
    return {s: GAME.make_bot(kind, f"{seed}/{s}") for s in range(n)}


def soak(players: int, creatures: int, games: int, kinds: list[str]) -> dict[str, Any]:
    won = limited = failed = 0
    errors: list[str] = []
    start = time.perf_counter()
    for seed in range(games):
        st = GAME.new_state(players, {"creatures": creatures})
        try:
            over = LocalTable(st, seed).play(bots_for(seed, players, kinds))
        except Exception:  # noqa: BLE001 - a soak reports every failure and goes on
            failed += 1
            if len(errors) < 5:
                errors.append(f"seed {seed}: {traceback.format_exc(limit=3).splitlines()[-1]}")
            continue
        won += bool(over.winners)
        limited += not over.winners
    seconds = time.perf_counter() - start
    return {"players": players, "creatures": creatures, "games": games, "won": won, "turn_limit": limited,
            "exceptions": failed, "errors": errors, "seconds": round(seconds, 2),
            "games_per_s": round(games / seconds, 2) if seconds else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--players", type=int, nargs="+", default=list(range(4, 11)))
    ap.add_argument("--creatures", type=int, nargs="+", default=[4, 11])
    ap.add_argument("--bots", nargs="+", default=["heuristic", "random"])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for n in args.players:
        for c in args.creatures:
            row = soak(n, c, args.games, args.bots)
            rows.append(row)
            print(f"hpsha soak: {n} players, creatures={c}: {row['won']} won, {row['turn_limit']} at the turn "
                  f"limit, {row['exceptions']} exceptions, {row['games_per_s']} games/s", file=sys.stderr)
            for e in row["errors"]:
                print(f"  {e}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows))
    return 1 if any(r["exceptions"] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
