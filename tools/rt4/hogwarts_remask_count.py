"""rt4-hogw: how often heuristic Hogwarts games pick a hand card at random, and how often the hand is re-masked
first (E38); how often a deck is searched, and how often it is reshuffled before the look (E39) -- engine-only
games on a trusted table (no crypto), seeded.

    .venv/bin/python tools/rt4/hogwarts_remask_count.py [games per row, default 10]
"""

from __future__ import annotations

import sys
import time

from p2php.engine.contract import Decide, GameOver
from p2php.engine.local import LocalTable
from p2php.games.hogwarts.game import GAME

PICKS = ("steal", "discard", "spy")
ROWS = (("underage", "classic", 4, {}), ("qualified", "classic", 4, {}), ("team", "quick", 4, {"teams": "2"}),
        ("return_of_voldemort", "quick", 4, {}))

if __name__ == "__main__":
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    for mode, length, players, extra in ROWS:
        t0 = time.monotonic()
        picks = remasks = cards = ended = searches = premixes = 0
        for seed in range(games):
            st = GAME.new_state(players, {"mode": mode, "length": length, **extra})
            tb = LocalTable(st, seed)
            bots = {s: GAME.make_bot("heuristic", f"{seed}/{s}") for s in range(players)}
            for _ in range(200_000):
                step = tb.run_chance()
                if isinstance(step, GameOver):
                    ended += 1
                    break
                assert isinstance(step, Decide)
                tb.act([(s, bots[s].choose(st, s, tb.knowledge(s), st.legal_actions(s, tb.knowledge(s))))
                        for s in step.seats])
            picks += sum(1 for kind, s in tb.log if kind == "Randomness" and getattr(s, "purpose", "") in PICKS)
            hand = [s for kind, s in tb.log if kind == "Reshuffle" and getattr(s, "purpose", "").endswith("_hand")]
            remasks += len(hand)
            cards += sum(len(s.slots) for s in hand)
            mixes = sum(1 for kind, s in tb.log
                        if kind == "Reshuffle" and getattr(s, "purpose", "").endswith("_search"))
            looks = sum(1 for kind, s in tb.log if kind == "actions"
                        for _seat, act in s if act.get("type") == "take" and "slot" in act)  # type: ignore[attr-defined]
            searches += looks
            premixes += mixes - looks
        print(f"{mode:20} {length:8} {players} seats: {games} games, {ended} ended; {picks} random picks from hands, "
              f"{remasks} re-mask reshuffles ({cards} cards); {searches} searches, "
              f"{premixes} reshuffled before the look; {time.monotonic() - t0:.1f} s", flush=True)
