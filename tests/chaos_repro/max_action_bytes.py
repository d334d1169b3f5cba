"""The largest encoded action of honest games (RandomBot), per game."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import toygame  # noqa: E402,F401

from p2php.bots import RandomBot  # noqa: E402
from p2php.canonical import encode  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402

for game, players in (("uno", 3), ("hpsha", 4), ("hpsha", 8), ("hogwarts", 4), ("tcg", 2)):
    best = (0, None)
    for seed in range(1, 4):
        try:
            peers = make_peers(game, players, {"crypto": "fast"}, seed=seed)
        except Exception as err:
            print(game, err)
            break
        run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)})
        for m in peers[0].transcript:
            if m.kind == "action":
                n = len(encode(m.body["action"]))
                if n > best[0]:
                    best = (n, m.body["action"])
    print(game, players, best[0], str(best[1])[:200], flush=True)
