"""(a) A liar at a SEALED decision withholds its audit; seat 0 stops on another seat's abort before it applies the
answers (seat 3's phase-1 answer reaches it only in its audit round). The seats that applied the batch name the liar
(hidden_lie, by elimination); seat 0 and p2php verify of seat 0's record do not."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from held_delivery import run_holding  # noqa: E402
from sealed_holder import ensure, hide_the_holder  # noqa: E402

from p2php.session import transcript  # noqa: E402
from p2php.session.memory import make_peers  # noqa: E402


def run(seed: int, crypto: str = "verified", withhold: bool = True) -> None:
    peers = make_peers(ensure(), 4, {"crypto": crypto}, seed=seed)
    liar: list[int] = []
    for p in peers:
        hide_the_holder(p, liar)
        poll = p.poll

        def withholding(p: Any = p, poll: Any = poll) -> list[Any]:
            return [m for m in poll() if not (withhold and p.seat in liar and m.kind == "audit")]

        p.poll = withholding
    run_holding(peers, lambda sender, to, wire: to == 0 and sender == 3 and wire.get("kind") == "action", seed)
    state = "withheld" if withhold else "sent"
    print(f"{crypto} seed {seed} (liar's audit {state}): liar seat {liar}; "
          f"seat 0 refused_answers={peers[0].refused_answers}")
    for p in peers:
        if p.seat in liar:
            continue
        v = p.verdict
        with tempfile.TemporaryDirectory() as d:
            r = transcript.verify(transcript.save(p, Path(d) / "s.p2php"))
        rv = r.spectator.verdict if r.spectator else None
        print(f"  seat {p.seat} named {(v.culprit, v.code) if v else None}; p2php verify of its record names "
              f"{(rv.culprit, rv.code) if rv else None}")


if __name__ == "__main__":
    for seed in range(1, 7):
        run(seed)
    for seed in (1, 3):
        run(seed, "fast", withhold=False)
