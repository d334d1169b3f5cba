"""A minimal custom client over the embedding API: you (a tiny policy) against bot peers at UNO.

Run it:  python examples/embed_client.py [--bots 2] [--rounds 1] [--seed 7]

Everything a real client needs is here: sit down (``local_table``; ``host_table``
and ``join_table`` work the same way for a LAN), read the event stream, answer
``YourTurn`` with ``submit``, and keep the signed transcript at the end.  The
policy below is deliberately simple: it only reads this seat's own view and
the legal actions, exactly what a person at this seat could see.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

import trio

from p2php import api


def choose(legal: list[dict[str, Any]], view: dict[str, Any]) -> dict[str, Any]:
    """Play a card if we can (action cards first, always calling UNO), else whatever comes first."""
    plays = [a for a in legal if a.get("type") == "play"]
    if plays:
        names = {card["slot"]: card["name"] or "" for card in view.get("hand", [])}
        plays.sort(key=lambda a: not any(w in names.get(a.get("slot"), "") for w in ("draw", "skip", "reverse")))
        called = [a for a in plays if a.get("uno")]
        return (called or plays)[0]
    return legal[0]


async def main(bots: int, rounds: int, seed: int | None) -> int:
    async with api.local_table("uno", bots=bots, options={"rounds": rounds}, seed=seed, name="embedder") as peer:
        turns = 0
        async for event in peer.events():
            if isinstance(event, api.Started):
                print(f"table formed: {event.game} {event.options} — we are seat {event.seat} of {event.names}")
            elif isinstance(event, api.StepResolved):
                for line in event.lines:
                    print(f"  {line}")
            elif isinstance(event, api.YourTurn):
                turns += 1
                action = choose(event.legal, event.view)
                print(f"> our turn ({event.prompt}): {peer.label(action)}")
                await peer.submit(action)
            elif isinstance(event, api.Finished):
                print(event.text())
                path = peer.save_transcript(Path(tempfile.mkdtemp()) / "embed.p2php")
                check = api.verify_transcript(path)
                print(f"we played {turns} turns; transcript {path}: {'verified' if check.ok else 'FAILED'}")
                return 0 if event.clean and check.ok else 1
            elif isinstance(event, api.Failed):
                print(f"the table failed: {event.message}")
                return 1
    return 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=None, help="reproducible bots and keys (testing only)")
    args = parser.parse_args()
    raise SystemExit(trio.run(main, args.bots, args.rounds, args.seed))
