"""TCG engine sweep: many seeded engine-only games, starter deck against starter deck, both bots.

Run:  python benchmarks/tcg_sweep.py [--games 500] [--constructed] [--json]

``--constructed``: seeded random legal 60-card decks of the implemented cards instead
(``p2php.testing.tcg.random_deck_text``).

Every pairing of the bots (random, heuristic) and of the decks (Hermione, Draco) in turn; every game
must end with one winner and no exception.  Prints games per second, decisions per game, turns per
game and the wins by bot kind (one JSON object with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from p2php.engine.local import LocalTable
from p2php.games.tcg.game import GAME
from p2php.testing.tcg import random_deck_text, table_decks

KINDS = (("random", "random"), ("heuristic", "heuristic"), ("random", "heuristic"), ("heuristic", "random"))
DECKS: tuple[dict[str, str], ...] = (
    {}, {"deck0": "draco", "deck1": "hermione"}, {"deck0": "draco"}, {"deck1": "hermione"})


def options(seed: int, constructed: bool) -> dict[str, Any]:
    if constructed:
        return {"format": "constructed", "decklist0": random_deck_text(2 * seed),
                "decklist1": random_deck_text(2 * seed + 1)}
    return DECKS[(seed // 4) % 4]


def sweep(games: int, constructed: bool = False) -> dict[str, Any]:
    decisions = turns = 0
    wins: dict[str, int] = {}
    start = time.perf_counter()
    for seed in range(games):
        kinds = KINDS[seed % 4]
        opts = GAME.parse_options(options(seed, constructed))
        table = LocalTable(GAME.new_state(2, opts), seed, private_decks=table_decks(opts))
        over = table.play({s: GAME.make_bot(kinds[s], f"{seed}/{s}") for s in (0, 1)})
        if len(over.winners) != 1:
            raise AssertionError(f"seed {seed}: no single winner ({over})")
        winner = over.winners[0]
        wins[kinds[winner]] = wins.get(kinds[winner], 0) + 1
        decisions += sum(1 for kind, _ in table.log if kind == "actions")
        turns += table.state.turns  # type: ignore[attr-defined]
    seconds = time.perf_counter() - start
    return {"games": games, "seconds": round(seconds, 3), "games_per_s": round(games / seconds, 1),
            "decisions_per_game": round(decisions / games, 1), "turns_per_game": round(turns / games, 1),
            "wins_by_kind": dict(sorted(wins.items()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--constructed", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = sweep(args.games, args.constructed)
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
